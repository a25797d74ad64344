/**
 * Outside deposits for `npm run bench` (docs/benchmark.md "Chain follower"): faucet-funded kit
 * keypairs send plain system transfers to managed accounts with subscribeToNetworkEvents, at a fixed
 * rate, never through the API, while a write scenario runs. Afterwards it reads what the chain
 * follower recorded (straight from the database: every NETWORK record of the sent signatures, with
 * its time), where its durable cursor (its position) stood against the node's confirmed tip during
 * the window, and what its `position` query said (sampled once a second, as an operator would see
 * it in the Temporal UI).
 */
import { address, createSolanaRpc, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { chainFollowerWorkflowId } from '../src/follower/ids';
import type { FollowerPosition } from '../src/activities/follower/follow-chain.activity';
import { fundedKeypair, sendSigned, signedOutside } from '../test/support/outside-sender';

/** Senders: several fee payers, so one payer's account is not the only thing every deposit writes. */
const SENDERS = 4;

export interface DepositTargets {
  nodeUrl: string;
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  /** The subscribed accounts' addresses. */
  accounts: string[];
}

export interface FollowerRun {
  name: string;
  seconds: number;
  /** Deposits the node accepted (sendTransaction answered a signature) during the timed window. */
  sent: number;
  sendErrors: number;
  /** Of those, recorded by the follower (each at most once: checked). */
  recorded: number;
  /** NETWORK records of the deposits sent (warm-up included), per second, from the first record's creation to the last's. */
  recordedPerSecond: number;
  /** Deposits sent per second over the same run. */
  sentPerSecond: number;
  /** Signatures with more than one NETWORK record (must be 0). */
  twice: number;
  /** From sending the deposit to its NETWORK record's creation, ms, sorted. */
  sentToRecordedMs: number[];
  /** The node's confirmed tip less the follower's durable cursor (its position), sampled every 500 ms during the window, sorted. */
  cursorLagSlots: number[];
  /** The position query's lagSlots and lagSeconds, sampled once a second during the window, sorted. */
  lagSlots: number[];
  lagSeconds: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Faucet-funded senders (the local node's airdrop), ready before any timed window. */
export async function fundSenders(nodeUrl: string): Promise<KeyPairSigner[]> {
  const rpc = createSolanaRpc(nodeUrl);
  return Promise.all(Array.from({ length: SENDERS }, () => fundedKeypair(rpc, 1_000_000_000_000n)));
}

/**
 * Sends deposits at `perSecond` (open loop: a slow answer does not slow the sender) for
 * `warmupMs + durationMs`, while `during` runs; then waits for the follower to record them (at
 * most 60 s) and measures. Distinct amounts make every transaction's signature distinct.
 */
export async function withDeposits<T>(
  name: string,
  targets: DepositTargets,
  senders: KeyPairSigner[],
  perSecond: number,
  timing: { warmupMs: number; durationMs: number },
  during: () => Promise<T>,
): Promise<{ result: T; follower: FollowerRun }> {
  const rpc = createSolanaRpc(targets.nodeUrl);
  const connection = await Connection.connect({ address: targets.temporal.address });
  const follower = new Client({ connection, namespace: targets.temporal.namespace }).workflow.getHandle(
    chainFollowerWorkflowId('LOCAL', targets.temporal.taskQueue),
  );
  const started = Date.now();
  const windowStart = started + timing.warmupMs;
  const windowEnd = windowStart + timing.durationMs;
  const sentAt = new Map<string, number>();
  let sendErrors = 0;
  let blockhash = (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
  let stop = false;
  const refresh = (async () => {
    while (!stop) {
      await sleep(1000);
      blockhash = (
        await rpc
          .getLatestBlockhash({ commitment: 'confirmed' })
          .send()
          .catch(() => ({ value: blockhash }))
      ).value;
    }
  })();
  const db = new PgClient({ connectionString: targets.databaseUrl });
  await db.connect();
  const cursorLagSlots: number[] = [];
  const sampleCursor = (async () => {
    while (!stop) {
      await sleep(500);
      if (Date.now() < windowStart || Date.now() > windowEnd) continue;
      try {
        const tip = await rpc.getSlot({ commitment: 'confirmed' }).send();
        const { rows } = await db.query<{ slot: string }>(`select slot from chain_cursor where cluster = 'LOCAL'`);
        if (rows[0]) cursorLagSlots.push(Math.max(0, Number(tip - BigInt(rows[0].slot))));
      } catch {
        // a sample missed
      }
    }
  })();
  const lagSlots: number[] = [];
  const lagSeconds: number[] = [];
  const sample = (async () => {
    while (!stop) {
      await sleep(1000);
      if (Date.now() < windowStart || Date.now() > windowEnd) continue;
      const position = await follower.query<FollowerPosition | null>('position').catch(() => null);
      if (position) {
        lagSlots.push(position.lagSlots);
        lagSeconds.push(position.lagSeconds);
      }
    }
  })();
  const inFlight = new Set<Promise<void>>();
  const send = (n: number) => {
    const payer = senders[n % senders.length]!;
    const destination = address(targets.accounts[n % targets.accounts.length]!);
    const p = (async () => {
      const signed = await signedOutside([getTransferSolInstruction({ source: payer, destination, amount: 1_000n + BigInt(n) })], payer, blockhash);
      const at = Date.now();
      try {
        sentAt.set(await sendSigned(rpc, signed), at);
      } catch {
        sendErrors++;
      }
    })().finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const sender = (async () => {
    let n = 0;
    while (Date.now() < windowEnd) {
      const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
      while (n < due) send(n++);
      await sleep(20);
    }
  })();
  let result: T;
  try {
    result = await during();
    await sender;
    await Promise.all(inFlight);
  } finally {
    stop = true;
    await Promise.all([refresh, sample, sampleCursor]);
  }

  // The follower's records of what was sent: wait (at most 60 s) until each sent deposit has one.
  try {
    const signatures = [...sentAt.keys()];
    const read = async () =>
      (
        await db.query<{ signature: string; created_at: Date }>(
          `select signature, created_at from ledger_transaction where origin = 'NETWORK' and signature = any($1::text[])`,
          [signatures],
        )
      ).rows;
    let rows = await read();
    for (const giveUpAt = Date.now() + 60_000; new Set(rows.map((r) => r.signature)).size < signatures.length && Date.now() < giveUpAt;) {
      await sleep(500);
      rows = await read();
    }
    const seen = new Map<string, number>();
    for (const r of rows) seen.set(r.signature, (seen.get(r.signature) ?? 0) + 1);
    const inWindow = (t: number) => t >= windowStart && t <= windowEnd;
    const timed = [...sentAt].filter(([, at]) => inWindow(at));
    const recordTimes = rows.map((r) => r.created_at.getTime());
    const recordingSeconds = (Math.max(...recordTimes) - Math.min(...recordTimes)) / 1000;
    const sendTimes = [...sentAt.values()];
    const sendingSeconds = (Math.max(...sendTimes) - Math.min(...sendTimes)) / 1000;
    return {
      result,
      follower: {
        name,
        seconds: timing.durationMs / 1000,
        sent: timed.length,
        sendErrors,
        recorded: timed.filter(([s]) => seen.has(s)).length,
        recordedPerSecond: rows.length > 1 ? (rows.length - 1) / recordingSeconds : 0,
        sentPerSecond: sendTimes.length > 1 ? (sendTimes.length - 1) / sendingSeconds : 0,
        twice: [...seen.values()].filter((n) => n > 1).length,
        sentToRecordedMs: rows
          .filter((r) => inWindow(sentAt.get(r.signature)!))
          .map((r) => r.created_at.getTime() - sentAt.get(r.signature)!)
          .sort((a, b) => a - b),
        cursorLagSlots: cursorLagSlots.sort((a, b) => a - b),
        lagSlots: lagSlots.sort((a, b) => a - b),
        lagSeconds: lagSeconds.sort((a, b) => a - b),
      },
    };
  } finally {
    await db.end();
    await connection.close();
  }
}
