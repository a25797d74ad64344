/**
 * The chain follower under faults (API.md section 9, docs/checker.md "Network events and
 * finality"): each client gets one more managed account, `D`, with subscribeToNetworkEvents, kept
 * outside the model, and an outside sender of its own (a keypair funded by the node's faucet, known
 * to the organization only as an unmanaged account holding two deposit instruments of the client's,
 * SPL and Token-2022, also outside the model). During the load the senders deposit to the `D`s,
 * built with the kit and never through the API: network currency (system transfers), SPL tokens
 * into D's position, and Token-2022 tokens into D's token account that no position record knows
 * until the first deposit creates it; the faults run meanwhile (the fork among them: fork.ts). Once
 * everything is up again and the follower has caught up:
 * - every followed network transaction is recorded once (no signature on two records of one organization);
 * - records = chain for every subscribed account and its positions: the signatures of its
 *   organization's NETWORK records (less those that left the chain: FAILED) equal the onchain
 *   signature history of D's address and token accounts minus the service's own transactions; a
 *   FAILED NETWORK record is not on chain; D's offchain lamports and each position's offchain units
 *   equal the chain's (a token account the chain does not hold has no position record, or one at 0);
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
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction as getTransferChecked2022Instruction,
  TOKEN_2022_PROGRAM_ADDRESS,
} from '@solana-program/token-2022';
import type { Attempt } from './client';
import { recordsOf, type CheckedClient, type FinalResult } from './final';
import type { Random } from './random';
import type { HttpSystem, Ref } from './system';

/** What a subscribed account starts with (seeded by the service: its own transaction, not a network one). */
export const SUBSCRIBED_SEED = 10_000_000n;
/** Units of each deposit instrument the sender holds. */
const SENDER_UNITS = 1_000_000_000n;
/** How long the follower may take to catch up, and the records to be finalized, after the faults. */
const CATCH_UP_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A deposit instrument: its mint, its token program, and D's token account (associated) of it. */
export interface DepositInstrument {
  version: 'SPL' | 'TOKEN_2022';
  mint: Address;
  program: Address;
  /** D's token account of the instrument. */
  tokenAccount: Address;
  /** The sender's. */
  senderTokenAccount: Address;
  /** D has a position record from the setup (SPL); else the first deposit creates its token account (Token-2022). */
  opened: boolean;
}

/** A client's subscribed account `D` and its outside sender. */
export interface Subscribed {
  account: Ref;
  sender: KeyPairSigner;
  instruments: DepositInstrument[];
}

/** Makes the client's subscribed account `D`, its sender and the deposit instruments (all outside the model). */
export async function setUpSubscribed(system: HttpSystem, keyPrefix: string): Promise<Subscribed> {
  let n = 0;
  const landed = async (route: string, itemData: unknown) => {
    const { outcome, answer } = await system.write('POST', route, { itemData }, `${keyPrefix}-setup-subscribed-${n++}`, (_: Attempt) => {});
    if (outcome.type !== 'landed') throw new Error(`setup of the subscribed account (${route}): ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    return answer.body;
  };
  const account = (await landed('/api/v1/accounts', { managed: true, subscribeToNetworkEvents: true, seed: { lamports: String(SUBSCRIBED_SEED) } }))
    .newAccount as Ref;
  const sender = await generateKeyPairSigner();
  await system.rpc.requestAirdrop(sender.address, lamports(100_000_000_000n)).send();
  for (let i = 0; (await system.rpc.getBalance(sender.address, { commitment: 'confirmed' }).send()).value === 0n; i++) {
    if (i > 100) throw new Error('setup: the sender was not funded');
    await sleep(100);
  }
  // Onboarded: no transaction, so answered 201 without one.
  const onboarded = await system.write(
    'POST',
    '/api/v1/accounts',
    { itemData: { managed: false, alreadyOnchain: true, onchainId: sender.address } },
    `${keyPrefix}-setup-subscribed-sender`,
    (_: Attempt) => {},
  );
  if (onboarded.answer.status !== 201)
    throw new Error(`setup of the sender: ${onboarded.answer.status} ${JSON.stringify(onboarded.answer.body).slice(0, 500)}`);
  const senderRef = onboarded.answer.body.newAccount as Ref;
  const authority = system.registry.accounts.authority!;
  const instruments: DepositInstrument[] = [];
  for (const version of ['SPL', 'TOKEN_2022'] as const) {
    const mint = address(
      (
        await landed('/api/v1/financial-instruments', {
          version,
          onchainData: { decimals: 0 },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        })
      ).newFinancialInstrument.onchainId,
    );
    const at = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
    await landed('/api/v1/positions', { positionToInitialize: at(senderRef) });
    await landed('/api/v1/positions/mint', { mintTo: at(senderRef), value: { lamports: String(SENDER_UNITS) } });
    const opened = version === 'SPL';
    if (opened) await landed('/api/v1/positions', { positionToInitialize: at(account) });
    const program = version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS;
    const [tokenAccount] = await findAssociatedTokenPda({ owner: address(account.onchainId), mint, tokenProgram: program });
    const [senderTokenAccount] = await findAssociatedTokenPda({ owner: sender.address, mint, tokenProgram: program });
    instruments.push({ version, mint, program, tokenAccount, senderTokenAccount, opened });
  }
  return { account, sender, instruments };
}

/** The instructions of the `n`th deposit to `to`: network currency, SPL tokens or Token-2022 tokens (creating D's token account if need be), by `kind`. */
function deposit(to: Subscribed, kind: number, n: number): Instruction[] {
  const amount = 1_000n + BigInt(n);
  if (kind === 0) return [getTransferSolInstruction({ source: to.sender, destination: address(to.account.onchainId), amount })];
  const i = to.instruments[kind - 1]!;
  const transfer = { source: i.senderTokenAccount, mint: i.mint, destination: i.tokenAccount, authority: to.sender, amount: BigInt(n % 97) + 1n, decimals: 0 };
  if (i.version === 'SPL') return [getTransferCheckedInstruction(transfer)];
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer: to.sender, ata: i.tokenAccount, owner: address(to.account.onchainId), mint: i.mint }),
    getTransferChecked2022Instruction(transfer),
  ];
}

/**
 * The outside senders: a deposit every ~`everyMs` to a random client's subscribed account, from that
 * client's sender, of a random kind, until `stop`. A send that fails (the node down) is not retried:
 * the check compares with the chain, not with what was sent.
 */
export function startSender(nodeUrl: string, targets: Subscribed[], random: Random, everyMs = 300) {
  const rpc = createSolanaRpc(nodeUrl);
  let stopped = false;
  const sent = [0, 0, 0];
  let failed = 0;
  const running = (async () => {
    for (let n = 0; !stopped; n++) {
      try {
        const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
        const to = targets[random.int(0, targets.length - 1)]!;
        const kind = random.int(0, 2);
        const signed = await signTransactionMessageWithSigners(
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayerSigner(to.sender, m),
            (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
            (m) => appendTransactionMessageInstructions(deposit(to, kind, n), m),
          ),
        );
        await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
        sent[kind]!++;
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
      return { sent: sent.reduce((a, b) => a + b, 0), byKind: `${sent[0]} network currency, ${sent[1]} SPL, ${sent[2]} Token-2022`, failed };
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
  leftChain: number;
}

/** A record as Fetch Transactions (detailed) shows it: what the comparison reads. */
export interface RecordSeen {
  onchainId?: string | null;
  origin?: string;
  status?: string;
}

/**
 * One organization's records against its subscribed account's onchain history (its address's and
 * its token accounts'; its only subscribed account): the signatures on more than one record
 * (whatever their origin), the network transactions with no NETWORK record (history minus the
 * service's own), the NETWORK records not in the history, and the FAILED NETWORK records (their
 * transaction left the chain) that the chain holds after all.
 */
export function networkDifferences(records: RecordSeen[], history: string[]) {
  const onChain = new Set(history);
  const own = new Set(records.filter((r) => r.origin !== 'NETWORK' && r.onchainId).map((r) => r.onchainId!));
  const expected = new Set(history.filter((s) => !own.has(s)));
  const network = records.filter((r) => r.origin === 'NETWORK' && r.onchainId);
  const count = new Map<string, number>();
  for (const r of records) if (r.onchainId && (onChain.has(r.onchainId) || r.origin === 'NETWORK')) count.set(r.onchainId, (count.get(r.onchainId) ?? 0) + 1);
  const left = network.filter((r) => r.status === 'FAILED').map((r) => r.onchainId!);
  const recorded = new Set(network.filter((r) => r.status !== 'FAILED').map((r) => r.onchainId!));
  return {
    networkRecords: network.length,
    expected: expected.size,
    recorded: recorded.size,
    leftChain: left.length,
    twice: [...count].filter(([, n]) => n > 1),
    missing: [...expected].filter((s) => !recorded.has(s)),
    extra: [...[...recorded].filter((s) => !expected.has(s)), ...left.filter((s) => onChain.has(s))],
  };
}

/** The chain's units in a token account (null: the chain does not hold it). */
async function unitsOnChain(rpc: Rpc<SolanaRpcApi>, tokenAccount: Address): Promise<string | null> {
  const { value } = await rpc.getAccountInfo(tokenAccount, { commitment: 'confirmed', encoding: 'base64' }).send();
  if (!value) return null;
  return (await rpc.getTokenAccountBalance(tokenAccount, { commitment: 'confirmed' }).send()).value.amount;
}

/** Records against the chain for every client's subscribed account and its positions, now. */
async function compare(clients: CheckedClient[], subscribed: Subscribed[]): Promise<Comparison> {
  const result: Comparison = { twice: [], differs: [], balances: [], networkRecords: 0, leftChain: 0 };
  for (const [i, { system }] of clients.entries()) {
    const { account, instruments } = subscribed[i]!;
    const records = await recordsOf(system);
    const chain: string[] = [];
    for (const a of [address(account.onchainId), ...instruments.map((d) => d.tokenAccount)]) chain.push(...(await historyOf(system.rpc, a)));
    const found = networkDifferences(records, [...new Set(chain)]);
    result.networkRecords += found.networkRecords;
    result.leftChain += found.leftChain;
    for (const [s, n] of found.twice) result.twice.push(`client ${i}: signature ${s} on ${n} records`);
    if (found.missing.length || found.extra.length)
      result.differs.push(
        `client ${i} (${account.onchainId}): ${found.expected} network transactions on chain, ${found.recorded} NETWORK records; missing ${found.missing.length} (${found.missing.slice(0, 3).join(', ')}), not on chain or FAILED but on chain ${found.extra.length} (${found.extra.slice(0, 3).join(', ')})`,
      );
    const answer = await system.client.read('/api/v1/accounts/balance', { itemData: { account: { offchainId: account.offchainId } } });
    const onchain = (await system.rpc.getBalance(address(account.onchainId), { commitment: 'confirmed' }).send()).value;
    const offchain = answer.status === 200 ? String(answer.body.offchain.balance.lamports) : `answer ${answer.status}`;
    if (offchain !== String(onchain)) result.balances.push(`client ${i} (${account.onchainId}): offchain ${offchain} lamports, chain ${onchain}`);
    for (const d of instruments) {
      const position = await system.client.read('/api/v1/positions/balance', {
        itemData: { position: { owner: { offchainId: account.offchainId }, financialInstrument: { onchainId: d.mint } } },
      });
      const units = await unitsOnChain(system.rpc, d.tokenAccount);
      const offchainUnits =
        position.status === 200 ? String(position.body.offchain.balance.lamports) : position.status === 404 ? null : `answer ${position.status}`;
      // A token account the chain does not hold (not created yet, or its creation left the chain): no position record, or one at 0.
      const agrees = units === null ? offchainUnits === null || offchainUnits === '0' : offchainUnits === units;
      if (!agrees)
        result.balances.push(
          `client ${i} (${account.onchainId}) ${d.version} position: offchain ${offchainUnits ?? 'no record'}, chain ${units ?? 'no token account'}`,
        );
    }
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
  subscribed: Subscribed[],
  sender: { sent: number; byKind: string; failed: number },
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
    `network events: ${sender.sent} deposits sent (${sender.byKind}; ${sender.failed} sends failed), ${last.networkRecords} NETWORK records (${last.leftChain} of them left the chain); records = chain after ${caughtUpSeconds} s, finality after ${((Date.now() - checksStart) / 1000).toFixed(1)} s`,
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
    `records = chain for the ${subscribed.length} subscribed accounts and their token accounts: NETWORK records' signatures (less the ${last.leftChain} FAILED: left the chain) = onchain signature history minus the service's own transactions`,
    last.differs,
  );
  check(
    last.balances.length === 0,
    `offchain lamports and position units = chain for the ${subscribed.length} subscribed accounts and their ${subscribed.length * 2} deposit positions once the follower caught up`,
    last.balances,
  );
  check(
    finality.open.length === 0,
    `every landed record (answered CONFIRMED, or NETWORK) at or below the finalized slot ${finality.finalizedSlot} is FINALIZED or FAILED (${finality.checked})`,
    finality.open,
  );
  return { lines, divergences };
}
