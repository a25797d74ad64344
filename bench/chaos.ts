/**
 * `npm run chaos`: a bounded load of mixed writes (Create Account, Mint, Transfer, Trade) against
 * the whole service as separate processes (API, worker, local node, a Temporal dev server on a
 * SQLite file, PostgreSQL), while the worker, the Temporal server and the node are killed with
 * SIGKILL and restarted at random moments. Clients behave as a careful user would: every write has
 * an idempotency key and is repeated with the same key after a 5xx, a dropped connection or a 202,
 * until it gets a definite answer. Then the invariants are checked and printed, and the run exits
 * non-zero on any breach:
 * - every write answered success landed onchain (its signature known, no error), and nothing
 *   answered as failed landed (its key's record is not successful);
 * - supply = what was minted; each position's balance onchain = offchain = what the answered writes
 *   moved (a write that landed twice, or landed unanswered, breaks this);
 * - the fee payer paid exactly the seeds of the created accounts and the fees of the transactions
 *   the records hold (a second, different transaction for one write breaks this);
 * - every created account is listed, with its seed onchain;
 * - no record is left PENDING, BUILT, SIGNED or SUBMITTED.
 *
 * Knobs: CHAOS_SECONDS (60), CHAOS_CLIENTS (6), CHAOS_SEED (random), CHAOS_BLOCK_TIME_MS (100),
 * CHAOS_FAULT_EVERY_MS (4000: mean time between faults), CHAOS_POSITIONS (6), CHAOS_TARGETS
 * (worker,temporal,node: what the faults hit).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { address, createSolanaRpc, signature as asSignature } from '@solana/kit';
import { loadConfig, type Config } from '../src/config/config';
import { freePort, startTemporalDevServer, type TemporalDevServer } from '../src/main/temporal-dev-server';
import { forkEm, fundFeePayer, openRuntime } from '../src/main/runtime';
import { installSdkLogger } from '../src/main/worker';
import { createApiKey, ensureOrganization } from '../src/custody/credentials';
import { roleNames } from '../src/domain/roles';
import { spawnService } from './processes';

const seconds = Number(process.env.CHAOS_SECONDS ?? 60);
const clients = Number(process.env.CHAOS_CLIENTS ?? 6);
const blockTimeMs = Number(process.env.CHAOS_BLOCK_TIME_MS ?? 100);
const faultEveryMs = Number(process.env.CHAOS_FAULT_EVERY_MS ?? 4000);
const positionCount = Number(process.env.CHAOS_POSITIONS ?? 6);
const targets = (process.env.CHAOS_TARGETS ?? 'worker,temporal,node').split(',').map((t) => t.trim()) as ('worker' | 'temporal' | 'node')[];
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const FEE = 5000n;
const INITIAL = 1_000_000n;
const SEED_LAMPORTS = 1_000_000n;
const log = (m: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 23)}] ${m}`);

/** A small seeded generator (mulberry32), so a run can be repeated with CHAOS_SEED. */
function generator(state: number) {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Lookup = { owner: { offchainId: string }; financialInstrument: { onchainId: string } };
/** A write as the client saw it: what it asked, and the definite answer it got. */
interface Write {
  kind: 'create-account' | 'mint' | 'transfer' | 'trade';
  key: string;
  /** Base-unit movements it makes when it lands: position index → delta. */
  moves: Map<number, bigint>;
  minted: bigint;
  status?: number;
  body?: any;
  success?: boolean;
}

const cleanups: (() => unknown)[] = [];

async function main() {
  installSdkLogger();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-chaos-'));
  cleanups.push(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const dbName = `ledger_chaos_${randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  cleanups.push(() => admin.end());
  await admin.query(`create database ${dbName}`);
  cleanups.push(() => admin.query(`drop database if exists ${dbName} with (force)`));
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/${dbName}`;

  // Every part that is killed comes back on the same port with the same state.
  const temporalPort = await freePort();
  const startTemporal = () => startTemporalDevServer({ dataDir: path.join(workDir, 'temporal'), port: temporalPort, ui: false, log: () => {} });
  let temporal: TemporalDevServer = await startTemporal();
  cleanups.push(() => temporal.close());
  const nodePort = await freePort();
  const startNode = () => spawnService('local-node', { DATA_DIR: workDir, LOCAL_NODE_PORT: String(nodePort), LOCAL_NODE_BLOCK_TIME_MS: String(blockTimeMs) }, /Local SVM node at (\S+)/);
  let node = await startNode();
  cleanups.push(() => node.stop());
  const config: Config = {
    ...loadConfig({}),
    dataDir: workDir,
    databaseUrl,
    feePayerKeyFile: path.join(workDir, 'fee-payer.json'),
    keyEncryptionKey: randomBytes(32).toString('base64'),
    clusters: [{ name: 'LOCAL', rpcUrl: node.url, allowsAirdrop: true }],
  };
  const runtime = await openRuntime({ ...config, databaseUrl }, () => {}, { migrate: true });
  await fundFeePayer(runtime, config, () => {});
  const { organization } = await ensureOrganization(forkEm(runtime.orm), runtime.sealer, 'chaos');
  const { apiKey } = await createApiKey(forkEm(runtime.orm), organization, [...roleNames], config.platformName);
  const feePayer = runtime.feePayerAddress;
  await runtime.close();
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    SVM_CLUSTERS: `LOCAL=${node.url}`,
    KEY_ENCRYPTION_KEY: config.keyEncryptionKey!,
    FEE_PAYER_KEY_FILE: config.feePayerKeyFile,
    DATA_DIR: workDir,
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    // The API only starts writes here; the worker process (killed at random) runs them.
    API_HOSTS_WORKER: 'false',
    WRITE_WAIT_SECONDS: '20',
    TEMPORAL_WRITE_TASK_TIMEOUT_SECONDS: '3',
  };
  const startWorker = () => spawnService('worker', env, /worker polling/);
  let worker = await startWorker();
  cleanups.push(() => worker.stop());
  const api = await spawnService('api', { ...env, PORT: String(await freePort()) }, /API listening on (https?:\/\/[^\s"]+)/);
  cleanups.push(() => api.stop());
  failureOutput = () => `--- api ---\n${api.output()}\n--- worker ---\n${worker.output()}`;
  const rpc = createSolanaRpc(node.url);

  const call = async (method: string, route: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.url}${route}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** Repeats one write with its key until a definite answer (success or failure, or a 4xx refusal). */
  const settle = async (route: string, body: unknown, key: string, headers: Record<string, string> = {}) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await call('POST', route, body, { 'x-request-id': key, ...headers });
        if (answer.status < 500 && answer.status !== 202 && answer.status !== 429) return answer;
      } catch {
        // A dropped connection or a timeout: the write may be running; the same key finds it.
      }
      if (attempt > 300) throw new Error(`no definite answer for ${route} key ${key} after ${attempt} attempts`);
      await sleep(1000);
    }
  };
  const created = async (route: string, itemData: unknown) => {
    const answer = await settle(route, { itemData }, randomBytes(8).toString('hex'));
    if (answer.status !== 201) throw new Error(`setup ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  // Setup, before any fault: an SPL instrument and positions holding INITIAL each.
  const authority = (await created('/api/v1/accounts', { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } })).newAccount;
  const mint = (await created('/api/v1/financial-instruments', { version: 'SPL', onchainData: { decimals: 0 }, mintAuthority: { offchainId: authority.offchainId }, mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } } })).newFinancialInstrument.onchainId as string;
  const positions: Lookup[] = [];
  for (let i = 0; i < positionCount; i++) {
    const owner = (await created('/api/v1/accounts', { managed: true })).newAccount;
    const position = { owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } };
    await created('/api/v1/positions', { positionToInitialize: position });
    await created('/api/v1/positions/mint', { mintTo: position, value: { lamports: INITIAL.toString() } });
    positions.push(position);
  }
  const feePayerAfterSetup = (await rpc.getBalance(address(feePayer), { commitment: 'confirmed' }).send()).value;
  const recordsAfterSetup = new Set<string>((await call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery: { limit: 1000 } })).body.items.map((i: any) => i.offchain.id));
  log(`seed ${seed}; ${clients} clients for ${seconds} s; a fault every ~${faultEveryMs} ms; ${positionCount} positions of ${mint}`);

  // The faults: one target at a time, killed, then restarted after a short while.
  const faults: string[] = [];
  let running = true;
  const chaos = (async () => {
    while (running) {
      await sleep(faultEveryMs / 2 + random() * faultEveryMs);
      if (!running) break;
      const target = pick(targets);
      const downMs = 300 + Math.floor(random() * 2500);
      log(`SIGKILL ${target}, back in ${downMs} ms`);
      faults.push(target);
      if (target === 'worker') await worker.kill();
      if (target === 'temporal') await temporal.kill();
      if (target === 'node') await node.kill();
      await sleep(downMs);
      if (target === 'worker') worker = await startWorker();
      if (target === 'temporal') temporal = await startTemporal();
      if (target === 'node') node = await startNode();
    }
  })();

  // The load.
  const writes: Write[] = [];
  const deadline = Date.now() + seconds * 1000;
  const amount = () => BigInt(1 + Math.floor(random() * 50));
  const client = async () => {
    while (Date.now() < deadline) {
      const kind = pick(['create-account', 'mint', 'transfer', 'trade'] as const);
      const write: Write = { kind, key: randomUUID(), moves: new Map(), minted: 0n };
      const move = (index: number, delta: bigint) => write.moves.set(index, (write.moves.get(index) ?? 0n) + delta);
      let answer;
      if (kind === 'create-account') {
        answer = await settle('/api/v1/accounts', { itemData: { managed: true, seed: { lamports: SEED_LAMPORTS.toString() } } }, write.key);
      } else {
        const a = Math.floor(random() * positionCount);
        const b = (a + 1 + Math.floor(random() * (positionCount - 1))) % positionCount;
        const [x, y] = [amount(), amount()];
        const itemData =
          kind === 'mint'
            ? { mintTo: positions[a], value: { lamports: x.toString() } }
            : kind === 'transfer'
              ? { source: positions[a], destination: positions[b], value: { lamports: x.toString() } }
              : { operations: [{ mint: { mintTo: positions[a], value: { lamports: x.toString() } } }, { transfer: { source: positions[a], destination: positions[b], value: { lamports: y.toString() } } }] };
        if (kind === 'mint' || kind === 'trade') {
          move(a, x);
          write.minted = x;
        }
        if (kind === 'transfer') {
          move(a, -x);
          move(b, x);
        }
        if (kind === 'trade') {
          move(a, -y);
          move(b, y);
        }
        answer = await settle(`/api/v1/positions/${kind}`, { itemData: { ...itemData, idempotencyId: write.key } }, write.key);
      }
      write.status = answer.status;
      write.body = answer.body;
      const transaction = kind === 'create-account' ? answer.body.svmTransaction : answer.body;
      write.success = answer.status < 300 && transaction?.success === true;
      writes.push(write);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  running = false;
  await chaos;
  const refusals = new Map<string, number>();
  for (const w of writes.filter((x) => !x.success)) {
    const reason = `${w.kind} ${w.status} ${w.body?.errors?.[0]?.code ?? w.body?.status ?? w.body?.svmTransaction?.status ?? ''} ${(w.body?.errorMessage ?? w.body?.svmTransaction?.errorMessage ?? '').slice(0, 120)}`;
    refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
  }
  log(`answered failed or refused: ${[...refusals].map(([reason, n]) => `${reason} ×${n}`).join('; ') || 'none'}`);
  log(`load over: ${writes.length} writes answered, ${faults.length} faults (${['worker', 'temporal', 'node'].map((t) => `${t} ${faults.filter((f) => f === t).length}`).join(', ')})`);

  // The invariants.
  const breaches: string[] = [];
  const check = (ok: boolean, what: string) => {
    console.log(`${ok ? 'ok    ' : 'BREACH'} ${what}`);
    if (!ok) breaches.push(what);
  };
  const successes = writes.filter((w) => w.success);
  const kinds = ['create-account', 'mint', 'transfer', 'trade'] as const;
  check(kinds.every((kind) => successes.some((w) => w.kind === kind)), `the load exercised every kind of write (${kinds.map((kind) => `${kind} ${successes.filter((w) => w.kind === kind).length}`).join(', ')} answered success)`);
  const signatureOf = (w: Write) => (w.kind === 'create-account' ? w.body.svmTransaction?.onchainId : w.body.onchainId) as string;
  const statuses = async (signatures: string[]) => {
    const found = [];
    for (let i = 0; i < signatures.length; i += 200) found.push(...(await rpc.getSignatureStatuses(signatures.slice(i, i + 200).map((s) => asSignature(s)), { searchTransactionHistory: true }).send()).value);
    return found;
  };
  const landed = await statuses(successes.map(signatureOf));
  check(landed.every((s) => s && s.err === null), `every write answered success landed onchain (${successes.length} of ${writes.length} answered success)`);

  const byKey = new Map<string, any>();
  for (let skip = 0; ; skip += 1000) {
    const page = await call('POST', '/api/v1/transactions/bulk/detailed', { itemQuery: { limit: 1000, skip } });
    for (const record of page.body.items) byKey.set(record.idempotencyId, record);
    if (page.body.items.length < 1000) break;
  }
  const answeredFailed = writes.filter((w) => !w.success);
  const failedButLanded = answeredFailed.filter((w) => byKey.get(w.key)?.success === true && byKey.get(w.key)?.onchainId);
  check(failedButLanded.length === 0, `no write answered as failed landed (${answeredFailed.length} answered failed or refused${failedButLanded.length ? `; landed: ${failedButLanded.map((w) => w.key).join(', ')}` : ''})`);

  const minted = successes.reduce((sum, w) => sum + w.minted, 0n) + INITIAL * BigInt(positionCount);
  const supply = BigInt((await call('POST', '/api/v1/financial-instruments/circulating-supply', { itemData: { financialInstrument: { onchainId: mint } } })).body.circulatingSupply.lamports);
  check(supply === minted, `supply ${supply} = minted ${minted}`);
  let positionsOk = 0;
  for (const [index, position] of positions.entries()) {
    const expected = successes.reduce((sum, w) => sum + (w.moves.get(index) ?? 0n), INITIAL);
    const { body } = await call('POST', '/api/v1/positions/balance', { itemData: { position } });
    const [onchain, offchain] = [BigInt(body.onchain.balance.lamports), BigInt(body.offchain.balance.lamports)];
    if (onchain === expected && offchain === expected) positionsOk++;
    else {
      log(`position ${index}: onchain ${onchain}, offchain ${offchain}, expected ${expected}; the answered writes that moved it:`);
      for (const w of successes.filter((x) => x.moves.has(index))) {
        const record = byKey.get(w.key);
        const onchainTx = await rpc.getTransaction(asSignature(signatureOf(w)), { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
        log(`  ${w.kind} ${w.moves.get(index)} ${signatureOf(w)} at ${record?.createdAt}: record ${record?.status} [${record?.statusHistory?.map((h: any) => h.status).join(' ')}], node slot ${onchainTx?.slot ?? 'none'}`);
      }
    }
  }
  check(positionsOk === positions.length, `each position onchain = offchain = what the answered writes moved (${positionsOk}/${positions.length})`);

  const accounts = successes.filter((w) => w.kind === 'create-account');
  let accountsOk = 0;
  for (const w of accounts) {
    const listed = await call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: w.body.newAccount.offchainId } } });
    const lamports = (await rpc.getBalance(address(w.body.newAccount.onchainId), { commitment: 'confirmed' }).send()).value;
    if (listed.status === 200 && lamports === SEED_LAMPORTS) accountsOk++;
  }
  check(accountsOk === accounts.length, `every created account is listed and holds its seed (${accountsOk}/${accounts.length})`);

  // Fees: every transaction a record holds that landed cost 5000 per signature; nothing else may have.
  const records = [...byKey.values()].filter((r) => r.onchainId && !recordsAfterSetup.has(r.offchainId));
  const recordLanded = await statuses(records.map((r) => r.onchainId));
  const fees = records.reduce((sum, r, i) => sum + (recordLanded[i] ? FEE * BigInt(r.signers.length) : 0n), 0n);
  const seeds = SEED_LAMPORTS * BigInt(accounts.length);
  const feePayerNow = (await rpc.getBalance(address(feePayer), { commitment: 'confirmed' }).send()).value;
  check(feePayerAfterSetup - feePayerNow === seeds + fees, `the fee payer paid the seeds and the fees of the recorded transactions only (${feePayerAfterSetup - feePayerNow} = ${seeds} + ${fees})`);

  let open = 0;
  for (const status of ['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED']) {
    open += (await call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: status }] }] } })).body.count;
  }
  check(open === 0, `no record left PENDING, BUILT, SIGNED or SUBMITTED (${open})`);

  console.log(breaches.length ? `\nchaos: ${breaches.length} invariant(s) breached (seed ${seed})` : `\nchaos: all invariants hold (seed ${seed})`);
  if (breaches.length) process.exitCode = 1;
}

let failureOutput = () => '';

main()
  .catch((error) => {
    console.error(error);
    console.error(failureOutput());
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`[chaos] cleanup: ${(error as Error).message}`);
      }
    }
    process.exit();
  });

