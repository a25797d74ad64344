/**
 * The rule for every URL the service calls on a caller's behalf (instrument logos, webhook receivers,
 * OAuth2 token endpoints): http(s) only (plain http only where the policy allows it) and, unless
 * configured, no private, loopback or link-local address, so the service cannot be used to reach its
 * own network. Fails with VALIDATION_ERROR naming the field.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationError } from '../domain/errors';

export interface OutboundUrlPolicy {
  allowPrivateAddresses: boolean;
  /** Whether plain http is accepted beside https. */
  allowHttp: boolean;
}

/** Whether an IP address is private, loopback, link-local, unspecified or otherwise not public. */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isPrivateAddress(v6.slice(7));
  return v6 === '::' || v6 === '::1' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80') || v6.startsWith('ff');
}

/**
 * Parses `url` and checks it against the policy, resolving its host when private addresses are
 * refused (a name that resolves to one is refused as the address would be). `purpose` ends the
 * refusal's message ("logos are copied only from public addresses").
 */
export async function checkOutboundUrl(url: string, policy: OutboundUrlPolicy, field: string, purpose: string): Promise<URL> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw validationError(field, `${field} is not a URL`);
  }
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && policy.allowHttp)) {
    throw validationError(field, `${field} must be an ${policy.allowHttp ? 'http(s)' : 'https'} URL`);
  }
  if (policy.allowPrivateAddresses) return target;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw validationError(field, `${field}: ${host} does not resolve`);
  if (addresses.some(isPrivateAddress)) throw validationError(field, `${field}: ${host} is a private address; ${purpose}`);
  return target;
}
