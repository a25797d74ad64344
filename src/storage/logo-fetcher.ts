/**
 * Copies an instrument's logo from the caller's URL: http(s) only, no redirects, a size cap, an
 * image content type, and (unless configured) no private, loopback or link-local addresses, so the
 * service cannot be used to reach its own network. Fails with VALIDATION_ERROR naming the field.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationError } from '../domain/errors';

export interface LogoPolicy {
  allowPrivateAddresses: boolean;
  maxBytes: number;
}

export const logoContentTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;

/** Whether an IP address is private, loopback, link-local, unspecified or otherwise not public. */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isPrivateAddress(v6.slice(7));
  return v6 === '::' || v6 === '::1' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80') || v6.startsWith('ff');
}

export interface FetchedLogo {
  bytes: Buffer;
  contentType: string;
}

export async function fetchLogo(url: string, policy: LogoPolicy, field: string, fetchImpl: typeof fetch = fetch): Promise<FetchedLogo> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw validationError(field, `${field} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw validationError(field, `${field} must be an http(s) URL`);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw validationError(field, `${field}: ${host} does not resolve`);
  if (!policy.allowPrivateAddresses && addresses.some(isPrivateAddress)) throw validationError(field, `${field}: ${host} is a private address; logos are copied only from public addresses`);
  let response: Response;
  try {
    response = await fetchImpl(target, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
  } catch (error) {
    throw validationError(field, `${field} could not be fetched: ${(error as Error).message}`);
  }
  if (response.status >= 300 && response.status < 400) throw validationError(field, `${field} redirects; give the final URL`);
  if (!response.ok) throw validationError(field, `${field} answered HTTP ${response.status}`);
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!(logoContentTypes as readonly string[]).includes(contentType)) throw validationError(field, `${field} is ${contentType || 'of no content type'}; a logo is one of ${logoContentTypes.join(', ')}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > policy.maxBytes) throw validationError(field, `${field} is ${declared} bytes; at most ${policy.maxBytes} are accepted`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > policy.maxBytes) throw validationError(field, `${field} is over ${policy.maxBytes} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return { bytes: Buffer.concat(chunks), contentType };
}
