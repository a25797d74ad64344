/**
 * OAuth2 client-credentials tokens for webhook deliveries (spec 6 `oauth2AuthConfig`): a form POST
 * to `accessTokenUrl` (grant_type=client_credentials, client_id, client_secret, audience when given),
 * cached in this worker process until shortly before `expires_in` so a burst of deliveries fetches one
 * token. The secret is unsealed only for the request and never appears in an error.
 */
import { checkOutboundUrl, type OutboundUrlPolicy } from '../../network/outbound-url';

export interface OAuth2Config {
  accessTokenUrl?: string;
  audience?: string;
  clientId?: string;
  clientSecret?: string;
}

/** Why a token could not be had: the delivery fails with this reason (recorded, then retried as the delivery is). */
export class TokenError extends Error {}

/** A token is dropped this long before it expires (at most a tenth of its life), so it does not expire in flight. */
const EARLY_MS = 30_000;

export function createTokenCache(deps: { fetch: typeof fetch; now: () => Date; policy: OutboundUrlPolicy; unseal: (value: string) => string }) {
  // Promises, so deliveries that start together while no token is cached share one request.
  const cache = new Map<string, Promise<{ token: string; until: number }>>();

  async function fetchToken(config: OAuth2Config): Promise<{ token: string; until: number }> {
    if (!config.accessTokenUrl || !config.clientId || !config.clientSecret)
      throw new TokenError('oauth2AuthConfig needs accessTokenUrl, clientId and clientSecret');
    try {
      await checkOutboundUrl(config.accessTokenUrl, deps.policy, 'oauth2AuthConfig.accessTokenUrl', 'tokens are fetched only from public addresses');
    } catch (error) {
      throw new TokenError(`token endpoint refused: ${(error as Error).message}`);
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: config.clientId, client_secret: deps.unseal(config.clientSecret) });
    if (config.audience) form.set('audience', config.audience);
    let response: Response;
    try {
      response = await deps.fetch(config.accessTokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new TokenError(`token endpoint did not answer: ${(error as Error).message}`);
    }
    if (!response.ok) {
      await response.arrayBuffer().catch(() => undefined);
      throw new TokenError(`token endpoint answered HTTP ${response.status}`);
    }
    const body = (await response.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (typeof body?.access_token !== 'string' || !body.access_token) throw new TokenError('token endpoint answered without an access_token');
    const lifeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60) * 1000;
    return { token: body.access_token, until: deps.now().getTime() + lifeMs - Math.min(EARLY_MS, lifeMs / 10) };
  }

  /** The bearer token for this config: cached, or fetched. Throws TokenError with the reason. */
  async function bearer(config: OAuth2Config): Promise<string> {
    const key = JSON.stringify([config.accessTokenUrl, config.clientId, config.audience ?? null]);
    const cached = cache.get(key);
    if (cached) {
      const held = await cached.catch(() => null);
      if (held && held.until > deps.now().getTime()) return held.token;
      // A failed or expired token: fetch anew unless another delivery already did.
      if (cache.get(key) !== cached) return bearer(config);
    }
    const fresh = fetchToken(config);
    cache.set(key, fresh);
    return (await fresh).token;
  }

  return { bearer };
}
