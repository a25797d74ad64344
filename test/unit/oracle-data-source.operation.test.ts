import { address } from '@solana/kit';
import { parseOracleHosts } from '../../src/config/config';
import { createHttpGet } from '../../src/activities/oracle/http-source';
import { JobFailure } from '../../src/domain/oracle-job';
import {
  changedFields,
  createdDataSourceFields,
  dataSourcePatch,
  feedAccountFields,
  feedFields,
  feedTopUp,
  newAuthorityOf,
  patchedDataSourceFields,
  planCreateFeed,
  planFeedWrite,
  readFeed,
  refreshedDataSourceFields,
  requireNewFeedAccount,
  validateCreateOnchainDataSource,
  validateUpdateOracleDataSource,
  type CreatedFeed,
} from '../../src/domain/operations/oracle-data-sources/oracle-data-source.rules';
import { feedHash } from '../../src/domain/oracle-job';
import type {
  CreateOnchainDataSourceItemData,
  UpdateOracleDataSourceItemData,
} from '../../src/domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { refusal } from '../support/expectations';

const FEED = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const AUTHORITY = '4fo5ahGxbJqR4jDHWfdLZSQNDKGYUhBFTqjQL4GurEmJ';
const PAYER = 'So11111111111111111111111111111111111111112';
const definition = { kind: 'PRICE', ratingProvider: null, feedHash: 'ab'.repeat(32) };
const value = { value: '123.456', decimals: 3, updatedAt: '2026-11-26T00:00:00.000Z', slot: '4821337' };

describe('the feed fields', () => {
  it('a feed written with feedFields reads back the same with readFeed (what any client does)', () => {
    const fields = feedFields(definition, value);
    expect(fields).toEqual({
      kind: 'PRICE',
      value: '123.456',
      decimals: '3',
      updatedAt: value.updatedAt,
      slot: '4821337',
      feedHash: definition.feedHash,
      ratingProvider: '',
    });
    expect(readFeed(fields)).toEqual({ ...definition, ...value });
    expect(readFeed({ name: 'not a feed' })).toBeNull();
  });

  it('a refresh writes only the fields that changed; a longer value tops up the rent, a shorter one does not', () => {
    const chain = {
      extensions: ['METADATA_POINTER', 'TOKEN_METADATA'] as const,
      metadata: { name: 'X PRICE', symbol: 'FEED', uri: '', additional: feedFields(definition, value) },
      lamports: 10_000_000n,
    };
    const changed = changedFields({ ...chain, extensions: [...chain.extensions] }, { value: '123.456', updatedAt: '2026-11-26T00:00:05.000Z' });
    expect(changed).toEqual([{ kind: 'Key', key: 'updatedAt', value: '2026-11-26T00:00:05.000Z' }]);
    const exact = { ...chain, extensions: [...chain.extensions], lamports: 0n };
    expect(BigInt(feedTopUp(exact, [{ kind: 'Key', key: 'value', value: '123456789.123456789' }]))).toBeGreaterThan(
      BigInt(feedTopUp(exact, [{ kind: 'Key', key: 'value', value: '1' }])),
    );
    expect(feedTopUp({ ...chain, extensions: [...chain.extensions], lamports: 10n ** 12n }, changed)).toBe('0');
  });

  it('creates the mint with its pointer, metadata and every field, signed by the authority; a write rotates the authority last', () => {
    const created = planCreateFeed({ feePayer: PAYER, mint: FEED, authority: AUTHORITY, name: 'X PRICE', fields: feedFields(definition, value) });
    // create account, metadata pointer, initialize mint, initialize metadata, then one field each.
    expect(created.length).toBe(4 + 7);
    expect(created.every((i) => i.accounts?.every((a) => typeof a.address === 'string'))).toBe(true);
    const write = planFeedWrite({
      feePayer: PAYER,
      mint: FEED,
      authority: AUTHORITY,
      extensions: ['METADATA_POINTER', 'TOKEN_METADATA'],
      topUp: '0',
      fields: [{ kind: 'Key', key: 'feedHash', value: 'cd'.repeat(32) }],
      newAuthority: { address: PAYER, accountId: null },
    });
    // the field (signed by the current authority), then the metadata update authority, the pointer's and the mint authority.
    expect(write).toHaveLength(4);
    expect(write[0].accounts?.some((a) => a.address === address(AUTHORITY))).toBe(true);
  });
});

describe('the rules on a request alone', () => {
  const create = (change: Partial<CreateOnchainDataSourceItemData>) =>
    ({
      defiProtocol: 'LEDGER_FEED',
      onchainDataSource: {},
      financialInstrument: {},
      onchainDataSourceAuthority: {},
      dataDetails: { kind: 'PRICE' },
      providerDetails: { kind: 'QUOTES', jobDefinition: '{}' },
      ...change,
    }) as CreateOnchainDataSourceItemData;

  it('RATING needs its provider, a PRICE has none, a cadence is 0 or at least 5 s', () => {
    expect(refusal(() => validateCreateOnchainDataSource(create({ dataDetails: { kind: 'RATING' } }))).field).toBe('itemData.dataDetails.ratingProvider');
    expect(refusal(() => validateCreateOnchainDataSource(create({ dataDetails: { kind: 'PRICE', ratingProvider: 'X' } }))).field).toBe(
      'itemData.dataDetails.ratingProvider',
    );
    expect(refusal(() => validateCreateOnchainDataSource(create({ refreshEverySeconds: 4 }))).field).toBe('itemData.refreshEverySeconds');
    expect(() => validateCreateOnchainDataSource(create({ refreshEverySeconds: 0, dataDetails: { kind: 'RATING', ratingProvider: 'MOODYS' } }))).not.toThrow();
  });

  it('an update changes something', () => {
    expect(refusal(() => validateUpdateOracleDataSource({ onchainDataSource: { offchainId: 'x' } } as UpdateOracleDataSourceItemData)).field).toBe('itemData');
    expect(() =>
      validateUpdateOracleDataSource({ onchainDataSource: { offchainId: 'x' }, refreshEverySeconds: 0 } as UpdateOracleDataSourceItemData),
    ).not.toThrow();
  });
});

describe('the rules on looked-up state, and the records', () => {
  const item = {
    defiProtocol: 'LEDGER_FEED',
    onchainDataSource: { offchainReferences: { code: 'BOND-42-PRICE', name: 'Bond 42 price' }, comments: 'c' },
    financialInstrument: {},
    onchainDataSourceAuthority: {},
    dataDetails: { kind: 'PRICE' },
    providerDetails: { kind: 'QUOTES', jobDefinition: '{}' },
    refreshEverySeconds: 0,
  } as CreateOnchainDataSourceItemData;
  const feed: CreatedFeed = {
    dataSourceId: 'ds',
    mintAccountId: 'acc',
    mint: FEED,
    name: 'Bond 42 price',
    authority: AUTHORITY,
    authorityAccountId: 'auth',
    instrumentId: 'fi',
    instrumentAddress: PAYER,
    fields: feedFields(definition, value),
    lamports: '2000000',
  };

  it('a Create whose generated feed account already exists onchain is 409 CONFLICT naming onchainDataSource; a new one passes', () => {
    const error = refusal(() => requireNewFeedAccount(true, FEED));
    expect([error.code, error.field]).toEqual(['CONFLICT', 'itemData.onchainDataSource']);
    expect(error.message).toBe(`the feed account ${FEED} already exists onchain`);
    expect(() => requireNewFeedAccount(false, FEED)).not.toThrow();
  });

  it("the feed mint's account record: ASSET_TOKEN by default, Token-2022, no decimals, the rent it holds", () => {
    const account = feedAccountFields(item, feed);
    expect(account).toMatchObject({
      address: FEED,
      type: 'ASSET_TOKEN',
      managed: true,
      code: 'BOND-42-PRICE',
      name: 'Bond 42 price',
      accountNumber: null,
      comments: 'c',
      tokenVersion: 'TOKEN_2022',
      tokenDecimals: 0,
      lamportsBalance: 2_000_000n,
    });
    expect(account.dataLength).toBeGreaterThan(0);
    expect(
      feedAccountFields({ ...item, onchainDataSource: { offchainReferences: { type: 'WALLET' } } } as CreateOnchainDataSourceItemData, feed),
    ).toMatchObject({ type: 'WALLET', code: null, comments: null });
  });

  it("the data source's record at creation: the first value, no schedule for 0, no failure", () => {
    expect(createdDataSourceFields(item, feed)).toEqual({
      id: 'ds',
      defiProtocol: 'LEDGER_FEED',
      address: FEED,
      accountId: 'acc',
      financialInstrumentId: 'fi',
      financialInstrumentAddress: PAYER,
      authorityAddress: AUTHORITY,
      authorityAccountId: 'auth',
      kind: 'PRICE',
      ratingProvider: null,
      providerKind: 'QUOTES',
      jobDefinition: '{}',
      feedHash: definition.feedHash,
      refreshEverySeconds: null,
      latestValue: '123.456',
      latestValueAt: new Date(value.updatedAt),
      latestSlot: '4821337',
      lastRefreshError: null,
      lastRefreshErrorAt: null,
      code: 'BOND-42-PRICE',
      name: 'Bond 42 price',
      comments: 'c',
    });
  });

  it('a landed refresh keeps the value and clears the last failure', () => {
    expect(refreshedDataSourceFields(value)).toEqual({
      latestValue: '123.456',
      latestValueAt: new Date(value.updatedAt),
      latestSlot: '4821337',
      lastRefreshError: null,
      lastRefreshErrorAt: null,
    });
  });

  it('an update: the named authority takes over unless it is the current one; the patch sets only what was sent (0 stops the schedule)', () => {
    expect(newAuthorityOf({ address: AUTHORITY, id: 'auth' }, AUTHORITY)).toBeNull();
    expect(newAuthorityOf({ address: PAYER, id: 'payer' }, AUTHORITY)).toEqual({ address: PAYER, accountId: 'payer' });
    const kind = { kind: 'PRICE', ratingProvider: null };
    const only = dataSourcePatch({ onchainDataSource: { offchainId: 'x' }, refreshEverySeconds: 0 } as UpdateOracleDataSourceItemData, kind);
    expect(only).toEqual({ kind: 'PRICE', ratingProvider: null, refreshEverySeconds: null });
    expect(patchedDataSourceFields(only, null)).toEqual({ kind: 'PRICE', ratingProvider: null, refreshEverySeconds: null });
    const job = '{"tasks":[]}';
    const all = dataSourcePatch(
      { onchainDataSource: { offchainId: 'x' }, providerDetails: { kind: 'QUOTES', jobDefinition: job } } as UpdateOracleDataSourceItemData,
      kind,
      { id: 'fi', mintAddress: PAYER },
    );
    expect(all).toEqual({
      kind: 'PRICE',
      ratingProvider: null,
      jobDefinition: job,
      feedHash: feedHash(job),
      providerKind: 'QUOTES',
      instrument: { id: 'fi', address: PAYER },
    });
    expect(patchedDataSourceFields(all, { address: PAYER, accountId: 'payer' })).toEqual({
      kind: 'PRICE',
      ratingProvider: null,
      jobDefinition: job,
      feedHash: feedHash(job),
      providerKind: 'QUOTES',
      financialInstrumentId: 'fi',
      financialInstrumentAddress: PAYER,
      authorityAddress: PAYER,
      authorityAccountId: 'payer',
    });
  });
});

describe('ORACLE_ALLOWED_HOSTS', () => {
  it('takes host and host:port entries, lower-cased, and refuses anything else', () => {
    expect(parseOracleHosts(' Prices.Example.com, 127.0.0.1:8123 ,[::1]:80')).toEqual(['prices.example.com', '127.0.0.1:8123', '[::1]:80']);
    expect(parseOracleHosts(undefined)).toEqual([]);
    for (const bad of ['https://prices.example.com', 'prices.example.com/path', 'host:0', 'host:99999', 'a b'])
      expect(() => parseOracleHosts(bad)).toThrow('ORACLE_ALLOWED_HOSTS');
  });
});

describe('the HTTP GET of a job', () => {
  const policy = { allowedHosts: ['prices.example'], maxResponseBytes: 16, timeoutMs: 50 };
  const answer = (status: number, body = '', headers: Record<string, string> = {}) =>
    new Response(status >= 300 && status < 400 ? null : body, { status, headers });

  it('reads the body of an allowed host', async () => {
    const get = createHttpGet(policy, (async () => answer(200, '{"p":1}')) as typeof fetch);
    expect(await get('https://prices.example/p')).toBe('{"p":1}');
  });

  it('follows a redirect on allowed hosts only', async () => {
    const calls: string[] = [];
    const fetchFn = (async (url: URL) => {
      calls.push(url.host);
      return url.pathname === '/old' ? answer(302, '', { location: url.host === 'prices.example' ? '/new' : 'x' }) : answer(200, '1');
    }) as unknown as typeof fetch;
    expect(await createHttpGet(policy, fetchFn)('https://prices.example/old')).toBe('1');
    const away = (async () => answer(302, '', { location: 'https://evil.example/p' })) as unknown as typeof fetch;
    await expect(createHttpGet(policy, away)('https://prices.example/old')).rejects.toThrow('evil.example is not in ORACLE_ALLOWED_HOSTS');
  });

  it('fails the job on a non-2xx, a body over the cap, or no answer in time', async () => {
    await expect(createHttpGet(policy, (async () => answer(503)) as typeof fetch)('https://prices.example/p')).rejects.toThrow('HTTP 503');
    await expect(createHttpGet(policy, (async () => answer(200, 'x'.repeat(17))) as typeof fetch)('https://prices.example/p')).rejects.toThrow(
      'larger than 16 bytes',
    );
    const slow = ((_url: URL, init: RequestInit) =>
      new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))) as unknown as typeof fetch;
    await expect(createHttpGet(policy, slow)('https://prices.example/p')).rejects.toBeInstanceOf(JobFailure);
  });
});
