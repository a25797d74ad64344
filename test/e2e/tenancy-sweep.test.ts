/**
 * Tenancy sweep (issue 11 section 2; docs/custody-policy.md, "What another tenant sees"): organization
 * A holds one of every kind of object; organization B (every role but ADMIN) calls every route of the
 * API naming A's objects by offchainId, by onchainId, by offchain references and with
 * otherTenantOrganizationExternalId (none of A's objects is shared), in every slot a request names an
 * object in, with B's own objects in the other slots. Every such request is 404 NOT_FOUND naming the
 * slot, the answer a missing object gets, and repeats none of A's identifiers it was not given; B's
 * bulk reads list none of A's objects; an override naming A is 403, for B's key and for B's ADMIN key
 * alike (B is not the operators' organization, docs/tenancy.md), as is B's ADMIN key naming an
 * organization that does not exist. Afterwards nothing moved: A's records, balances, chain state, approval and webhook log are as before, A's
 * webhook receiver was not called, and B has no transaction record of its refused writes. Last, a
 * write of B that touches A's (public) address moves A's record with the chain without naming B's
 * transaction record in it.
 *
 * The table is keyed by operationId and checked against the OpenAPI document the service serves
 * (built from the route declarations): a route added without a row fails the sweep.
 * Sharing (shareAcrossTenants, orgsAllowedToSignWithPrivateKey, globalFeePayerForOrgs) is tested in
 * custody-policy.test.ts; the objects here are not shared.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Organization } from '../../src/db/entities';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { roleNames, type Role } from '../../src/domain/roles';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
type Lookup = Record<string, unknown>;

/** One request of B naming one of A's objects, and the answer it must get (404 NOT_FOUND naming `field` unless told). */
interface Probe {
  label: string;
  body?: unknown;
  /** Instead of the operation's path (a GET naming the object in its path). */
  url?: string;
  /** Another of B's keys than the one without ADMIN. */
  apiKey?: string;
  field?: string;
  status?: number;
  code?: string;
}

interface Filter {
  fieldName: string;
  valueString: string;
}

/** Each authenticated operation of the document: the probes naming A's objects, a bulk read, or why it names none. */
type Row = { probes: () => Probe[] } | { bulk: () => Filter[] } | { namesNoObject: string; expect: number };

const ROLES: Role[] = roleNames.filter((r) => r !== 'ADMIN');
const BATCH = 10;
const A_WALLET_CODE = 'A-WALLET';
const LAMPORTS = 1_000_000_000;
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let stack: Stack;
let server: http.Server;
let base: string;
/** Requests A's webhook receiver got. */
let webhookCalls = 0;
let operations: Map<string, { method: string; path: string; tenancyConfig: boolean }>;

const A = { key: '', org: '', orgId: '' };
/** B's key with every role but ADMIN, and B's ADMIN key (every role). */
const B = { key: '', admin: '', org: '' };
/** An approver of A's held write: another API key of A (another organization's key is refused as an approver). */
let aApproverKeyId = '';
/** A's objects. */
const a = {} as {
  authority: Ref;
  wallet: Ref;
  instrument: Ref;
  position: Ref;
  nonce: Ref;
  table: Ref;
  /** A landed transaction (the mint), with a post-submit webhook delivery. */
  transaction: Ref;
  /** A write waiting for approval (no signature yet). */
  waiting: string;
  approval: string;
  eventId: string;
  fileId: string;
  /** An oracle data source on A's instrument, and a loan strategy (vault) lending it. */
  feed: Ref;
  vault: Ref;
};
/** B's own objects, for the slots a probe does not name A's in. */
const b = {} as { wallet: Ref; vault: Ref; instrument: Ref; position: Ref };

const as = (apiKey: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  stack.call(method, path, body, { apiKey, headers });

async function created(apiKey: string, path: string, itemData: unknown, answer: string): Promise<Ref> {
  const r = await as(apiKey)('POST', path, { itemData });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body[answer] as Ref;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    webhookCalls++;
    req.resume();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  stack = await startStack();
  A.key = stack.apiKey;
  A.org = stack.organizationExternalId;
  A.orgId = (await forkEm(stack.runtime.orm).findOneOrFail(Organization, { externalId: A.org })).id;
  B.org = `tenancy-b-${randomBytes(4).toString('hex')}`;
  const { organization } = await ensureOrganization(forkEm(stack.runtime.orm), stack.runtime.sealer, B.org);
  ({ apiKey: B.key } = await createApiKey(forkEm(stack.runtime.orm), organization, ROLES, stack.config.platformName));
  ({ apiKey: B.admin } = await createApiKey(forkEm(stack.runtime.orm), organization, [...roleNames], stack.config.platformName));
  aApproverKeyId = (
    await createApiKey(
      forkEm(stack.runtime.orm),
      await forkEm(stack.runtime.orm).findOneOrFail(Organization, { id: A.orgId }),
      ['APPROVE'],
      stack.config.platformName,
    )
  ).id;

  const doc = (await stack.call('GET', '/api/v1/openapi.json', undefined, { apiKey: null })).body;
  operations = new Map(
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
        .map(([method, op]) => {
          const schema = op.requestBody?.content?.['application/json']?.schema;
          const body = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
          return [op.operationId as string, { method: method.toUpperCase(), path, tenancyConfig: Boolean(body?.properties?.tenancyConfig) }] as const;
        }),
    ),
  );

  await Promise.all([makeObjectsOfA(), makeObjectsOfB()]);
}, 120_000);

/**
 * A: an authority with a post-submit webhook, a wallet whose debits over 0.001 SOL wait for an
 * approver of A's (were B's approval to count, A's money would move), a Token-2022 instrument with a logo, a position
 * holding 1000 units, a nonce account, a lookup table, and a write held for approval.
 */
async function makeObjectsOfA() {
  const A_ = as(A.key);
  [a.authority, a.wallet] = await Promise.all([
    created(
      A.key,
      '/api/v1/accounts',
      { managed: true, canPayFees: true, seed: { amount: 0.5 }, postTransactionSubmitWebhooks: [{ endpointUrl: `${base}/hook`, name: 'a-hook' }] },
      'newAccount',
    ),
    created(
      A.key,
      '/api/v1/accounts',
      {
        managed: true,
        seed: { amount: 0.1 },
        offchainReferences: { code: A_WALLET_CODE },
        networkCurrencyDebitLimits: [
          {
            destination: 'ANY',
            maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 0.001, approversForOverride: [aApproverKeyId], requiredApproversCount: 1 },
          },
        ],
      },
      'newAccount',
    ),
  ]);
  const authority = { offchainId: a.authority.offchainId };
  const [minted, nonces, held] = await Promise.all([
    (async () => {
      a.instrument = await created(
        A.key,
        '/api/v1/financial-instruments',
        {
          version: 'TOKEN_2022',
          onchainData: { decimals: 2 },
          mintAuthority: authority,
          freezeAuthority: authority,
          permanentDelegateAuthority: authority,
          pausableAuthority: authority,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
          offchainData: { logo: { copyFromUri: `${base}/logo.png`, fileName: 'logo.png', contentType: 'image/png', type: 'LOGO' } },
        },
        'newFinancialInstrument',
      );
      const aAt = { owner: { offchainId: a.wallet.offchainId }, financialInstrument: { offchainId: a.instrument.offchainId } };
      a.position = await created(A.key, '/api/v1/positions', { positionToInitialize: aAt }, 'newPosition');
      const onInstrument = { offchainId: a.instrument.offchainId };
      a.feed = await created(
        A.key,
        '/api/v1/market-data/onchain-data-source',
        {
          defiProtocol: 'LEDGER_FEED',
          onchainDataSource: {},
          financialInstrument: onInstrument,
          onchainDataSourceAuthority: authority,
          dataDetails: { kind: 'PRICE' },
          providerDetails: { kind: 'QUOTES', jobDefinition: FEED_JOB },
        },
        'newOnchainDataSource',
      );
      a.vault = await created(
        A.key,
        '/api/v1/loans/strategies',
        {
          strategy: {},
          lender: { offchainId: a.wallet.offchainId },
          principal: { financialInstrument: onInstrument },
          collateral: [{ financialInstrument: onInstrument, apy: [1], loanToValueRatio: 500_000, liquidationRatio: 800_000 }],
        },
        'newLoanStrategy',
      );
      return A_('POST', '/api/v1/positions/mint', { itemData: { mintTo: aAt, value: { lamports: '1000' } } });
    })(),
    A_('POST', '/api/v1/durable-nonce-accounts', { itemData: { nonceAccount: {}, numberOfNonceAccounts: 1, nonceAuthority: authority } }),
    A_('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: a.wallet.offchainId }, destination: authority, value: { amount: 0.01 } },
    }),
    (async () => {
      a.table = await created(
        A.key,
        '/api/v1/address-lookup-tables',
        { addressLookupTable: {}, authority, componentAddresses: [{ offchainId: a.wallet.offchainId }] },
        'newAddressLookupTable',
      );
    })(),
  ]);
  expect(minted.body).toMatchObject({ success: true });
  a.transaction = { offchainId: minted.body.offchainId, onchainId: minted.body.onchainId };
  expect(nonces.body).toMatchObject({ transactions: [{ success: true }] });
  expect(held.body).toMatchObject({ transaction: { status: 'AWAITING_APPROVAL' } });
  a.waiting = held.body.transaction.offchainId;

  const [nonceList, approvals, details, deliveries] = await Promise.all([
    A_('POST', '/api/v1/durable-nonce-accounts/bulk', {}),
    A_('POST', '/api/v1/approvals/bulk', {}),
    A_('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { offchainId: a.instrument.offchainId } } }),
    until(
      () => A_('POST', '/api/v1/transactions/webhook-deliveries', { itemData: { transaction: { offchainId: a.transaction.offchainId } } }),
      (r) => r.body.items?.some((d: { error: string | null }) => d.error === null),
    ),
  ]);
  const nonce = nonceList.body.items[0].nonceAccount;
  a.nonce = { onchainId: nonce.onchain.id, offchainId: nonce.offchain.id };
  a.approval = approvals.body.items[0].offchainId;
  a.fileId = details.body.offchainData.logo.url.split('/').pop();
  references.set(a.wallet, { code: A_WALLET_CODE });
  references.set(a.instrument, { alId: details.body.offchain.alId });
  a.eventId = deliveries.body.items[0].eventId;
  expect(Object.values(a).every(Boolean)).toBe(true);
}

/** B: a wallet, a vault, an SPL instrument of its own and a position holding 100 units. */
async function makeObjectsOfB() {
  [b.wallet, b.vault] = await Promise.all([
    created(B.key, '/api/v1/accounts', { managed: true, canPayFees: true, seed: { amount: 0.2 } }, 'newAccount'),
    created(B.key, '/api/v1/accounts', { managed: true }, 'newAccount'),
  ]);
  b.instrument = await created(
    B.key,
    '/api/v1/financial-instruments',
    {
      version: 'SPL',
      onchainData: { decimals: 2 },
      mintAuthority: { offchainId: b.wallet.offchainId },
      freezeAuthority: { offchainId: b.wallet.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
    'newFinancialInstrument',
  );
  b.position = await created(
    B.key,
    '/api/v1/positions',
    { positionToInitialize: { owner: { offchainId: b.wallet.offchainId }, financialInstrument: { offchainId: b.instrument.offchainId } } },
    'newPosition',
  );
  expect(
    (
      await as(B.key)('POST', '/api/v1/positions/mint', {
        itemData: { mintTo: { position: { offchainId: b.position.offchainId } }, value: { lamports: '100' } },
      })
    ).body,
  ).toMatchObject({ success: true });
}

afterAll(async () => {
  // The write held for approval is A's to end.
  if (a.waiting) await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: a.waiting } } }).catch(() => undefined);
  await stack?.close();
  await new Promise((resolve) => server?.close(resolve));
});

// ---------------------------------------------------------------------------------------------
// Naming A's objects

/** An account or instrument lookup by each identifier, and naming A as the other tenant (its objects are not shared). */
const named = (ref: Ref): [string, Lookup][] => [
  ['by offchainId', { offchainId: ref.offchainId }],
  ['by onchainId', { onchainId: ref.onchainId }],
  ['as the other tenant', { onchainId: ref.onchainId, otherTenantOrganizationExternalId: A.org }],
  ...(references.has(ref) ? [['by offchainReferences', { offchainReferences: references.get(ref) }] as [string, Lookup]] : []),
];
/** Offchain references naming A's objects (the wallet's code, the instrument's AL ID). */
const references = new Map<Ref, Record<string, string>>();
const own = (ref: Ref) => ({ offchainId: ref.offchainId });
/** B's position lookup. */
const ownPosition = () => ({ position: own(b.position) });

/** Position lookups naming A's position, or A's owner or instrument beside B's, with the field each must be refused on. */
function positions(field: string): [string, Lookup, string][] {
  return [
    ["A's position by offchainId", { position: { offchainId: a.position.offchainId } }, field],
    ["A's position by onchainId", { position: { onchainId: a.position.onchainId } }, field],
    ...named(a.wallet)
      .slice(0, 2)
      .map(([how, owner]): [string, Lookup, string] => [
        `A's owner ${how} with B's instrument`,
        { owner, financialInstrument: own(b.instrument) },
        `${field}.owner`,
      ]),
    ...named(a.instrument).map(([how, financialInstrument]): [string, Lookup, string] => [
      `A's instrument ${how} with B's owner`,
      { owner: own(b.wallet), financialInstrument },
      `${field}.financialInstrument`,
    ]),
    // B's own position, naming A's account as the instrument's freeze authority.
    ...named(a.authority)
      .slice(0, 2)
      .map(([how, freezeAuthority]): [string, Lookup, string] => [
        `B's position, A's account ${how} as its freeze authority`,
        { position: own(b.position), freezeAuthority },
        `${field}.freezeAuthority`,
      ]),
  ];
}

/** Probes for one slot: `make` builds the body around each lookup naming A's object. */
const slot = (lookups: [string, Lookup][], field: string, make: (lookup: Lookup) => unknown): Probe[] =>
  lookups.map(([label, lookup]) => ({ label: `${field} ${label}`, body: make(lookup), field }));
const positionSlot = (field: string, make: (lookup: Lookup) => unknown): Probe[] =>
  positions(field).map(([label, lookup, f]) => ({ label: `${field}: ${label}`, body: make(lookup), field: f }));
const transactions = (ids: Ref | string): [string, Lookup][] =>
  typeof ids === 'string'
    ? [['by offchainId', { offchainId: ids }]]
    : [
        ['by offchainId', { offchainId: ids.offchainId }],
        ['by onchainId', { onchainId: ids.onchainId }],
      ];
const transactionSlot = (make: (lookup: Lookup) => unknown) => [
  ...slot(transactions(a.transaction), 'itemData.transaction', make),
  ...slot(transactions(a.waiting), 'itemData.transaction', make),
];
const value = { lamports: '1' };
const FEED_JOB = JSON.stringify({ tasks: [{ valueTask: { big: '1' } }] });
const filters = (pairs: [string, string][]): Filter[] => pairs.map(([fieldName, valueString]) => ({ fieldName, valueString }));

const table: Record<string, Row> = {
  createAccount: {
    probes: () =>
      slot(named(a.authority), 'svmTransactionConfig.feePayer', (feePayer) => ({ itemData: { managed: true }, svmTransactionConfig: { feePayer } })),
  },
  updateAccount: { probes: () => slot(named(a.wallet), 'itemData.account', (account) => ({ itemData: { account, comments: 'B was here' } })) },
  inactivateAccount: {
    probes: () => [
      ...slot(named(a.wallet), 'itemData.accountToInactivate', (accountToInactivate) => ({
        itemData: { accountToInactivate, transferRemainingNetworkCurrencyTo: own(b.vault) },
      })),
      ...slot(named(a.wallet), 'itemData.transferRemainingNetworkCurrencyTo', (transferRemainingNetworkCurrencyTo) => ({
        itemData: { accountToInactivate: own(b.vault), transferRemainingNetworkCurrencyTo },
      })),
    ],
  },
  fetchAccounts: { bulk: () => filters([['tenantOrganizationId', A.orgId]]) },
  fetchAccountDetails: { probes: () => slot(named(a.wallet), 'itemData.account', (account) => ({ itemData: { account } })) },
  fetchAccountBalance: { probes: () => slot(named(a.wallet), 'itemData.account', (account) => ({ itemData: { account } })) },
  fetchAccountPrivateKey: { probes: () => slot(named(a.wallet), 'itemData.account', (account) => ({ itemData: { account } })) },
  transferNetworkCurrency: {
    probes: () => [
      ...slot(named(a.wallet), 'itemData.source', (source) => ({ itemData: { source, destination: own(b.vault), value } })),
      ...slot(named(a.wallet), 'itemData.destination', (destination) => ({ itemData: { source: own(b.wallet), destination, value } })),
      ...slot(named(a.authority), 'svmTransactionConfig.feePayer', (feePayer) => ({
        itemData: { source: own(b.wallet), destination: own(b.vault), value },
        svmTransactionConfig: { feePayer },
      })),
      // A's free nonce account is not B's to use: B has none.
      {
        label: 'a durable nonce lifetime',
        body: { itemData: { source: own(b.wallet), destination: own(b.vault), value }, svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' } },
        status: 409,
        code: 'CONFLICT',
      },
    ],
  },
  createFinancialInstrument: {
    probes: () => {
      const item = { version: 'SPL', onchainData: { decimals: 0 }, mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } } };
      return [
        ...slot(named(a.authority), 'itemData.mintAuthority', (mintAuthority) => ({ itemData: { ...item, mintAuthority } })),
        ...slot(named(a.authority), 'itemData.freezeAuthority', (freezeAuthority) => ({
          itemData: { ...item, mintAuthority: own(b.wallet), freezeAuthority },
        })),
        // A's account as the pre-created mint account.
        ...slot(named(a.wallet), 'itemData.existingMintAccount', (existingMintAccount) => ({
          itemData: { version: 'SPL', onchainData: { decimals: 0 }, mintAuthority: own(b.wallet), existingMintAccount },
        })),
      ];
    },
  },
  updateFinancialInstrument: {
    probes: () => [
      ...slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument, comments: 'B was here' } })),
      // Rotating B's own authority to A's account.
      ...slot(named(a.authority), 'itemData.freezeAuthority', (freezeAuthority) => ({ itemData: { financialInstrument: own(b.instrument), freezeAuthority } })),
    ],
  },
  fetchFinancialInstruments: {
    bulk: () =>
      filters([
        ['tenantOrganizationId', A.orgId],
        ['mintAuthorityOffchainId', a.authority.offchainId],
        ['mintAuthorityOnchainId', a.authority.onchainId],
      ]),
  },
  fetchFinancialInstrumentDetails: {
    probes: () => slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument } })),
  },
  pauseFinancialInstrument: {
    probes: () => slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument } })),
  },
  unpauseFinancialInstrument: {
    probes: () => slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument } })),
  },
  closeFinancialInstrument: {
    probes: () =>
      slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({
        itemData: { financialInstrument, refundDestination: own(b.vault) },
      })),
  },
  fetchFinancialInstrumentCirculatingSupply: {
    probes: () => slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument } })),
  },
  tokenExtensionsCalculator: { namesNoObject: 'a calculation over the extensions named', expect: 200 },
  initializePosition: {
    probes: () => [
      // Owner and instrument (the associated account); and an explicit account pre-created with Create Account.
      ...positionSlot('itemData.positionToInitialize', (positionToInitialize) => ({ itemData: { positionToInitialize } })).filter(
        (p) => !('position' in (p.body as any).itemData.positionToInitialize),
      ),
      ...slot(named(a.wallet), 'itemData.positionToInitialize.position', (position) => ({
        itemData: { positionToInitialize: { position, owner: own(b.wallet), financialInstrument: own(b.instrument) } },
      })),
    ],
  },
  updatePosition: { probes: () => positionSlot('itemData.position', (position) => ({ itemData: { position, comments: 'B was here' } })) },
  fetchPositions: {
    bulk: () =>
      filters([
        ['tenantOrganizationId', A.orgId],
        ['ownerOffchainId', a.wallet.offchainId],
        ['financialInstrumentOnchainId', a.instrument.onchainId],
        ['positionOnchainId', a.position.onchainId],
      ]),
  },
  freezePosition: {
    probes: () => [
      ...positionSlot('itemData.position', (position) => ({ itemData: { position } })),
      ...slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument, allPositions: true } })),
    ],
  },
  unfreezePosition: {
    probes: () => [
      ...positionSlot('itemData.position', (position) => ({ itemData: { position } })),
      ...slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({ itemData: { financialInstrument, allPositions: true } })),
    ],
  },
  mint: { probes: () => positionSlot('itemData.mintTo', (mintTo) => ({ itemData: { mintTo, value } })) },
  burn: { probes: () => positionSlot('itemData.burnFrom', (burnFrom) => ({ itemData: { burnFrom, value } })) },
  transferFinancialInstrument: {
    probes: () => [
      ...positionSlot('itemData.source', (source) => ({ itemData: { source, destination: ownPosition(), value } })),
      ...positionSlot('itemData.destination', (destination) => ({
        itemData: { source: ownPosition(), destination, value, initializeDestinationPositionIfNeeded: true },
      })),
    ],
  },
  trade: {
    probes: () => [
      ...positionSlot('itemData.operations[0].mint.mintTo', (mintTo) => ({ itemData: { operations: [{ mint: { mintTo, value } }] } })),
      ...positionSlot('itemData.operations[0].burn.burnFrom', (burnFrom) => ({ itemData: { operations: [{ burn: { burnFrom, value } }] } })),
      ...positionSlot('itemData.operations[1].transfer.source', (source) => ({
        itemData: { operations: [{ mint: { mintTo: ownPosition(), value } }, { transfer: { source, destination: ownPosition(), value } }] },
      })),
    ],
  },
  inactivatePosition: {
    probes: () =>
      positionSlot('itemData.positionToInactivate', (positionToInactivate) => ({ itemData: { positionToInactivate, burnRemainingTokenBalance: true } })),
  },
  fetchPositionDetails: { probes: () => positionSlot('itemData.position', (position) => ({ itemData: { position } })) },
  fetchPositionBalance: { probes: () => positionSlot('itemData.position', (position) => ({ itemData: { position } })) },
  fetchPositionHistory: { probes: () => positionSlot('itemData.position', (position) => ({ itemData: { position } })) },
  fetchTransactionStatus: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  fetchTransactionDetails: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  fetchTransactions: {
    bulk: () =>
      filters([
        ['offchainId', a.transaction.offchainId],
        ['onchainId', a.transaction.onchainId],
        ['offchainId', a.waiting],
        ['feePayer', a.authority.onchainId],
      ]),
  },
  signTransaction: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  submitTransaction: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  cancelTransaction: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  fetchWebhookDeliveries: { probes: () => transactionSlot((transaction) => ({ itemData: { transaction } })) },
  replayWebhookDelivery: { probes: () => [{ label: "A's post-submit event", body: { itemData: { eventId: a.eventId } }, field: 'itemData.eventId' }] },
  fetchApprovals: {
    bulk: () =>
      filters([
        ['transactionOffchainId', a.waiting],
        ['accountOffchainId', a.wallet.offchainId],
      ]),
  },
  approve: { probes: () => [{ label: "A's approval", body: { itemData: { approval: { offchainId: a.approval } } }, field: 'itemData.approval.offchainId' }] },
  reject: { probes: () => [{ label: "A's approval", body: { itemData: { approval: { offchainId: a.approval } } }, field: 'itemData.approval.offchainId' }] },
  fetchFile: { probes: () => [{ label: "A's instrument logo", url: `/api/v1/files/${a.fileId}`, field: 'fileId' }] },
  createAddressLookupTable: {
    probes: () => [
      ...slot(named(a.authority), 'itemData.authority', (authority) => ({
        itemData: { addressLookupTable: {}, authority, componentAddresses: [own(b.vault)] },
      })),
      ...slot(named(a.wallet), 'itemData.componentAddresses.0', (component) => ({
        itemData: { addressLookupTable: {}, authority: own(b.wallet), componentAddresses: [component] },
      })),
    ],
  },
  extendAddressLookupTable: {
    probes: () =>
      slot(named(a.table), 'itemData.addressLookupTable', (addressLookupTable) => ({ itemData: { addressLookupTable, componentAddresses: [own(b.vault)] } })),
  },
  updateAddressLookupTable: {
    probes: () => slot(named(a.table), 'itemData.addressLookupTable', (addressLookupTable) => ({ itemData: { addressLookupTable, deactivate: true } })),
  },
  fetchAddressLookupTables: {
    bulk: () =>
      filters([
        ['authorityOffchainId', a.authority.offchainId],
        ['authorityOnchainId', a.authority.onchainId],
        ['componentAddressOnchainId', a.wallet.onchainId],
      ]),
  },
  fetchAddressLookupTableDetails: {
    probes: () => slot(named(a.table), 'itemData.addressLookupTable', (addressLookupTable) => ({ itemData: { addressLookupTable } })),
  },
  createDurableNonceAccounts: {
    probes: () =>
      slot(named(a.authority), 'itemData.nonceAuthority', (nonceAuthority) => ({ itemData: { nonceAccount: {}, numberOfNonceAccounts: 1, nonceAuthority } })),
  },
  fetchDurableNonceAccounts: {
    bulk: () =>
      filters([
        ['nonceAccountOffchainId', a.nonce.offchainId],
        ['nonceAccountOnchainId', a.nonce.onchainId],
        ['nonceAuthorityOnchainId', a.authority.onchainId],
      ]),
  },
  fetchDurableNonceAccountDetails: { probes: () => slot(named(a.nonce), 'itemData.nonceAccount', (nonceAccount) => ({ itemData: { nonceAccount } })) },
  fetchMetrics: { namesNoObject: "the process's metrics, for ADMIN keys only", expect: 403 },
  createLoanStrategy: {
    probes: () => [
      ...slot(named(a.wallet), 'itemData.lender', (lender) => ({
        itemData: {
          strategy: {},
          lender,
          principal: { financialInstrument: own(b.instrument) },
          collateral: [{ financialInstrument: own(b.instrument), apy: [1], loanToValueRatio: 500_000, liquidationRatio: 800_000 }],
        },
      })),
      ...slot(named(a.instrument), 'itemData.principal.financialInstrument', (financialInstrument) => ({
        itemData: {
          strategy: {},
          lender: own(b.wallet),
          principal: { financialInstrument },
          collateral: [{ financialInstrument: own(b.instrument), apy: [1], loanToValueRatio: 500_000, liquidationRatio: 800_000 }],
        },
      })),
    ],
  },
  fetchLoanStrategies: {
    bulk: () =>
      filters([
        ['loanStrategyOffchainId', a.vault.offchainId],
        ['loanStrategyOnchainId', a.vault.onchainId],
        ['lenderOnchainId', a.wallet.onchainId],
      ]),
  },
  fetchLoans: {
    bulk: () =>
      filters([
        ['loanStrategyOnchainId', a.vault.onchainId],
        ['lenderOnchainId', a.wallet.onchainId],
        ['principalFinancialInstrumentOnchainId', a.instrument.onchainId],
      ]),
  },
  createLoan: {
    probes: () => [
      {
        label: "A's strategy as loanStrategyAddress",
        body: {
          itemData: {
            defiProtocol: 'LEDGER_ESCROW',
            protocolDetails: { loanStrategyAddress: a.vault.onchainId, expectedLoanValues: { expectedApy: 1, expectedLqt: [800_000] }, durationIndex: 0 },
            itemsToBorrow: [{ positionLookup: ownPosition(), value }],
            itemsToPledge: [{ positionLookup: ownPosition(), value }],
          },
          svmTransactionConfig: { feePayer: own(b.wallet) },
        },
        field: 'itemData.protocolDetails.loanStrategyAddress',
      },
    ],
  },
  fetchLoanDetails: { probes: () => slot(named(a.vault), 'itemData.escrow', (escrow) => ({ itemData: { escrow } })) },
  repayLoan: {
    probes: () =>
      slot(named(a.vault), 'itemData.escrow', (escrow) => ({
        itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, itemsToRepay: [{ positionLookup: ownPosition(), repayAll: true }] },
      })),
  },
  swapCollateral: {
    probes: () =>
      slot(named(a.vault), 'itemData.escrow', (escrow) => ({
        itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, itemsToDeposit: [{ positionLookup: ownPosition(), value }], itemsToWithdraw: [] },
      })),
  },
  refinanceLoan: {
    probes: () => slot(named(a.vault), 'itemData.escrow', (escrow) => ({ itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, durationIndex: 0 } })),
  },
  closeLoan: { probes: () => slot(named(a.vault), 'itemData.escrow', (escrow) => ({ itemData: { defiProtocol: 'LEDGER_ESCROW', escrow } })) },
  createOnchainDataSource: {
    probes: () => [
      ...slot(named(a.instrument), 'itemData.financialInstrument', (financialInstrument) => ({
        itemData: {
          defiProtocol: 'LEDGER_FEED',
          onchainDataSource: {},
          financialInstrument,
          onchainDataSourceAuthority: own(b.wallet),
          dataDetails: { kind: 'PRICE' },
          providerDetails: { kind: 'QUOTES', jobDefinition: FEED_JOB },
        },
      })),
      ...slot(named(a.authority), 'itemData.onchainDataSourceAuthority', (onchainDataSourceAuthority) => ({
        itemData: {
          defiProtocol: 'LEDGER_FEED',
          onchainDataSource: {},
          financialInstrument: own(b.instrument),
          onchainDataSourceAuthority,
          dataDetails: { kind: 'PRICE' },
          providerDetails: { kind: 'QUOTES', jobDefinition: FEED_JOB },
        },
      })),
    ],
  },
  fetchOracleDataSources: {
    bulk: () =>
      filters([
        ['onchainDataSourceOffchainId', a.feed.offchainId],
        ['onchainDataSourceOnchainId', a.feed.onchainId],
        ['financialInstrumentOffchainId', a.instrument.offchainId],
      ]),
  },
  fetchOnchainDataSourceDetails: {
    probes: () => slot(named(a.feed), 'itemData.onchainDataSource', (onchainDataSource) => ({ itemData: { onchainDataSource } })),
  },
  refreshOracleDataSource: { probes: () => slot(named(a.feed), 'itemData.onchainDataSource', (onchainDataSource) => ({ itemData: { onchainDataSource } })) },
  updateOracleDataSourceDefinition: {
    probes: () => slot(named(a.feed), 'itemData.onchainDataSource', (onchainDataSource) => ({ itemData: { onchainDataSource, refreshEverySeconds: 0 } })),
  },
};

// ---------------------------------------------------------------------------------------------
// Sending and judging

let sequence = 0;
const send = (method: string, url: string, body: unknown, apiKey = B.key) =>
  as(apiKey)(method, url, body, { 'x-request-id': `tenancy-${++sequence}-${randomBytes(3).toString('hex')}` });
const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);
const urlOf = (operationId: string, level = 'detailed') => operations.get(operationId)!.path.replace('{detailLevel}', level);

async function inBatches<T>(items: T[], each: (item: T) => Promise<string[]>): Promise<string[]> {
  const problems: string[] = [];
  for (let i = 0; i < items.length; i += BATCH) for (const found of await Promise.all(items.slice(i, i + BATCH).map(each))) problems.push(...found);
  return problems;
}

/** Every identifier of A's: none may show in an answer to B. */
const aIdentifiers = () => [
  ...new Set(
    [A.orgId, a.authority, a.wallet, a.instrument, a.position, a.nonce, a.table, a.transaction, a.feed, a.vault]
      .flatMap((r) => (typeof r === 'string' ? [r] : [r.onchainId, r.offchainId]))
      .concat(a.waiting, a.approval, a.fileId, a.eventId, ...[...references.values()].flatMap(Object.values)),
  ),
];

/** What A sees of its objects, records and chain state alike: equal before and after the sweep when nothing moved. */
async function stateOf(apiKey: string, objects: { accounts: Ref[]; instrument: Ref; position: Ref; table?: Ref; nonce?: Ref; transaction?: Ref }) {
  const call = as(apiKey);
  const read = async (path: string, body: unknown) => {
    const r = await call('POST', path, body);
    return { path, status: r.status, body: r.body };
  };
  return Promise.all([
    ...['accounts', 'financial-instruments', 'positions', 'transactions'].map((kind) => read(`/api/v1/${kind}/bulk/detailed`, { itemQuery: { limit: 1000 } })),
    ...['address-lookup-tables', 'durable-nonce-accounts', 'approvals'].map((kind) => read(`/api/v1/${kind}/bulk`, { itemQuery: { limit: 1000 } })),
    ...objects.accounts.map((account) => read('/api/v1/accounts/balance', { itemData: { account: own(account) } })),
    read('/api/v1/positions/balance', { itemData: { position: { position: own(objects.position) } } }),
    read('/api/v1/financial-instruments/circulating-supply', { itemData: { financialInstrument: own(objects.instrument) } }),
    ...(objects.table ? [read('/api/v1/address-lookup-tables/single', { itemData: { addressLookupTable: own(objects.table) } })] : []),
    ...(objects.nonce ? [read('/api/v1/durable-nonce-accounts/single', { itemData: { nonceAccount: own(objects.nonce) } })] : []),
    ...(objects.transaction ? [read('/api/v1/transactions/webhook-deliveries', { itemData: { transaction: own(objects.transaction) } })] : []),
  ]);
}
const stateOfA = () =>
  stateOf(A.key, {
    accounts: [a.authority, a.wallet],
    instrument: a.instrument,
    position: a.position,
    table: a.table,
    nonce: a.nonce,
    transaction: a.transaction,
  });
const stateOfB = () => stateOf(B.key, { accounts: [b.wallet, b.vault], instrument: b.instrument, position: b.position });

async function probe(operationId: string, p: Probe): Promise<string[]> {
  const op = operations.get(operationId)!;
  const r = await send(op.method, p.url ?? urlOf(operationId), p.body, p.apiKey);
  const error = r.body?.errors?.[0] ?? {};
  const want = { status: p.status ?? 404, code: p.code ?? 'NOT_FOUND', ...(p.field ? { field: p.field } : {}) };
  const got = { status: r.status, code: error.code, ...(p.field ? { field: error.field } : {}) };
  const text = JSON.stringify(r.body);
  const problems = JSON.stringify(got) === JSON.stringify(want) ? [] : [`expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
  // A refusal names what B sent, nothing more: no identifier of A's it did not name.
  const sent = JSON.stringify(p.body ?? p.url);
  const leaked = aIdentifiers().filter((id) => text.includes(id) && !sent.includes(id));
  if (leaked.length) problems.push(`the answer holds A's ${leaked.join(', ')}`);
  return problems.length
    ? [
        `${operationId} ${p.label}\n  request: ${op.method} ${p.url ?? urlOf(operationId)} ${clip(sent)}\n  answer:  ${r.status} ${clip(text)}\n  wrong:   ${problems.join('; ')}`,
      ]
    : [];
}

// ---------------------------------------------------------------------------------------------

describe('Another tenant, on every route', () => {
  let before: Awaited<ReturnType<typeof stateOfA>>;
  let beforeB: Awaited<ReturnType<typeof stateOfB>>;
  let webhookCallsBefore: number;

  beforeAll(async () => {
    // A's own writes' post-submit deliveries (their own workflows) are over: the receiver stays quiet.
    for (let last = -1, deadline = Date.now() + 15_000; last !== webhookCalls && Date.now() < deadline;) {
      last = webhookCalls;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // The chain follower moves every landed record on to FINALIZED (docs/finality.md): the "before" is
    // read once it has, so that move is not taken for one of B's.
    stack.node.advanceSlots(40);
    await waitFor(async () => {
      const [row] = await stack.runtime.orm.em
        .fork()
        .getConnection()
        .execute<{ n: number }[]>(`select count(*)::int as n from ledger_transaction where status in ('SUBMITTED', 'CONFIRMED') and success is true`);
      return row.n === 0;
    }, 60_000);
    [before, beforeB] = await Promise.all([stateOfA(), stateOfB()]);
    webhookCallsBefore = webhookCalls;
  });

  it('has a row for every authenticated operation of the OpenAPI document, and no row for an operation it does not have', () => {
    expect(Object.keys(table).sort()).toEqual([...operations.keys()].sort());
  });

  it("shares none of A's objects: the sharing rules (custody-policy.test.ts) play no part here", () => {
    const [accounts, instruments] = ['/api/v1/accounts/bulk/detailed', '/api/v1/financial-instruments/bulk/detailed'].map(
      (path) => before.find((r) => r.path === path)!.body.items,
    );
    expect(accounts.length).toBeGreaterThanOrEqual(4);
    for (const account of accounts)
      expect(account).toMatchObject({ sharedAcrossTenants: false, orgsAllowedToSignWithPrivateKey: [], globalFeePayerForOrgs: [] });
    expect(instruments).toEqual([expect.objectContaining({ sharedAcrossTenants: false })]);
  });

  it("answers 404 NOT_FOUND naming the slot wherever B names one of A's objects, as for an object that does not exist", async () => {
    const cases = Object.entries(table).flatMap(([operationId, row]) => ('probes' in row ? row.probes().map((p) => [operationId, p] as const) : []));
    expect(cases.length).toBeGreaterThan(150);
    expect(await inBatches(cases, ([operationId, p]) => probe(operationId, p))).toEqual([]);
  }, 180_000);

  it("lists none of A's objects in B's bulk reads, unfiltered or filtered by A's identifiers, at every detail level", async () => {
    const reads = Object.entries(table).flatMap(([operationId, row]) => {
      if (!('bulk' in row)) return [];
      const levels = operations.get(operationId)!.path.includes('{detailLevel}') ? ['identifiers', 'compact', 'detailed'] : ['detailed'];
      const queries: [string, unknown][] = [
        ['unfiltered', {}],
        ...row
          .bulk()
          .map((f): [string, unknown] => [
            `${f.fieldName} = A's`,
            { itemQuery: { filter: [{ fieldName: f.fieldName, filterValues: [{ filterType: 'EQUALS', valueString: f.valueString }] }] } },
          ]),
      ];
      return levels.flatMap((level) => queries.map(([label, body]) => ({ operationId, level, label, body, filtered: label !== 'unfiltered' })));
    });
    const problems = await inBatches(reads, async ({ operationId, level, label, body, filtered }) => {
      const r = await send('POST', urlOf(operationId, level), body);
      const text = JSON.stringify(r.body);
      const leaked = aIdentifiers().filter((id) => text.includes(id));
      const wrong = [
        ...(r.status === 200 ? [] : [`status ${r.status}`]),
        ...(filtered && r.body?.count !== 0 ? [`count ${r.body?.count}`] : []),
        ...(leaked.length ? [`A's ${leaked.join(', ')}`] : []),
      ];
      return wrong.length ? [`${operationId} ${level} ${label}: ${wrong.join('; ')}\n  answer: ${clip(text)}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('refuses an override naming A with 403 FORBIDDEN on every route that takes tenancyConfig (B has no ADMIN)', async () => {
    const cases = [...operations.entries()]
      .filter(([, op]) => op.tenancyConfig)
      .map(([operationId]) => {
        const row = table[operationId];
        const body = 'probes' in row ? (row.probes()[0].body as object) : {};
        return {
          operationId,
          label: 'tenancyConfig naming A',
          body: { ...body, tenancyConfig: { overrideOrganizationExternalId: A.org } },
          status: 403,
          code: 'FORBIDDEN',
          field: 'tenancyConfig.overrideOrganizationExternalId',
        };
      });
    expect(cases.length).toBeGreaterThan(40);
    expect(await inBatches(cases, (c) => probe(c.operationId, c))).toEqual([]);
  });

  it("refuses B's ADMIN key an override with 403 FORBIDDEN on every route that takes tenancyConfig (B is not the operators' organization), naming A or an organization that does not exist alike", async () => {
    const nobody = `nobody-${randomBytes(4).toString('hex')}`;
    const cases = [...operations.entries()]
      .filter(([, op]) => op.tenancyConfig)
      .flatMap(([operationId]) => {
        const row = table[operationId];
        const body = 'probes' in row ? (row.probes()[0].body as object) : {};
        return [A.org, nobody].map((target) => ({
          operationId,
          label: `B's ADMIN key, tenancyConfig naming ${target === A.org ? 'A' : 'no organization'}`,
          apiKey: B.admin,
          body: { ...body, tenancyConfig: { overrideOrganizationExternalId: target } },
          status: 403,
          code: 'FORBIDDEN',
          field: 'tenancyConfig.overrideOrganizationExternalId',
        }));
      });
    expect(cases.length).toBeGreaterThan(80);
    expect(await inBatches(cases, (c) => probe(c.operationId, c))).toEqual([]);
  });

  it('answers the routes that name no object as it answers any tenant', async () => {
    const cases = Object.entries(table).flatMap(([operationId, row]) => ('namesNoObject' in row ? [{ operationId, expect: row.expect }] : []));
    for (const { operationId, expect: status } of cases) {
      const op = operations.get(operationId)!;
      const r = await send(op.method, op.path, op.method === 'GET' ? undefined : { extensions: ['PAUSABLE'] });
      expect({ operationId, status: r.status }).toEqual({ operationId, status });
    }
  });

  it("moved nothing: A's records, balances, chain state, approval and webhook log are unchanged, its webhooks were not called, and B has no record of its refused writes", async () => {
    const [after, afterB] = await Promise.all([stateOfA(), stateOfB()]);
    expect(after).toEqual(before);
    expect(afterB).toEqual(beforeB);
    expect(webhookCalls).toBe(webhookCallsBefore);
    // A's approval is still pending, and A's balances are what A put there.
    const approvals = after.find((r) => r.path === '/api/v1/approvals/bulk')!.body;
    expect(approvals.items).toEqual([expect.objectContaining({ offchainId: a.approval, status: 'PENDING', decisions: [] })]);
    const wallet = after.find((r) => r.path === '/api/v1/accounts/balance' && r.body.account.offchain.id === a.wallet.offchainId)!.body;
    expect(wallet.onchain.balance.lamports).toBe(0.1 * LAMPORTS);
    expect(after.find((r) => r.path === '/api/v1/positions/balance')!.body.onchain.balance.lamports).toBe(1000);
  });
});

describe("Another tenant's write that touches A's address", () => {
  it("moves A's record with the chain but names none of B's records in it: A's last transaction stays one A can fetch", async () => {
    const walletOf = async () => (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: own(a.wallet) } })).body;
    const before = await walletOf();
    // B onboards A's (public) address as a non-managed account of its own and pays it.
    const payee = await created(B.key, '/api/v1/accounts', { managed: false, alreadyOnchain: true, onchainId: a.wallet.onchainId }, 'newAccount');
    expect(payee.offchainId).not.toBe(a.wallet.offchainId);
    const paid = await as(B.key)('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: own(b.wallet), destination: own(payee), value: { lamports: '1000' } },
    });
    expect(paid.body).toMatchObject({ success: true });

    const after = await walletOf();
    expect(after.offchain.balance.lamports).toBe(before.offchain.balance.lamports + 1000);
    expect(after.onchain.lastTransactionId).toBe(paid.body.onchainId);
    // B's transaction record is not A's to see: A's record keeps naming A's own last transaction.
    expect(after.offchain.lastTransactionId).toBe(before.offchain.lastTransactionId);
    const status = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: after.offchain.lastTransactionId } } });
    expect(status.status).toBe(200);
    // B's record of the address moved too, and B's transaction lists it (and none of A's).
    const details = await as(B.key)('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: paid.body.offchainId } } });
    expect(JSON.stringify(details.body)).not.toContain(a.wallet.offchainId);
    expect((await as(B.key)('POST', '/api/v1/accounts/single', { itemData: { account: own(payee) } })).body.offchain.lastTransactionId).toBe(
      paid.body.offchainId,
    );
  });
});
