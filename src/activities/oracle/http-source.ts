/**
 * The HTTP GET a job reads its sources with: only hosts ORACLE_ALLOWED_HOSTS lists (a redirect
 * to another host is refused), a time cap per request and a size cap on the body. Any failure is
 * a JobFailure: the job gives no value and the feed keeps its last one.
 */
import { hostAllowed, JobFailure, type HttpGet, type OraclePolicy } from '../../domain/oracle-job';

export type { OraclePolicy };

export const noOracleHosts: OraclePolicy = { allowedHosts: [], maxResponseBytes: 64 * 1024, timeoutMs: 5000 };

const MAX_REDIRECTS = 3;

async function readCapped(response: Response, maxBytes: number, where: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw new JobFailure(`GET ${where}: the response is larger than ${maxBytes} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new JobFailure(`GET ${where}: the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createHttpGet(policy: OraclePolicy, fetchFn: typeof fetch): HttpGet {
  return async function get(url: string): Promise<string> {
    let target = new URL(url);
    for (let hop = 0; ; hop++) {
      const where = `${target.host}${target.pathname}`;
      if (!hostAllowed(target, policy.allowedHosts)) throw new JobFailure(`GET ${where}: host ${target.host} is not in ORACLE_ALLOWED_HOSTS`);
      let response: Response;
      try {
        response = await fetchFn(target, {
          method: 'GET',
          redirect: 'manual',
          signal: AbortSignal.timeout(policy.timeoutMs),
          headers: { accept: 'application/json' },
        });
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${policy.timeoutMs} ms` : (error as Error).message;
        throw new JobFailure(`GET ${where}: ${reason}`);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) throw new JobFailure(`GET ${where}: more than ${MAX_REDIRECTS} redirects`);
        target = new URL(location, target);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new JobFailure(`GET ${where}: answered HTTP ${response.status}`);
      }
      return readCapped(response, policy.maxResponseBytes, where);
    }
  };
}
