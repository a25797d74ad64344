/**
 * OAuth2 tokens for webhook deliveries (spec 6 `oauth2AuthConfig`, docs/webhooks.md): a form POST to
 * `accessTokenUrl` with the password grant (RFC 6749 4.3: grant_type=password, username, password)
 * when the config has `userName` and `password`, else the client-credentials grant (4.4); both send
 * client_id, client_secret and audience when given. Cached in this worker process until shortly
 * before `expires_in` so a burst of deliveries fetches one token. Secrets are unsealed only for the
 * request and never appear in an error.
 *
 * Plain fetch, not an OAuth2 client library: the project has none, and a token request is one form
 * POST whose URL must first pass the outbound URL policy, which a library's own HTTP client would skip.
 */
import { createHash } from 'node:crypto';
import { checkOutboundUrl, type OutboundUrlPolicy } from '../../network/outbound-url';

export interface OAuth2Config {
  accessTokenUrl?: string;
  audience?: string;
  clientId?: string;
  clientSecret?: string;
  /** With `password` (kept sealed): the resource owner of the password grant. */
  userName?: string;
  password?: string;
}

/** The grant a config asks for: the password grant when it names a resource owner, else client credentials. Pure. */
export function grantOf(config: OAuth2Config): 'password' | 'client_credentials' {
  return config.userName && config.password ? 'password' : 'client_credentials';
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
    const grant = grantOf(config);
    const form = new URLSearchParams({ grant_type: grant });
    if (grant === 'password') {
      form.set('username', config.userName!);
      form.set('password', deps.unseal(config.password!));
    }
    form.set('client_id', config.clientId);
    form.set('client_secret', deps.unseal(config.clientSecret));
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
    // One token per grant and credentials: a token is never reused for a config with another grant,
    // resource owner or secret (a digest, so the cache holds no secret in its keys).
    const key = createHash('sha256')
      .update(
        JSON.stringify([
          config.accessTokenUrl,
          config.clientId,
          config.audience ?? null,
          grantOf(config),
          config.userName ?? null,
          config.clientSecret ? deps.unseal(config.clientSecret) : null,
          config.password ? deps.unseal(config.password) : null,
        ]),
      )
      .digest('hex');
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
