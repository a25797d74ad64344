/**
 * The chain follower under faults (API.md section 9, docs/chaos-checker.md "Network events and
 * finality"): each client gets one more managed account, `D`, with subscribeToNetworkEvents, kept
 * outside the model; during the load an outside sender (a keypair funded by the node's faucet, plain
 * system transfers built with the kit, never through the API) deposits to the clients' `D`s while
 * the faults run. Once everything is up again and the follower has caught up:
 * - every followed network transaction is recorded once (no signature on two records of one organization);
 * - records = chain for every subscribed account: the signatures of its organization's NETWORK records
 *   equal the account's onchain signature history minus the service's own transactions, and its
 *   offchain lamports equal the chain's;
 * - every landed record (answered CONFIRMED, or a NETWORK record) ends FINALIZED (or FAILED if it left
 *   the chain) once the chain's finalized slot has passed its slot.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  signature as asSignature,
  type Address,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import type { Attempt } from './client';
import { recordsOf, type CheckedClient, type FinalResult } from './final';
import type { Random } from './random';
import type { HttpSystem, Ref } from './system';

/** What a subscribed account starts with (seeded by the service: its own transaction, not a network one). */
export const SUBSCRIBED_SEED = 10_000_000n;
/** How long the follower may take to catch up, and the records to be finalized, after the faults. */
const CATCH_UP_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes the client's subscribed account `D` (outside the model: only the sender moves it). */
export async function setUpSubscribed(system: HttpSystem, keyPrefix: string): Promise<Ref> {
  const { outcome, answer } = await system.write(
    'POST',
    '/api/v1/accounts',
    { itemData: { managed: true, subscribeToNetworkEvents: true, seed: { lamports: String(SUBSCRIBED_SEED) } } },
    `${keyPrefix}-setup-subscribed`,
    (_: Attempt) => {},
  );
  if (outcome.type !== 'landed') throw new Error(`setup of the subscribed account: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
  return answer.body.newAccount as Ref;
}

/**
 * The outside sender: a deposit every ~`everyMs` to a random client's subscribed account until
 * `stop`. A send that fails (the node down) is not retried: the check compares with the chain, not
 * with what was sent.
 */
export function startSender(nodeUrl: string, targets: Ref[], random: Random, everyMs = 300) {
  const rpc = createSolanaRpc(nodeUrl);
  let stopped = false;
  let sent = 0;
  let failed = 0;
  const running = (async () => {
    const payer = await generateKeyPairSigner();
    for (let funded = false; !funded && !stopped;) {
      try {
        await rpc.requestAirdrop(payer.address, lamports(100_000_000_000n)).send();
        for (let i = 0; i < 50 && !funded; i++) {
          await sleep(100);
          funded = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value > 0n;
        }
      } catch {
        await sleep(500);
      }
    }
    for (let n = 0; !stopped; n++) {
      try {
        const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
        const destination = address(targets[random.int(0, targets.length - 1)]!.onchainId);
        const signed = await signTransactionMessageWithSigners(
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayerSigner(payer, m),
            (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
            (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination, amount: 1_000n + BigInt(n) })], m),
          ),
        );
        await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
        sent++;
      } catch {
        failed++;
      }
      await sleep(random.int(everyMs / 2, (3 * everyMs) / 2));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return { sent, failed };
    },
  };
}

/** Every signature of an address's history at confirmed, newest first, all pages. */
async function historyOf(rpc: Rpc<SolanaRpcApi>, account: Address): Promise<string[]> {
  const all: string[] = [];
  for (let before: string | undefined; ;) {
    const page = await rpc
      .getSignaturesForAddress(account, { commitment: 'confirmed', limit: 1000, ...(before ? { before: asSignature(before) } : {}) })
      .send();
    all.push(...page.map((e) => e.signature as string));
    if (page.length < 1000) return all;
    before = page[page.length - 1]!.signature;
  }
}

interface Comparison {
  /** Per client, what differs (empty: records = chain). */
  twice: string[];
  differs: string[];
  balances: string[];
  networkRecords: number;
}

/** A record as Fetch Transactions (detailed) shows it: what the comparison reads. */
export interface RecordSeen {
  onchainId?: string | null;
  origin?: string;
}

/**
 * One organization's records against its subscribed account's onchain history (its only subscribed
 * account): the signatures on more than one record (whatever their origin), the network
 * transactions with no NETWORK record (history minus the service's own), and the NETWORK records
 * not in the history.
 */
export function networkDifferences(records: RecordSeen[], history: string[]) {
  const onChain = new Set(history);
  const own = new Set(records.filter((r) => r.origin !== 'NETWORK' && r.onchainId).map((r) => r.onchainId!));
  const expected = new Set(history.filter((s) => !own.has(s)));
  const network = records.filter((r) => r.origin === 'NETWORK' && r.onchainId);
  const count = new Map<string, number>();
  for (const r of records) if (r.onchainId && (onChain.has(r.onchainId) || r.origin === 'NETWORK')) count.set(r.onchainId, (count.get(r.onchainId) ?? 0) + 1);
  const recorded = new Set(network.map((r) => r.onchainId!));
  return {
    networkRecords: network.length,
    expected: expected.size,
    recorded: recorded.size,
    twice: [...count].filter(([, n]) => n > 1),
    missing: [...expected].filter((s) => !recorded.has(s)),
    extra: [...recorded].filter((s) => !expected.has(s)),
  };
}

/** Records against the chain for every client's subscribed account, now. */
async function compare(clients: CheckedClient[], subscribed: Ref[]): Promise<Comparison> {
  const result: Comparison = { twice: [], differs: [], balances: [], networkRecords: 0 };
  for (const [i, { system }] of clients.entries()) {
    const account = subscribed[i]!;
    const records = await recordsOf(system);
    const chain = await historyOf(system.rpc, address(account.onchainId));
    const found = networkDifferences(records, chain);
    result.networkRecords += found.networkRecords;
    for (const [s, n] of found.twice) result.twice.push(`client ${i}: signature ${s} on ${n} records`);
    if (found.missing.length || found.extra.length)
      result.differs.push(
        `client ${i} (${account.onchainId}): ${found.expected} network transactions on chain, ${found.recorded} NETWORK records; missing ${found.missing.length} (${found.missing.slice(0, 3).join(', ')}), not on chain ${found.extra.length} (${found.extra.slice(0, 3).join(', ')})`,
      );
    const answer = await system.client.read('/api/v1/accounts/balance', { itemData: { account: { offchainId: account.offchainId } } });
    const onchain = (await system.rpc.getBalance(address(account.onchainId), { commitment: 'confirmed' }).send()).value;
    const offchain = answer.status === 200 ? String(answer.body.offchain.balance.lamports) : `answer ${answer.status}`;
    if (offchain !== String(onchain)) result.balances.push(`client ${i} (${account.onchainId}): offchain ${offchain}, chain ${onchain}`);
  }
  return result;
}

/** Landed records still short of FINALIZED (or FAILED) although the finalized slot has passed them; and how many were checked. */
async function unfinalized(clients: CheckedClient[], rpc: Rpc<SolanaRpcApi>): Promise<{ checked: number; open: string[]; finalizedSlot: bigint }> {
  const finalizedSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
  let checked = 0;
  const open: string[] = [];
  for (const [i, { run, system }] of clients.entries()) {
    for (const r of await recordsOf(system)) {
      const answeredLanded = r.origin === 'NETWORK' || run.state.transactions[r.idempotencyId]?.includes('CONFIRMED') || r.status === 'CONFIRMED';
      if (!answeredLanded || r.slot === null || r.slot === undefined || BigInt(r.slot) > finalizedSlot) continue;
      checked++;
      if (r.status !== 'FINALIZED' && r.status !== 'FAILED') open.push(`client ${i}: ${r.offchainId} (${r.operation}, slot ${r.slot}) ${r.status}`);
    }
  }
  return { checked, open, finalizedSlot };
}

/** The follower's invariants, asked again (every 2 s) until they hold or CATCH_UP_MS has passed. */
export async function networkChecks(
  clients: CheckedClient[],
  subscribed: Ref[],
  sender: { sent: number; failed: number },
  log: (m: string) => void,
): Promise<FinalResult> {
  const rpc = clients[0]!.system.rpc;
  // Everything sent is in a confirmed block now; the follower's cursor must pass it.
  const tip = await rpc.getSlot({ commitment: 'confirmed' }).send();
  const checksStart = Date.now();
  const giveUpAt = checksStart + CATCH_UP_MS;
  let last = await compare(clients, subscribed);
  while ((last.twice.length || last.differs.length || last.balances.length) && Date.now() < giveUpAt) {
    await sleep(2000);
    last = await compare(clients, subscribed);
  }
  const caughtUpSeconds = ((Date.now() - checksStart) / 1000).toFixed(1);
  while ((await rpc.getSlot({ commitment: 'finalized' }).send()) < tip && Date.now() < giveUpAt) await sleep(500);
  let finality = await unfinalized(clients, rpc);
  while (finality.open.length && Date.now() < giveUpAt) {
    await sleep(2000);
    finality = await unfinalized(clients, rpc);
  }
  log(
    `network events: ${sender.sent} deposits sent (${sender.failed} sends failed), ${last.networkRecords} NETWORK records; records = chain after ${caughtUpSeconds} s, finality after ${((Date.now() - checksStart) / 1000).toFixed(1)} s`,
  );

  const lines: string[] = [];
  const divergences: FinalResult['divergences'] = [];
  const check = (ok: boolean, what: string, details: string[]) => {
    lines.push(`${ok ? 'ok    ' : 'BREACH'} ${what}`);
    if (!ok) divergences.push({ client: -1, seq: Infinity, objects: ['network events'], what: `${what}: ${details.slice(0, 10).join('; ')}` });
  };
  check(
    last.twice.length === 0,
    `every followed network transaction recorded once (no signature on two records of an organization; ${last.networkRecords} NETWORK records)`,
    last.twice,
  );
  check(
    last.differs.length === 0,
    `records = chain for the ${subscribed.length} subscribed accounts: NETWORK records' signatures = onchain signature history minus the service's own transactions`,
    last.differs,
  );
  check(last.balances.length === 0, `offchain lamports = chain for the ${subscribed.length} subscribed accounts once the follower caught up`, last.balances);
  check(
    finality.open.length === 0,
    `every landed record (answered CONFIRMED, or NETWORK) at or below the finalized slot ${finality.finalizedSlot} is FINALIZED or FAILED (${finality.checked})`,
    finality.open,
  );
  return { lines, divergences };
}
