/**
 * The fork as a chaos fault: the local node's hook (dev/local-node/fork.ts) abandons every block
 * above the finalized slot, as a cluster does when its validators finalize another branch. The
 * model's writes must not be caught in it (the model cannot know which would leave the chain), so
 * the clients are held between operations (`Gate`) until the finalized slot has passed every block
 * they wrote in; then, per client, one write outside the model (a Transfer Network Currency from its
 * subscribed account `D` to its sender) is answered CONFIRMED, the node drops what is above the
 * finalized slot (those writes, and the deposits in flight), and the clients go on. Afterwards:
 * every write that left the chain ends FAILED with an errorMessage, and `D`'s balances are the
 * chain's again (network-events.ts).
 */
import type { Rpc, SolanaRpcApi } from '@solana/kit';
import type { Attempt } from './client';
import type { CheckedClient, FinalResult } from './final';
import type { Subscribed } from './network-events';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a write that left the chain may take to read FAILED once the load is over. */
const SETTLE_MS = 120_000;

/** Holds the clients between operations: `hold` resolves once none is inside one. */
export class Gate {
  private inside = 0;
  private closed: Promise<void> | null = null;
  private reopen = () => {};
  private idle = () => {};

  async enter(): Promise<void> {
    while (this.closed) await this.closed;
    this.inside++;
  }
  leave(): void {
    this.inside--;
    if (this.inside === 0) this.idle();
  }
  async hold(): Promise<void> {
    this.closed = new Promise((resolve) => (this.reopen = resolve));
    if (this.inside > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }
  open(): void {
    this.closed = null;
    this.reopen();
  }
}

/** A write made for a fork, and whether the fork dropped it. */
export interface ForkWrite {
  client: number;
  key: string;
  signature: string;
  dropped: boolean;
}

/** Calls the node's fault hook (served with LOCAL_NODE_FAULT_CONTROLS=true): the dropped signatures. */
async function dropUnfinalizedBlocks(nodeUrl: string): Promise<string[]> {
  const response = await fetch(nodeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'localNode_dropUnfinalizedBlocks', params: [] }),
  });
  const body = (await response.json()) as { result?: string[]; error?: { message: string } };
  if (!body.result) throw new Error(`localNode_dropUnfinalizedBlocks: ${body.error?.message ?? response.status}`);
  return body.result;
}

/** The fork fault: what `startFaults` calls for kind `fork`; answers what it did. */
export function forkFault(nodeUrl: () => string, rpc: Rpc<SolanaRpcApi>, gate: Gate, clients: CheckedClient[], subscribed: Subscribed[], made: ForkWrite[]) {
  let forks = 0;
  return async (): Promise<string> => {
    const n = forks++;
    await gate.hold();
    try {
      // Every model write is in a confirmed block: wait until it is finalized, out of the fork's reach.
      const written = await rpc.getSlot({ commitment: 'confirmed' }).send();
      while ((await rpc.getSlot({ commitment: 'finalized' }).send()) < written) await sleep(100);
      const writes: ForkWrite[] = [];
      for (const [i, { run, system, outsideModel }] of clients.entries()) {
        const key = `${run.keyPrefix}-fork-${n}`;
        outsideModel.add(key);
        const { outcome } = await system.write(
          'POST',
          '/api/v1/accounts/transfer-network-currency',
          {
            itemData: {
              source: { offchainId: subscribed[i]!.account.offchainId },
              destination: { onchainId: subscribed[i]!.sender.address },
              value: { lamports: String(10_000 + n) },
            },
          },
          key,
          (_: Attempt) => {},
        );
        const signature = system.registry.writes[key]?.signature;
        if (outcome.type === 'landed' && signature) writes.push({ client: i, key, signature, dropped: false });
      }
      const dropped = new Set(await dropUnfinalizedBlocks(nodeUrl()));
      for (const w of writes) w.dropped = dropped.has(w.signature);
      made.push(...writes);
      return `fork: the node dropped ${dropped.size} transactions above the finalized slot, ${writes.filter((w) => w.dropped).length} of them the ${writes.length} writes answered CONFIRMED just before`;
    } finally {
      gate.open();
    }
  };
}

/** Every write a fork dropped ends FAILED with an errorMessage (its balances: network-events.ts's comparison). */
export async function forkChecks(clients: CheckedClient[], made: ForkWrite[]): Promise<FinalResult> {
  const dropped = made.filter((w) => w.dropped);
  const giveUpAt = Date.now() + SETTLE_MS;
  let open: string[] = [];
  do {
    if (open.length) await sleep(2000);
    open = [];
    for (const w of dropped) {
      const { system } = clients[w.client]!;
      const answer = await system.client.read('/api/v1/transactions/single', {
        itemData: { transaction: { offchainId: system.registry.writes[w.key]!.offchainId } },
      });
      const record = answer.body;
      if (answer.status !== 200 || record?.status !== 'FAILED' || !record?.errorMessage)
        open.push(`client ${w.client}: ${w.key} (${w.signature}) ${answer.status} ${record?.status} ${JSON.stringify(record?.errorMessage ?? null)}`);
    }
  } while (open.length && Date.now() < giveUpAt);
  const ok = open.length === 0;
  return {
    lines: [
      `${ok ? 'ok    ' : 'BREACH'} every write that left the chain in a fork ended FAILED with an errorMessage (${dropped.length} of the ${made.length} writes made for the forks; their balances restored: the offchain = chain check)`,
    ],
    divergences: ok ? [] : [{ client: -1, seq: Infinity, objects: ['fork'], what: `writes that left the chain: ${open.slice(0, 10).join('; ')}` }],
  };
}
