/** Create/Update Account's check of an OAuth2 config (docs/webhooks.md): userName and password come together. */
import { checkWebhookUrls } from '../../../src/api/routes/webhook-urls';

const anywhere = { allowPrivateAddresses: true, allowHttp: true };
const client = { accessTokenUrl: 'http://127.0.0.1/token', clientId: 'c', clientSecret: 's' };
const hooks = (oauth2AuthConfig: Record<string, string>) => ({ preTransactionSubmitWebhooks: [{ endpointUrl: 'http://127.0.0.1/hook', oauth2AuthConfig }] });

it.each([
  [{ ...client, userName: 'alice' }, 'itemData.preTransactionSubmitWebhooks.0.oauth2AuthConfig.password'],
  [{ ...client, password: 'p' }, 'itemData.preTransactionSubmitWebhooks.0.oauth2AuthConfig.userName'],
])('refuses one of userName and password without the other, naming the missing one', async (config, field) => {
  await expect(checkWebhookUrls(anywhere, hooks(config))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field });
});

it('accepts the client-credentials and the password grant configs', async () => {
  await expect(checkWebhookUrls(anywhere, hooks(client))).resolves.toBeUndefined();
  await expect(checkWebhookUrls(anywhere, hooks({ ...client, userName: 'alice', password: 'p' }))).resolves.toBeUndefined();
});
