/**
 * The webhook credentials kept sealed (API key values, OAuth2 client secrets and passwords): sealed
 * before they travel through a workflow or land in the account record, and re-wrapped in place by a
 * KEK rotation. This is the one list of which webhook fields hold secrets.
 */
import type { Sealer } from './sealing';

type Hook = { apiKeyAuthConfig?: { httpHeaderName: string; keyValue: string }; oauth2AuthConfig?: { clientSecret?: string; password?: string } };
export const webhookKinds = ['missingSignatureWebhooks', 'preTransactionSubmitWebhooks', 'postTransactionSubmitWebhooks'] as const;
type HookHolder = { [K in (typeof webhookKinds)[number]]?: Hook[] };

/** The hook with `change` applied to each of its secret values. Pure. */
export function mapWebhookSecrets<H extends Hook>(hook: H, change: (value: string) => string): H {
  const oauth = hook.oauth2AuthConfig;
  return {
    ...hook,
    ...(hook.apiKeyAuthConfig ? { apiKeyAuthConfig: { ...hook.apiKeyAuthConfig, keyValue: change(hook.apiKeyAuthConfig.keyValue) } } : {}),
    ...(oauth
      ? {
          oauth2AuthConfig: {
            ...oauth,
            ...(oauth.clientSecret ? { clientSecret: change(oauth.clientSecret) } : {}),
            ...(oauth.password ? { password: change(oauth.password) } : {}),
          },
        }
      : {}),
  };
}

export function sealWebhookSecrets<T extends HookHolder>(sealer: Sealer, item: T): T {
  const out: T = { ...item };
  for (const key of webhookKinds) {
    if (item[key]) out[key] = item[key]!.map((hook) => mapWebhookSecrets(hook, (value) => sealer.seal(value))) as T[typeof key];
  }
  return out;
}
