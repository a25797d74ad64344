/**
 * Checks an account's webhooks when they are set (Create / Update Account), before the write starts:
 * each endpointUrl and OAuth2 accessTokenUrl against the outbound URL policy (public https unless
 * configured), and an OAuth2 config complete enough for its grant (client credentials; the password
 * grant when it names userName and password, which come together). Deliveries check
 * the addresses again after resolving them (a name may move). Throws VALIDATION_ERROR naming the field.
 */
import { checkOutboundUrl, type OutboundUrlPolicy } from '../../network/outbound-url';
import { validationError } from '../../domain/errors';
import type { WebhookConfigInput } from '../../domain/inputs/common.inputs';

const kinds = ['missingSignatureWebhooks', 'preTransactionSubmitWebhooks', 'postTransactionSubmitWebhooks'] as const;
type HookHolder = Partial<Record<(typeof kinds)[number], WebhookConfigInput[]>>;

const PURPOSE = 'webhooks are delivered only to public addresses';

export async function checkWebhookUrls(policy: OutboundUrlPolicy, item: HookHolder, at = 'itemData'): Promise<void> {
  for (const kind of kinds) {
    for (const [index, hook] of (item[kind] ?? []).entries()) {
      const field = `${at}.${kind}.${index}`;
      await checkOutboundUrl(hook.endpointUrl, policy, `${field}.endpointUrl`, PURPOSE);
      const oauth2 = hook.oauth2AuthConfig;
      if (!oauth2) continue;
      // Both grants send the client's credentials (docs/webhooks.md): these three are always needed.
      for (const name of ['accessTokenUrl', 'clientId', 'clientSecret'] as const) {
        if (!oauth2[name])
          throw validationError(`${field}.oauth2AuthConfig.${name}`, `${field}.oauth2AuthConfig.${name} is required for an OAuth2 token request`);
      }
      // userName and password are the password grant's resource owner: one without the other would do nothing.
      const [given, missing] = oauth2.userName ? ['userName', 'password'] : ['password', 'userName'];
      if ((oauth2.userName || oauth2.password) && !oauth2[missing as 'userName' | 'password'])
        throw validationError(
          `${field}.oauth2AuthConfig.${missing}`,
          `${field}.oauth2AuthConfig.${missing} is required with ${given}: the two name the resource owner of the password grant`,
        );
      await checkOutboundUrl(oauth2.accessTokenUrl!, policy, `${field}.oauth2AuthConfig.accessTokenUrl`, PURPOSE);
    }
  }
}
