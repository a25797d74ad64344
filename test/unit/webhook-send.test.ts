/** One webhook delivery, alone (a fake fetch): the address rule at delivery time and the OAuth2 token cache. */
import { createWebhookSender } from '../../src/activities/webhooks/send';

const publicOnly = { allowPrivateAddresses: false, allowHttp: false };
const anywhere = { allowPrivateAddresses: true, allowHttp: true };
const unseal = (v: string) => v;

function fakeFetch(tokenLifeSeconds = 3600) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  let tokens = 0;
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url: String(url), headers: init.headers as Record<string, string> });
    if (String(url).endsWith('/token')) return new Response(JSON.stringify({ access_token: `t${++tokens}`, expires_in: tokenLifeSeconds }), { status: 200 });
    return new Response('', { status: 204 });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

it('refuses a receiver on a private address at delivery time without calling it', async () => {
  const { fetch, calls } = fakeFetch();
  const send = createWebhookSender({ fetch, now: () => new Date(), policy: publicOnly, unseal });
  for (const endpointUrl of ['https://127.0.0.1/hook', 'https://169.254.169.254/x', 'https://[fd00::1]/x', 'http://8.8.8.8/x']) {
    const outcome = await send({ endpointUrl }, 'e1', '{}', 'secret');
    expect(outcome.httpStatus).toBeNull();
    expect(outcome.error).toMatch(/private address|https URL/);
  }
  expect(calls).toHaveLength(0);
});

it('fetches an OAuth2 token once while it is valid and again once it expired', async () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const { fetch, calls } = fakeFetch(60);
  const send = createWebhookSender({ fetch, now: () => new Date(now), policy: anywhere, unseal });
  const hook = { endpointUrl: 'https://8.8.8.8/hook', oauth2AuthConfig: { accessTokenUrl: 'https://8.8.4.4/token', clientId: 'c', clientSecret: 's' } };
  await Promise.all([send(hook, 'e1', '{}', 'k'), send(hook, 'e2', '{}', 'k')]);
  await send(hook, 'e3', '{}', 'k');
  expect(calls.filter((c) => c.url.endsWith('/token'))).toHaveLength(1);
  expect(calls.filter((c) => c.url.endsWith('/hook')).map((c) => c.headers.authorization)).toEqual(['Bearer t1', 'Bearer t1', 'Bearer t1']);
  now += 55_000; // within the last tenth of its life: fetched anew
  await send(hook, 'e4', '{}', 'k');
  expect(calls.filter((c) => c.url.endsWith('/hook')).at(-1)!.headers.authorization).toBe('Bearer t2');
});
