/**
 * Oracle data sources (LEDGER_FEED) on the real stack, with a price source served by this test on
 * 127.0.0.1: the value the job computes lands in the feed mint's metadata (read back from the local
 * node with the Token-2022 client alone), an Update writes the new feedHash at once and the value
 * at the next refresh, a failing source keeps the last value and says why, a RATING source,
 * scheduled refreshes at their cadence that stop when paused, the bulk filters, and the price port
 * loans read.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { createSolanaRpc } from '@solana/kit';
import { Client, Connection } from '@temporalio/client';
import { parse } from 'lossless-json';
import { Organization } from '../../src/db/entities';
import { createOraclePriceSource } from '../../src/activities/oracle/oracle-prices';
import { readOnchainFeed } from '../../src/network/feed-reader';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
let authority: Ref;
let instrument: Ref;

/** The price source: each path answers its JSON body, or the status it is told to fail with; every request counted. */
const source = { bodies: new Map<string, string>(), failing: new Map<string, number>(), hits: new Map<string, number>() };
let server: http.Server;
/** Runs once after the next sign, then throws there (as a worker dying after it signed). */
let afterSign: (() => void) | null = null;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    source.hits.set(path, (source.hits.get(path) ?? 0) + 1);
    const failing = source.failing.get(path);
    const body = source.bodies.get(path);
    if (failing || body === undefined) {
      res.writeHead(failing ?? 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A hook after sign: the crash test makes the worker fail there once (the step's activity is retried from lookup).
  stack = await startStack({
    wrapSteps: (steps) => ({
      ...steps,
      sign: async (...args) => {
        const signed = await steps.sign(...args);
        const crash = afterSign;
        afterSign = null;
        crash?.();
        return signed;
      },
    }),
  });
  rpc = createSolanaRpc(stack.node.url);
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  instrument = await newInstrument();
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function newInstrument(): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  expect(created.status).toBe(201);
  return created.body.newFinancialInstrument;
}

const priceJob = (path: string, jsonPath = '$.data.usd') =>
  JSON.stringify({ tasks: [{ httpTask: { url: `${base}${path}` } }, { jsonParseTask: { path: jsonPath } }] });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const create = (jobDefinition: string, extra: Record<string, unknown> = {}, dataDetails: Record<string, unknown> = { kind: 'PRICE' }, on: Ref = instrument) =>
  stack.call('POST', '/api/v1/market-data/onchain-data-source', {
    itemData: {
      defiProtocol: 'LEDGER_FEED',
      onchainDataSource: { offchainReferences: { code: 'FEED' } },
      financialInstrument: { offchainId: on.offchainId },
      onchainDataSourceAuthority: { offchainId: authority.offchainId },
      dataDetails,
      providerDetails: { kind: 'QUOTES', jobDefinition },
      ...extra,
    },
  });
const update = (feed: Ref, patch: Record<string, unknown>) =>
  stack.call('PATCH', '/api/v1/market-data/onchain-data-source', { itemData: { onchainDataSource: { offchainId: feed.offchainId }, ...patch } });
const refresh = (feed: Ref) =>
  stack.call('PATCH', '/api/v1/market-data/onchain-data-source/refresh', { itemData: { onchainDataSource: { onchainId: feed.onchainId } } });
const bulk = (itemQuery: Record<string, unknown>) => stack.call('POST', '/api/v1/market-data/onchain-data-source/bulk', { itemQuery });
const where = (fieldName: string, value: Record<string, unknown>) => ({ fieldName, operator: 'AND', filterValues: [{ filterType: 'EQUALS', ...value }] });

/** Fetch Onchain Data Source Details, parsed losslessly: every number is kept as its exact text. */
async function details(feed: Ref): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.api.url}/api/v1/market-data/onchain-data-source/single`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
    body: JSON.stringify({ itemData: { onchainDataSource: { offchainId: feed.offchainId } } }),
  });
  const body = parse(await response.text(), undefined, (value) => value) as any;
  return { status: response.status, body };
}

const onchain = async (feed: Ref) => (await readOnchainFeed(rpc, feed.onchainId))!;
const allRefreshes = async () =>
  (
    await stack.call('POST', '/api/v1/transactions/bulk/detailed', {
      itemQuery: { limit: 1000, filter: [where('operation', { dataType: 'TEXT', valueString: 'REFRESH_ORACLE_DATA_SOURCE' })] },
    })
  ).body.items;
/** The refresh transactions that wrote to this feed. */
const refreshes = async (feed: Ref) => (await allRefreshes()).filter((t: any) => JSON.stringify(t).includes(feed.offchainId));

let feed: Ref;
let firstJob: string;

it("creates a PRICE feed whose first value, computed by the job in the same write, is in the mint's metadata with every digit", async () => {
  source.bodies.set('/sol', '{"data":{"usd":123.456789012345678901}}');
  firstJob = priceJob('/sol');
  const created = await create(firstJob);
  expect({ status: created.status, errors: created.body.errors }).toEqual({ status: 201, errors: undefined });
  expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });
  feed = created.body.newOnchainDataSource;

  const read = await onchain(feed);
  expect(read).toMatchObject({
    kind: 'PRICE',
    value: '123.456789012345678901',
    decimals: 18,
    feedHash: sha256(firstJob),
    ratingProvider: null,
    updateAuthority: authority.onchainId,
  });
  expect(BigInt(read.slot)).toBeGreaterThan(0n);

  const record = await details(feed);
  expect(record.status).toBe(200);
  expect(record.body).toMatchObject({
    defiProtocol: 'LEDGER_FEED',
    onchainDataSource: { onchain: { id: feed.onchainId }, offchain: { id: feed.offchainId, code: 'FEED' } },
    financialInstrument: { onchain: { id: instrument.onchainId }, offchain: { id: instrument.offchainId } },
    onchainDataSourceAuthority: { onchain: { id: authority.onchainId }, offchain: { id: authority.offchainId }, managed: true },
    dataDetails: { kind: 'PRICE', ratingProvider: null },
    providerDetails: { kind: 'QUOTES', jobDefinition: firstJob },
    feedHash: sha256(firstJob),
    refreshEverySeconds: null,
    lastRefreshFailure: null,
  });
  expect(String(record.body.latestValue.value)).toBe('123.456789012345678901');
  expect(record.body.latestValue.updatedAt).toBe(read.updatedAt);
  expect(String(record.body.latestValue.slot)).toBe(read.slot);
});

it('Update (patch) writes the new feedHash at once and keeps the rest; the value changes at the next refresh', async () => {
  source.bodies.set('/sol', '{"data":{"usd":"150.25","eur":"140.5"}}');
  const before = await onchain(feed);
  const nextJob = priceJob('/sol', '$.data.eur');
  const updated = await update(feed, { providerDetails: { jobDefinition: nextJob } });
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ updatedOnchainDataSource: feed, svmTransaction: { success: true } });

  const after = await onchain(feed);
  expect(after).toMatchObject({ feedHash: sha256(nextJob), value: before.value, updatedAt: before.updatedAt, kind: 'PRICE' });
  const record = (await details(feed)).body;
  expect(record).toMatchObject({
    providerDetails: { kind: 'QUOTES', jobDefinition: nextJob },
    feedHash: sha256(nextJob),
    dataDetails: { kind: 'PRICE' },
    onchainDataSourceAuthority: { onchain: { id: authority.onchainId } },
  });

  const refreshed = await refresh(feed);
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.svmTransaction).toMatchObject({ success: true });
  expect(refreshed.body.latestValue).toMatchObject({ value: 140.5 });
  expect(await onchain(feed)).toMatchObject({ value: '140.5', decimals: 1, feedHash: sha256(nextJob) });
});

it('a failing source keeps the last value onchain and says why; the next good refresh clears the failure', async () => {
  const last = await onchain(feed);
  source.failing.set('/sol', 503);
  const failed = await refresh(feed);
  expect(failed.status).toBe(502);
  expect(failed.body.errors[0]).toMatchObject({ code: 'NETWORK_ERROR', message: expect.stringContaining('HTTP 503') });
  expect(await onchain(feed)).toEqual(last);
  const record = (await details(feed)).body;
  expect(record.lastRefreshFailure.reason).toContain('HTTP 503');
  expect(String(record.latestValue.value)).toBe(last.value);
  // Refused before anything was built: no transaction of it, and none landed.
  expect((await allRefreshes()).filter((t: any) => t.errorMessage?.includes('HTTP 503'))).toEqual([]);

  source.failing.delete('/sol');
  source.bodies.set('/sol', '{"data":{"eur":"141"}}');
  expect((await refresh(feed)).status).toBe(200);
  const cleared = (await details(feed)).body;
  expect(cleared.lastRefreshFailure).toBeNull();
  expect(String(cleared.latestValue.value)).toBe('141');
});

it('a write replayed after it signed sends the value it recorded, once, even when the source has moved on', async () => {
  source.bodies.set('/sol', '{"data":{"eur":"200"}}');
  const before = (await refreshes(feed)).length;
  afterSign = () => {
    source.bodies.set('/sol', '{"data":{"eur":"999"}}');
    throw new Error('worker lost after sign');
  };
  const refreshed = await refresh(feed);
  expect(refreshed.status).toBe(200);
  expect(afterSign).toBeNull();
  expect(refreshed.body.latestValue).toMatchObject({ value: 200 });
  expect((await onchain(feed)).value).toBe('200');
  expect((await refreshes(feed)).length).toBe(before + 1);
});

it('Update hands the feed to a new authority (metadata, pointer, mint) and relinks the instrument; the next refresh is signed by the new one', async () => {
  const next: Ref = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  const other = await newInstrument();
  const moved = await update(feed, { onchainDataSourceAuthority: { offchainId: next.offchainId }, financialInstrument: { offchainId: other.offchainId } });
  expect(moved.status).toBe(200);
  expect(moved.body.svmTransaction).toMatchObject({ success: true });
  expect((await onchain(feed)).updateAuthority).toBe(next.onchainId);
  expect((await details(feed)).body).toMatchObject({
    onchainDataSourceAuthority: { onchain: { id: next.onchainId }, offchain: { id: next.offchainId } },
    financialInstrument: { offchain: { id: other.offchainId } },
  });
  source.bodies.set('/sol', '{"data":{"eur":"201"}}');
  expect((await refresh(feed)).status).toBe(200);
  expect((await onchain(feed)).value).toBe('201');
  // Back as it was, for the tests after this one.
  expect(
    (await update(feed, { onchainDataSourceAuthority: { offchainId: authority.offchainId }, financialInstrument: { offchainId: instrument.offchainId } }))
      .status,
  ).toBe(200);
  expect((await onchain(feed)).updateAuthority).toBe(authority.onchainId);
});

it('a boundTask out of range is a failure too: the value stays', async () => {
  source.bodies.set('/bounded', '{"data":{"usd":"5000"}}');
  const job = JSON.stringify({
    tasks: [
      { httpTask: { url: `${base}/bounded` } },
      { jsonParseTask: { path: '$.data.usd' } },
      { boundTask: { lowerBoundValue: '1', upperBoundValue: '10000' } },
    ],
  });
  const created = await create(job);
  expect(created.status).toBe(201);
  const bounded = created.body.newOnchainDataSource;
  source.bodies.set('/bounded', '{"data":{"usd":"50000"}}');
  expect((await refresh(bounded)).status).toBe(502);
  expect((await onchain(bounded)).value).toBe('5000');
  expect((await details(bounded)).body.lastRefreshFailure.reason).toContain('upper bound');
});

it('a RATING source carries its provider onchain; a RATING without one, or a PRICE with one, is 400', async () => {
  const job = JSON.stringify({ tasks: [{ valueTask: { big: '7' } }] });
  const created = await create(job, {}, { kind: 'RATING', ratingProvider: 'MOODYS' });
  expect(created.status).toBe(201);
  const rating = created.body.newOnchainDataSource;
  expect(await onchain(rating)).toMatchObject({ kind: 'RATING', ratingProvider: 'MOODYS', value: '7', decimals: 0, feedHash: sha256(job) });
  expect((await details(rating)).body.dataDetails).toEqual({ kind: 'RATING', ratingProvider: 'MOODYS' });

  expect((await create(job, {}, { kind: 'RATING' })).body.errors[0].field).toBe('itemData.dataDetails.ratingProvider');
  expect((await create(job, {}, { kind: 'PRICE', ratingProvider: 'MOODYS' })).body.errors[0].field).toBe('itemData.dataDetails.ratingProvider');

  // The bulk filters of spec 4.1: dataType, ratingAgency, the instrument; the default sort puts PRICE first.
  const ratings = await bulk({ filter: [where('dataType', { dataType: 'TEXT', valueString: 'RATING' })] });
  expect(ratings.body.items.map((s: any) => s.onchainDataSource.offchain.id)).toEqual([rating.offchainId]);
  const byAgency = await bulk({ filter: [where('ratingAgency', { dataType: 'TEXT', valueString: 'MOODYS' })] });
  expect(byAgency.body.count).toBe(1);
  const all = await bulk({ filter: [where('financialInstrumentOffchainId', { dataType: 'OFFCHAIN_ID', valueString: instrument.offchainId })] });
  expect(all.body.count).toBe(3);
  expect(all.body.items.at(-1).dataDetails.kind).toBe('RATING');
  const byAddress = await bulk({ filter: [where('onchainDataSourceOnchainId', { dataType: 'ADDRESS_ONCHAIN_ID', valueString: feed.onchainId })] });
  expect(byAddress.body.items.map((s: any) => s.onchainDataSource.onchain.id)).toEqual([feed.onchainId]);
  // Every field of spec 4.1 filters: each finds the RATING source by its own value.
  const fields: [string, string, string][] = [
    ['defiProtocol', 'TEXT', 'LEDGER_FEED'],
    ['dataType', 'TEXT', 'RATING'],
    ['ratingAgency', 'TEXT', 'MOODYS'],
    ['onchainDataSourceOffchainId', 'OFFCHAIN_ID', rating.offchainId],
    ['financialInstrumentOffchainId', 'OFFCHAIN_ID', instrument.offchainId],
    ['onchainDataSourceAuthorityOffchainId', 'OFFCHAIN_ID', authority.offchainId],
    ['onchainDataSourceOnchainId', 'ADDRESS_ONCHAIN_ID', rating.onchainId],
    ['financialInstrumentOnchainId', 'ADDRESS_ONCHAIN_ID', instrument.onchainId],
    ['onchainDataSourceAuthorityOnchainId', 'ADDRESS_ONCHAIN_ID', authority.onchainId],
  ];
  for (const [fieldName, dataType, valueString] of fields) {
    const found = await bulk({ filter: [where(fieldName, { dataType, valueString })], sort: [{ fieldName, sortDirection: 'DESC' }] });
    expect({ fieldName, status: found.status, ids: found.body.items?.map((x: any) => x.onchainDataSource.offchain.id) }).toEqual({
      fieldName,
      status: 200,
      ids: expect.arrayContaining([rating.offchainId]),
    });
  }
  const none = await bulk({ filter: [{ fieldName: 'ratingAgency', filterValues: [{ filterType: 'IS_NULL' }] }] });
  expect(none.body.items.every((x: any) => x.dataDetails.kind === 'PRICE')).toBe(true);
  const byAuthority = await bulk({
    filter: [where('onchainDataSourceAuthorityOnchainId', { dataType: 'ADDRESS_ONCHAIN_ID', valueString: authority.onchainId })],
    sort: [{ fieldName: 'dataType', sortDirection: 'DESC' }],
  });
  expect(byAuthority.body.items[0].dataDetails.kind).toBe('RATING');
});

it('refuses a job naming a host not allowed or a task outside the subset, before anything is written', async () => {
  const count = (await bulk({})).body.count;
  const evil = await create(JSON.stringify({ tasks: [{ httpTask: { url: 'https://evil.example/price' } }, { jsonParseTask: { path: '$.p' } }] }));
  expect(evil.status).toBe(400);
  expect(evil.body.errors[0]).toMatchObject({
    code: 'VALIDATION_ERROR',
    field: 'itemData.providerDetails.jobDefinition.tasks[0].httpTask.url',
    message: expect.stringContaining('evil.example'),
  });
  const unsupported = await create(JSON.stringify({ tasks: [{ valueTask: { big: '1' } }, { twapTask: {} }] }));
  expect(unsupported.body.errors[0]).toMatchObject({ field: 'itemData.providerDetails.jobDefinition.tasks[1]', message: expect.stringContaining('twapTask') });
  const badUpdate = await update(feed, { providerDetails: { jobDefinition: '{"tasks": [{"httpTask": {"url": "https://evil.example/x"}}]}' } });
  expect(badUpdate.status).toBe(400);
  expect((await bulk({})).body.count).toBe(count);
  expect((await details(feed)).body.feedHash).toBe((await onchain(feed)).feedHash);
  expect((await details({ onchainId: feed.onchainId, offchainId: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
});

it('the price port answers the newest PRICE feed of the instrument, and nothing for an instrument without one', async () => {
  const organization = await stack.runtime.orm.em.fork().findOneOrFail(Organization, { externalId: stack.organizationExternalId });
  const prices = createOraclePriceSource(stack.runtime.orm);
  const priced = await newInstrument();
  const value = (v: string) => JSON.stringify({ tasks: [{ valueTask: { big: v } }] });
  expect((await create(value('1.5'), {}, { kind: 'PRICE' }, priced)).status).toBe(201);
  const newest: Ref = (await create(value('2.25'), {}, { kind: 'PRICE' }, priced)).body.newOnchainDataSource;
  expect((await create(value('9'), {}, { kind: 'RATING', ratingProvider: 'MOODYS' }, priced)).status).toBe(201);
  const price = await prices.priceOf(organization.id, priced.offchainId);
  const read = await onchain(newest);
  expect(price).toEqual({ value: '2.25', updatedAt: read.updatedAt, slot: read.slot, dataSource: newest });
  expect(await prices.priceOf(organization.id, (await newInstrument()).offchainId)).toBeNull();
});

it('refreshes on its schedule at the cadence, and stops when refreshEverySeconds is set to 0', async () => {
  let tick = 0;
  source.bodies.set('/ticking', '{"data":{"usd":"1"}}');
  const ticking = priceJob('/ticking');
  const created = await create(ticking, { refreshEverySeconds: 5 });
  expect(created.status).toBe(201);
  const scheduled = created.body.newOnchainDataSource;
  expect(String((await details(scheduled)).body.refreshEverySeconds)).toBe('5');
  const interval = setInterval(() => source.bodies.set('/ticking', `{"data":{"usd":"${++tick}.5"}}`), 1000);
  try {
    const startedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 17_000));
    const landed = (await refreshes(scheduled)).filter((t: any) => t.status === 'CONFIRMED' || t.status === 'FINALIZED');
    // Every 5 s for 17 s: three runs, give or take one at each end.
    expect(landed.length).toBeGreaterThanOrEqual(2);
    expect(landed.length).toBeLessThanOrEqual(4);
    // The schedule's writes are named by the organization's external id, not its internal one.
    for (const t of landed)
      expect(t.workflowId).toMatch(new RegExp(`^refresh_oracle_data_source-${stack.organizationExternalId.replace(/-/g, '_')}-scheduled-`));
    const value = await onchain(scheduled);
    expect(Date.parse(value.updatedAt)).toBeGreaterThan(startedAt);
    expect(value.value).toMatch(/^\d+\.5$/);

    const paused = await update(scheduled, { refreshEverySeconds: 0 });
    expect(paused.status).toBe(200);
    expect(paused.body.svmTransaction).toBeNull();
    expect((await details(scheduled)).body.refreshEverySeconds).toBeNull();
    const connection = await Connection.connect({ address: stack.config.temporal.address! });
    try {
      const handle = new Client({ connection, namespace: stack.config.temporal.namespace }).schedule.getHandle(`oracle-refresh-${scheduled.offchainId}`);
      expect((await handle.describe()).state.paused).toBe(true);
      // A refresh the schedule started before the pause may still be running: counted once it is over.
      await waitFor(async () => (await handle.describe()).info.runningActions.length === 0, 60_000);
    } finally {
      await connection.close();
    }
    const settled = (await refreshes(scheduled)).length;
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect((await refreshes(scheduled)).length).toBe(settled);
  } finally {
    clearInterval(interval);
  }
}, 60_000);
