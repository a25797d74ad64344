/**
 * The OAuth2 grant a webhook delivery uses (docs/webhooks.md), against a real token endpoint and
 * receiver on 127.0.0.1: the password grant when the config names userName and password, client
 * credentials otherwise, and a token of one config never sent for another.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookSender } from '../../../src/activities/webhooks/send';

const anywhere = { allowPrivateAddresses: true, allowHttp: true };
// Stands for the sealer: a "sealed" value is the plain one behind a prefix.
const unseal = (v: string) => v.replace(/^sealed:/, '');

let server: Server;
let base: string;
const tokenForms: Record<string, string>[] = [];
const bearers: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/token') {
        const form = Object.fromEntries(new URLSearchParams(body));
        tokenForms.push(form);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `token-${tokenForms.length}-${form.grant_type}`, expires_in: 3600 }));
        return;
      }
      bearers.push(req.headers.authorization ?? '');
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  tokenForms.length = 0;
  bearers.length = 0;
});

const sender = () => createWebhookSender({ fetch, now: () => new Date(), policy: anywhere, unseal });
const client = () => ({ accessTokenUrl: `${base}/token`, clientId: 'ledger', clientSecret: 'sealed:client-secret', audience: 'hooks' });

it('sends the password grant (username, password and the client credentials) when userName and password are given', async () => {
  const hook = { endpointUrl: `${base}/hook`, oauth2AuthConfig: { ...client(), userName: 'alice', password: 'sealed:pa ss&word' } };
  const outcome = await sender()(hook, 'e1', '{}', 'k');
  expect(outcome).toEqual({ httpStatus: 204, error: null });
  expect(tokenForms).toEqual([
    { grant_type: 'password', username: 'alice', password: 'pa ss&word', client_id: 'ledger', client_secret: 'client-secret', audience: 'hooks' },
  ]);
  expect(bearers).toEqual(['Bearer token-1-password']);
});

it('sends the client-credentials grant without userName and password', async () => {
  const outcome = await sender()({ endpointUrl: `${base}/hook`, oauth2AuthConfig: client() }, 'e1', '{}', 'k');
  expect(outcome).toEqual({ httpStatus: 204, error: null });
  expect(tokenForms).toEqual([{ grant_type: 'client_credentials', client_id: 'ledger', client_secret: 'client-secret', audience: 'hooks' }]);
  expect(bearers).toEqual(['Bearer token-1-client_credentials']);
});

it('never sends a token of one grant or resource owner for another config, and reuses it for the same one', async () => {
  const send = sender();
  const clientOnly = { endpointUrl: `${base}/hook`, oauth2AuthConfig: client() };
  const alice = { endpointUrl: `${base}/hook`, oauth2AuthConfig: { ...client(), userName: 'alice', password: 'sealed:a' } };
  const bob = { endpointUrl: `${base}/hook`, oauth2AuthConfig: { ...client(), userName: 'bob', password: 'sealed:b' } };
  const otherSecret = { endpointUrl: `${base}/hook`, oauth2AuthConfig: { ...client(), clientSecret: 'sealed:another' } };
  for (const hook of [clientOnly, alice, bob, otherSecret, clientOnly, alice, bob]) await send(hook, 'e', '{}', 'k');
  expect(tokenForms.map((f) => [f.grant_type, f.username ?? null, f.client_secret])).toEqual([
    ['client_credentials', null, 'client-secret'],
    ['password', 'alice', 'client-secret'],
    ['password', 'bob', 'client-secret'],
    ['client_credentials', null, 'another'],
  ]);
  expect(bearers).toEqual([
    'Bearer token-1-client_credentials',
    'Bearer token-2-password',
    'Bearer token-3-password',
    'Bearer token-4-client_credentials',
    'Bearer token-1-client_credentials',
    'Bearer token-2-password',
    'Bearer token-3-password',
  ]);
});
