/** Seals webhook credentials before they travel through a workflow or land in the database. */
import type { Sealer } from '../../custody/sealing';

type HookHolder = {
  missingSignatureWebhooks?: Hook[];
  preTransactionSubmitWebhooks?: Hook[];
  postTransactionSubmitWebhooks?: Hook[];
};
type Hook = { apiKeyAuthConfig?: { httpHeaderName: string; keyValue: string }; oauth2AuthConfig?: { clientSecret?: string; password?: string } };

export function sealWebhookSecrets<T extends HookHolder>(sealer: Sealer, item: T): T {
  const seal = (hook: Hook): Hook => ({
    ...hook,
    ...(hook.apiKeyAuthConfig ? { apiKeyAuthConfig: { ...hook.apiKeyAuthConfig, keyValue: sealer.seal(hook.apiKeyAuthConfig.keyValue) } } : {}),
    ...(hook.oauth2AuthConfig
      ? {
          oauth2AuthConfig: {
            ...hook.oauth2AuthConfig,
            ...(hook.oauth2AuthConfig.clientSecret ? { clientSecret: sealer.seal(hook.oauth2AuthConfig.clientSecret) } : {}),
            ...(hook.oauth2AuthConfig.password ? { password: sealer.seal(hook.oauth2AuthConfig.password) } : {}),
          },
        }
      : {}),
  });
  const out: T = { ...item };
  for (const key of ['missingSignatureWebhooks', 'preTransactionSubmitWebhooks', 'postTransactionSubmitWebhooks'] as const) {
    if (item[key]) out[key] = item[key]!.map(seal) as any;
  }
  return out;
}
