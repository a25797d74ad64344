/**
 * Sends one webhook delivery (docs/webhooks.md): the receiver's address checked against the outbound URL
 * policy after DNS (a name may have moved since the account was saved), HMAC-SHA256 signature over
 * `timestamp.body` with the organization's secret, the configured API-key header or an OAuth2 bearer
 * token. Never throws: every failure is an outcome to record.
 */
import { createHmac } from 'node:crypto';
import type { WebhookConfig } from '../../db/entities';
import { checkOutboundUrl, type OutboundUrlPolicy } from '../../network/outbound-url';
import { createTokenCache, TokenError } from './oauth2-tokens';

export interface SendOutcome {
  /** The receiver's status; null when it never answered (or was never called). */
  httpStatus: number | null;
  /** Why the delivery failed; null on a 2xx. */
  error: string | null;
}

export interface SenderDeps {
  fetch: typeof fetch;
  now: () => Date;
  policy: OutboundUrlPolicy;
  unseal: (value: string) => string;
}

export function createWebhookSender(deps: SenderDeps) {
  // One token cache per worker process (the activities are built once per worker).
  const tokens = createTokenCache(deps);

  return async function send(hook: WebhookConfig, eventId: string, body: string, secret: string): Promise<SendOutcome> {
    try {
      await checkOutboundUrl(hook.endpointUrl, deps.policy, 'endpointUrl', 'webhooks are delivered only to public addresses');
    } catch (error) {
      return { httpStatus: null, error: (error as Error).message };
    }
    const timestamp = deps.now().toISOString();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-ledger-event-id': eventId,
      'x-ledger-timestamp': timestamp,
      'x-ledger-signature': createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'),
    };
    if (hook.apiKeyAuthConfig) headers[hook.apiKeyAuthConfig.httpHeaderName.toLowerCase()] = deps.unseal(hook.apiKeyAuthConfig.keyValue);
    if (hook.oauth2AuthConfig) {
      try {
        headers.authorization = `Bearer ${await tokens.bearer(hook.oauth2AuthConfig)}`;
      } catch (error) {
        if (error instanceof TokenError) return { httpStatus: null, error: `OAuth2: ${error.message}` };
        return { httpStatus: null, error: 'OAuth2: the token could not be fetched' };
      }
    }
    try {
      const response = await deps.fetch(hook.endpointUrl, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(Math.min(hook.timeout ?? 5000, 30000)),
      });
      await response.arrayBuffer().catch(() => undefined);
      return { httpStatus: response.status, error: response.ok ? null : `the receiver answered HTTP ${response.status}` };
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return {
        httpStatus: null,
        error: timedOut ? `no answer within ${Math.min(hook.timeout ?? 5000, 30000)} ms` : `the receiver could not be reached: ${(error as Error).message}`,
      };
    }
  };
}
