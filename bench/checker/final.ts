/**
 * The checks once the load and the faults are over (everything up again): every object read once
 * more against the model, every write answered as landed found on chain, no record landed or left
 * open that the model does not know of, and the fee payer's spend equal to the seeds and fees of the
 * transactions recorded during the run.
 */
import { address, signature as asSignature, type Rpc, type SolanaRpcApi } from '@solana/kit';
import type { Divergence, History } from './history';
import { NONCES, SUPPLY, loanObject, position, transactionObject, unfollowed, wallet } from './model';
import { checkReads, type ClientRun } from './runner';
import type { HttpSystem } from './system';

/** Lamports per signature (no priority fee is asked for). */
export const FEE = 5_000n;
const OPEN = ['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED', 'AWAITING_APPROVAL', 'AWAITING_SIGNATURES'];

export interface CheckedClient {
  run: ClientRun;
  system: HttpSystem;
  /** Offchain ids of the records the setup made. */
  setupRecords: Set<string>;
  /** Idempotency keys of the writes made outside the model during the run (fork.ts): their fees count, the model does not judge them. */
  outsideModel: Set<string>;
}

export interface FinalResult {
  lines: string[];
  divergences: Divergence[];
}

/** Every record of the client's organization, detailed. */
export async function recordsOf(system: HttpSystem): Promise<any[]> {
  const records: any[] = [];
  for (let skip = 0; ; skip += 500) {
    const page = await system.client.read('/api/v1/transactions/bulk/detailed', { itemQuery: { limit: 500, skip } });
    if (page.status !== 200) throw new Error(`Fetch Transactions: ${page.status} ${JSON.stringify(page.body).slice(0, 300)}`);
    records.push(...page.body.items);
    if (page.body.items.length < 500) return records;
  }
}

/** Signature statuses from the chain (null: unknown to it). */
async function statusesOf(rpc: Rpc<SolanaRpcApi>, signatures: string[]) {
  const found: ({ err: unknown } | null)[] = [];
  for (let i = 0; i < signatures.length; i += 200)
    found.push(
      ...(
        await rpc
          .getSignatureStatuses(
            signatures.slice(i, i + 200).map((s) => asSignature(s)),
            { searchTransactionHistory: true },
          )
          .send()
      ).value,
    );
  return found;
}

export async function finalChecks(clients: CheckedClient[], history: History, feePayer: { address: string; afterSetup: bigint }): Promise<FinalResult> {
  const lines: string[] = [];
  const divergences: Divergence[] = [];
  const check = (ok: boolean, what: string, found: Divergence[] = []) => {
    lines.push(`${ok ? 'ok    ' : 'BREACH'} ${what}`);
    divergences.push(...found);
  };
  let readsAgree = true;
  let landedCount = 0;
  const notLanded: Divergence[] = [];
  const stray: Divergence[] = [];
  const open: Divergence[] = [];
  let resting = 0;
  let platformFees = 0n;
  let platformRecords = 0;
  for (const { run, system, setupRecords, outsideModel } of clients) {
    const { state } = run;
    const objects = [
      ...Object.keys(state.lamports).map(wallet),
      ...Object.keys(state.units).map(position),
      SUPPLY,
      NONCES,
      ...Object.keys(state.loans).map(loanObject),
      unfollowed(run.shape.borrower),
      ...Object.keys(state.transactions).map(transactionObject),
    ];
    const entry = history.begin(run.client, 'final reads', objects, []);
    const differs = await checkReads(run, entry, objects);
    if (differs) {
      readsAgree = false;
      divergences.push(differs);
    }

    const landedKeys = Object.keys(state.transactions).filter((k) => state.transactions[k]!.includes('CONFIRMED'));
    landedCount += landedKeys.length;
    const signatures = landedKeys.map((k) => system.registry.writes[k]?.signature ?? '');
    const known = await statusesOf(system.rpc, signatures.filter(Boolean));
    let i = 0;
    for (const [n, key] of landedKeys.entries()) {
      const status = signatures[n] ? known[i++] : undefined;
      if (!status || status.err !== null)
        notLanded.push({
          client: run.client,
          seq: entry.seq,
          objects: [transactionObject(key)],
          what: `answered landed, but its signature ${signatures[n] || '(none)'} is ${status ? `failed on chain: ${JSON.stringify(status.err)}` : 'unknown to the chain'}`,
        });
    }

    const records = (await recordsOf(system)).filter((r) => !setupRecords.has(r.offchainId));
    // Network records (deposits the chain follower recorded) are the model's business only through network-events.ts.
    const landedRecords = records.filter((r) => r.onchainId && r.origin !== 'NETWORK');
    const chain = await statusesOf(
      system.rpc,
      landedRecords.map((r) => r.onchainId),
    );
    for (const [n, record] of landedRecords.entries()) {
      const status = chain[n];
      if (!status) continue;
      if (record.feePayer === feePayer.address) {
        platformFees += FEE * BigInt(record.signers.length);
        platformRecords++;
      }
      if (outsideModel.has(record.idempotencyId)) continue;
      const model = state.transactions[record.idempotencyId];
      const expected = status.err === null ? 'CONFIRMED' : 'FAILED';
      if (!model?.includes(expected))
        stray.push({
          client: run.client,
          seq: entry.seq,
          objects: [transactionObject(record.idempotencyId)],
          what: `record ${record.offchainId} (${record.operation}, ${record.status}) landed on chain ${status.err === null ? 'successfully' : 'as failed'}; the model holds ${model?.join(' or ') ?? 'no such write'}`,
        });
    }
    for (const record of records.filter((r) => OPEN.includes(r.status) && !outsideModel.has(r.idempotencyId))) {
      const rest = state.resting[record.idempotencyId];
      if (rest?.status === record.status) resting++;
      else
        open.push({
          client: run.client,
          seq: entry.seq,
          objects: [transactionObject(record.idempotencyId)],
          what: `record ${record.offchainId} (${record.operation}) left ${record.status}; the model ${rest ? `has it resting ${rest.status}` : 'has no write resting under its key'}`,
        });
    }
  }
  check(
    readsAgree,
    'every object read once more agrees with the model: wallets and positions (API onchain, API offchain, chain), supply = minted - burned (API, chain), nonce accounts in use, loans, transaction statuses',
  );
  check(notLanded.length === 0, `every write answered as landed is on chain without error (${landedCount})`, notLanded);
  check(
    stray.length === 0,
    'no record landed on chain that the model does not know landed (nothing answered failed, refused, rejected, cancelled or expired landed)',
    stray,
  );
  check(open.length === 0, `no record left PENDING, BUILT, SIGNED, SUBMITTED or AWAITING_* but the ${resting} resting writes the model knows`, open);
  const seeds = clients.reduce((sum, c) => sum + c.run.state.seeds, 0n);
  const now = (await clients[0]!.system.rpc.getBalance(address(feePayer.address), { commitment: 'confirmed' }).send()).value;
  const spent = feePayer.afterSetup - now;
  check(
    spent === seeds + platformFees,
    `the fee payer paid exactly the seeds of the accounts created and the fees of the ${platformRecords} transactions recorded (${spent} = ${seeds} + ${platformFees})`,
    spent === seeds + platformFees ? [] : [{ client: -1, seq: Infinity, objects: ['fee payer'], what: `spent ${spent}, expected ${seeds + platformFees}` }],
  );
  return { lines, divergences };
}
