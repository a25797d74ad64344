/**
 * Copies an instrument's logo from the caller's URL: http(s) only, no redirects, a size cap, an
 * image content type, and (unless configured) no private, loopback or link-local addresses, so the
 * service cannot be used to reach its own network. Fails with VALIDATION_ERROR naming the field.
 */
import { checkOutboundUrl } from '../network/outbound-url';
import { validationError } from '../domain/errors';

export interface LogoPolicy {
  allowPrivateAddresses: boolean;
  maxBytes: number;
}

export const logoContentTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;

export interface FetchedLogo {
  bytes: Buffer;
  contentType: string;
}

export async function fetchLogo(url: string, policy: LogoPolicy, field: string, fetchImpl: typeof fetch = fetch): Promise<FetchedLogo> {
  // Logos may come over plain http (public images often do); the address rule is the webhooks' too.
  const target = await checkOutboundUrl(
    url,
    { allowPrivateAddresses: policy.allowPrivateAddresses, allowHttp: true },
    field,
    'logos are copied only from public addresses',
  );
  let response: Response;
  try {
    response = await fetchImpl(target, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
  } catch (error) {
    throw validationError(field, `${field} could not be fetched: ${(error as Error).message}`);
  }
  if (response.status >= 300 && response.status < 400) throw validationError(field, `${field} redirects; give the final URL`);
  if (!response.ok) throw validationError(field, `${field} answered HTTP ${response.status}`);
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!(logoContentTypes as readonly string[]).includes(contentType))
    throw validationError(field, `${field} is ${contentType || 'of no content type'}; a logo is one of ${logoContentTypes.join(', ')}`);
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
