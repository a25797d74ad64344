/**
 * `npm run chaos`: a model-based checker in the spirit of Jepsen and Elle. Several clients, each an
 * organization owning its own objects, send seeded random sequences of every kind of write (accounts,
 * network currency, mint, burn, transfer, trade, refusals, approvals, Sign/Submit/Cancel, durable
 * nonces, loans) to the service running as separate processes, while seeded faults kill and restart
 * its parts and cut its database. Every answer is judged against the client's reference model,
 * every object the operation may have changed is read back (through the API, onchain and offchain,
 * and straight from the chain) and compared; at the end, the invariants. A divergence prints the
 * shortest history that shows it and the run exits 1.
 *
 * Knobs: CHAOS_SECONDS (60: how long the clients send), CHAOS_CLIENTS (4), CHAOS_SEED (random),
 * CHAOS_FAULT_EVERY_MS (4000: mean time between faults; 0: none), CHAOS_TARGETS (all of
 * worker,api,temporal,node,postgres,postgres-outage,stack,fork), CHAOS_OPS (operations per client at
 * most; default no limit), CHAOS_BLOCK_TIME_MS (100), CHAOS_PATIENCE_SECONDS (300: how long one
 * operation may go without a definite answer), CHAOS_DATABASE (the database's name).
 */
import { address, createSolanaRpc } from '@solana/kit';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { installSdkLogger } from '../../src/main/worker';
import { Client } from './client';
import { finalChecks, recordsOf, type CheckedClient } from './final';
import { FAULT_KINDS, startFaults, type FaultKind } from './faults';
import { History, type Divergence } from './history';
import { NONCES, SUPPLY, position, wallet } from './model';
import { Random } from './random';
import { checkReads, newTally, runClient, type ClientRun } from './runner';
import { Services } from './services';
import { setUpClient } from './setup';
import { HttpSystem } from './system';
import { networkChecks, setUpSubscribed, startSender, type Subscribed } from './network-events';
import { forkChecks, forkFault, Gate, type ForkWrite } from './fork';

const knobs = {
  seconds: Number(process.env.CHAOS_SECONDS ?? 60),
  clients: Number(process.env.CHAOS_CLIENTS ?? 4),
  seed: Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31)),
  faultEveryMs: Number(process.env.CHAOS_FAULT_EVERY_MS ?? 4000),
  targets: (process.env.CHAOS_TARGETS ?? FAULT_KINDS.join(','))
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean) as FaultKind[],
  ops: Number(process.env.CHAOS_OPS ?? Infinity),
  blockTimeMs: Number(process.env.CHAOS_BLOCK_TIME_MS ?? 100),
  patienceMs: Number(process.env.CHAOS_PATIENCE_SECONDS ?? 300) * 1000,
};
for (const target of knobs.targets) if (!FAULT_KINDS.includes(target)) throw new Error(`CHAOS_TARGETS: unknown ${target} (known: ${FAULT_KINDS.join(', ')})`);

const startedAt = Date.now();
const log = (m: string) => console.log(`[checker +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${m}`);
const reproduce = `CHAOS_SEED=${knobs.seed} CHAOS_CLIENTS=${knobs.clients} CHAOS_SECONDS=${knobs.seconds} CHAOS_FAULT_EVERY_MS=${knobs.faultEveryMs} CHAOS_TARGETS=${knobs.targets.join(',')}${Number.isFinite(knobs.ops) ? ` CHAOS_OPS=${knobs.ops}` : ''} npm run chaos`;
const services = new Services({ blockTimeMs: knobs.blockTimeMs, databaseName: process.env.CHAOS_DATABASE, log });

/** A workflow's history as event names (updates and activities named), for a divergence's report. */
async function workflowEvents(workflowId: string): Promise<string[]> {
  const connection = await Connection.connect({ address: services.temporalAddress });
  try {
    const history = await new TemporalClient({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const { EventType } = temporal.api.enums.v1;
    return (history.events ?? []).map((e) => {
      const name = EventType[e.eventType!]?.replace('EVENT_TYPE_', '') ?? String(e.eventType);
      const update =
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId;
      const marker = e.markerRecordedEventAttributes?.markerName;
      return `${name}${update ? `(${update})` : ''}${marker ? `(${marker})` : ''}`;
    });
  } finally {
    await connection.close();
  }
}

const table = (title: string, map: Map<string, number>) =>
  [`${title}:`, ...[...map].sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${String(n).padStart(6)}  ${k}`)].join('\n');

async function main(): Promise<number> {
  installSdkLogger();
  log(
    `seed ${knobs.seed}; ${knobs.clients} clients for ${knobs.seconds} s; ${knobs.faultEveryMs > 0 ? `a fault every ~${knobs.faultEveryMs} ms among ${knobs.targets.join(', ')}` : 'no faults'}`,
  );
  const tenants = await services.start(knobs.clients);
  log(`services up (database ${services.databaseName}, API ${services.apiUrl}, node ${services.nodeUrl})`);
  const history = new History(startedAt);
  const answers = new Map<string, number>();
  const root = new Random(knobs.seed);
  const randoms = Array.from({ length: knobs.clients + 1 }, (_, i) => root.fork(i));
  const rpc = createSolanaRpc(services.nodeUrl);
  const rentMin = await rpc.getMinimumBalanceForRentExemption(0n).send();

  const subscribed: Subscribed[] = [];
  const gate = new Gate();
  const clients: CheckedClient[] = await Promise.all(
    tenants.map(async (tenant, i) => {
      const client = new Client({
        url: () => services.apiUrl,
        apiKey: tenant.apiKey,
        patienceMs: knobs.patienceMs,
        startedAt,
        count: (s) => answers.set(String(s || 'no answer'), (answers.get(String(s || 'no answer')) ?? 0) + 1),
      });
      const system = new HttpSystem(client, tenant, services.nodeUrl, knobs.patienceMs, workflowEvents);
      const keyPrefix = `c${i}-${knobs.seed}`;
      const { shape, state } = await setUpClient(system, keyPrefix, rentMin);
      // The chain follower's account: subscribed, outside the model (network-events.ts).
      subscribed[i] = await setUpSubscribed(system, keyPrefix);
      const run: ClientRun = { client: i, shape, state, random: randoms[i]!, system, history, keyPrefix, more: () => false, tally: newTally(), gate };
      // The first reads: every object agrees with the model before anything else happens.
      const objects = [...Object.keys(state.lamports).map(wallet), ...Object.keys(state.units).map(position), SUPPLY, NONCES];
      const differs = await checkReads(run, history.begin(i, 'setup', objects, []), objects);
      if (differs) throw new Error(`client ${i}: the setup disagrees with the model: ${differs.what}`);
      return { run, system, setupRecords: new Set((await recordsOf(system)).map((r) => r.offchainId as string)), outsideModel: new Set<string>() };
    }),
  );
  const feePayerAfterSetup = (await rpc.getBalance(address(services.feePayer), { commitment: 'confirmed' }).send()).value;
  log(`setup done: ${clients.length} clients, each with its instrument ${clients.map((c) => c.system.registry.mint.slice(0, 8)).join(', ')}…`);

  const divergences: Divergence[] = [];
  const loadStart = Date.now();
  const deadline = loadStart + knobs.seconds * 1000;
  const forkWrites: ForkWrite[] = [];
  const fork = forkFault(() => services.nodeUrl, rpc, gate, clients, subscribed, forkWrites);
  const faults = startFaults(services, randoms[knobs.clients]!, knobs.targets, knobs.faultEveryMs, history, log, fork);
  const sender = startSender(services.nodeUrl, subscribed, root.fork(knobs.clients + 1));
  await Promise.all(
    clients.map(async ({ run }) => {
      let n = 0;
      run.more = () => divergences.length === 0 && Date.now() < deadline && n++ < knobs.ops;
      const divergence = await runClient(run);
      if (divergence) divergences.push(divergence);
    }),
  );
  const loadSeconds = (Date.now() - loadStart) / 1000;
  const sent = await sender.stop();
  await faults.stop();
  log(`load over after ${loadSeconds.toFixed(1)} s; faults over, everything up`);

  let finalLines: string[] = [];
  if (!divergences.length) {
    const final = await finalChecks(clients, history, { address: services.feePayer, afterSetup: feePayerAfterSetup });
    finalLines = final.lines;
    divergences.push(...final.divergences);
    const network = await networkChecks(clients, subscribed, sent, log);
    finalLines.push(...network.lines);
    divergences.push(...network.divergences);
    const forks = await forkChecks(clients, forkWrites);
    finalLines.push(...forks.lines);
    divergences.push(...forks.divergences);
  }

  const operations = new Map<string, number>();
  const outcomes = new Map<string, number>();
  let reads = 0;
  let retried = 0;
  for (const { run } of clients) {
    retried += run.tally.retried;
    for (const [k, n] of run.tally.operations) operations.set(k, (operations.get(k) ?? 0) + n);
    for (const [k, n] of run.tally.outcomes) outcomes.set(k, (outcomes.get(k) ?? 0) + n);
    reads += run.tally.readsChecked;
  }
  const total = [...operations.values()].reduce((a, b) => a + b, 0);
  console.log(
    [
      '',
      `seed ${knobs.seed}, ${knobs.clients} clients, load ${loadSeconds.toFixed(0)} s, whole run ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
      `operations: ${total} (${(total / loadSeconds).toFixed(1)}/s), ${retried} of them answered only after asking again`,
      table('operations per kind', operations),
      table('answers judged, per outcome', outcomes),
      table('HTTP answers per status (every attempt, reads included)', answers),
      table('faults per kind', new Map([...faults.counts].map(([k, n]) => [k as string, n]))),
      `reads checked against the model: ${reads}`,
      ...finalLines,
    ].join('\n'),
  );
  if (!divergences.length) {
    console.log(`\nchecker: no divergence (seed ${knobs.seed})`);
    return 0;
  }
  for (const d of divergences.slice(0, 5)) console.log(`\n${history.format(d, reproduce)}`);
  console.log(`\nthe service's last output:\n${services.output()}`);
  console.log(`\nchecker: ${divergences.length} divergence(s) (seed ${knobs.seed})`);
  return 1;
}

let ending = false;
async function end(code: number) {
  if (ending) return;
  ending = true;
  await services.close();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void end(130));

main().then(
  (code) => end(code),
  (error) => {
    console.error(error);
    console.error(services.output());
    return end(2);
  },
);
