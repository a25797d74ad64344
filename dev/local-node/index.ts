/**
 * A local SVM node: LiteSVM behind Solana's JSON-RPC over HTTP, with blocks, confirmation
 * levels and persistence that make unmodified kit clients behave as against a cluster.
 */
import { decodeBase58Exact } from './base58';
import { serveJsonRpc } from './http-server';
import type { LocalNodeProgram } from './programs';
import { servePubSub, type PubSubEndpoint } from './pubsub-server';
import { PubSubSubscriptions } from './pubsub-subscriptions';
import { setNodeEndpoints } from './rpc-context';
import { RpcDispatcher } from './rpc-dispatcher';
import { NodeRuntime } from './runtime';
import { startTicker } from './ticker';

export interface LocalNodeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** The JSON-RPC port; PubSub listens on the next one. 0 picks a free pair. Default 0. */
  port?: number;
  /** State survives restarts when given. */
  dataDir?: string;
  /** Default 400 ms, a cluster's slot time. */
  blockTimeMs?: number;
  log?: (message: string) => void;
  /** Programs deployed at each start (not saved with the state); see programs.ts and LOCAL_NODE_PROGRAMS. */
  programs?: LocalNodeProgram[];
  /**
   * Also serves the fault hook over JSON-RPC for harnesses in another process (the chaos checker),
   * as the non-standard method `localNode_dropUnfinalizedBlocks` (no params; answers the dropped
   * signatures, newest first). Off by default: no cluster offers it. LOCAL_NODE_FAULT_CONTROLS=true.
   */
  faultControls?: boolean;
}

/** An account written directly into the node's state (see LocalNode.setAccount). */
export interface LocalNodeAccount {
  address: string;
  /** Owner program address. */
  owner: string;
  data: Uint8Array;
  /** Default: the rent-exempt minimum for the data. */
  lamports?: bigint;
  executable?: boolean;
}

export interface LocalNode {
  url: string;
  port: number;
  /** The PubSub WebSocket endpoint, on `port + 1` as on a cluster. */
  wsUrl: string;
  /**
   * Writes an account outside any transaction (in-process callers only; no RPC method offers
   * this). For state no instruction can create, e.g. a transfer hook's validation account.
   */
  setAccount(account: LocalNodeAccount): void;
  /**
   * Closes `count` blocks at once (in-process callers only; no RPC method offers this): lets a test
   * pass the ~513 slots an address lookup table's deactivation needs before close.
   */
  advanceSlots(count: number): void;
  /**
   * Stops closing blocks until the returned function is called (in-process callers only): a
   * transaction sent meanwhile stays at `processed`, so a test can see what a write does there.
   */
  pauseBlocks(): () => void;
  /**
   * Simulates a fork that abandons every block above the finalized slot (in-process callers only):
   * their transactions are undone and forgotten, their blocks stay empty, the chain goes on. Returns
   * the dropped signatures, newest first. Transactions landed before a restart of the node cannot be dropped.
   */
  dropUnfinalizedBlocks(): string[];
  /** Stops block production and the server, then saves state. */
  close(): Promise<void>;
}

export { programsFromSpec, type LocalNodeProgram } from './programs';

function accountKey(address: string, field: string): Uint8Array {
  const key = decodeBase58Exact(address, 32);
  if (!key) throw new Error(`setAccount: ${field} "${address}" is not a base58 address`);
  return key;
}

const FREE_PORT_PAIR_ATTEMPTS = 20;

/** The HTTP endpoint and the PubSub one on the next port; with port 0, retries until a free pair is found. */
async function listen(host: string, port: number, dispatcher: RpcDispatcher, subscriptions: PubSubSubscriptions, log: (message: string) => void) {
  for (let attempt = 1; ; attempt++) {
    const http = await serveJsonRpc(host, port, (body) => dispatcher.handle(body));
    try {
      if (http.port === 65535) throw Object.assign(new Error('no port after 65535'), { code: 'EADDRINUSE' });
      return { http, pubsub: await servePubSub(host, http.port + 1, subscriptions, log) };
    } catch (error) {
      await http.close();
      const taken = (error as { code?: string }).code === 'EADDRINUSE';
      if (port !== 0 || !taken || attempt >= FREE_PORT_PAIR_ATTEMPTS) throw error;
    }
  }
}

/** Notification code must never fail a transaction or a block. */
function guarded<A extends unknown[]>(what: string, hook: (...args: A) => void, log: (message: string) => void) {
  return (...args: A) => {
    try {
      hook(...args);
    } catch (error) {
      log(`local node: PubSub ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  };
}

export async function startLocalNode(options: LocalNodeOptions = {}): Promise<LocalNode> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const runtime = NodeRuntime.open({ dataDir: options.dataDir, log, programs: options.programs });
  const dispatcher = new RpcDispatcher(runtime, log);
  const subscriptions = new PubSubSubscriptions(runtime);
  let endpoint;
  let pubsub: PubSubEndpoint;
  try {
    ({ http: endpoint, pubsub } = await listen(host, options.port ?? 0, dispatcher, subscriptions, log));
  } catch (error) {
    runtime.close();
    throw error;
  }
  runtime.executor.onLanded = guarded('transaction notification', (record, written) => subscriptions.transactionLanded(record, written), log);
  runtime.onBlockClosed = guarded('block notification', (closed) => subscriptions.blockClosed(closed), log);
  const dropUnfinalizedBlocks = () => {
    const dropped = runtime.dropUnfinalizedBlocks();
    subscriptions.blocksDropped();
    return dropped;
  };
  if (options.faultControls) dispatcher.addMethod('localNode_dropUnfinalizedBlocks', () => dropUnfinalizedBlocks());
  let paused = 0;
  const ticker = startTicker(
    options.blockTimeMs ?? 400,
    () => {
      if (paused === 0) runtime.tick();
    },
    log,
  );
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostInUrl}:${endpoint.port}`;
  const wsUrl = `ws://${hostInUrl}:${pubsub.port}`;
  setNodeEndpoints(runtime, { rpc: url, pubsub: wsUrl });
  log(`local node: listening on ${url} (PubSub ${wsUrl})`);
  let closing: Promise<void> | null = null;
  return {
    url,
    port: endpoint.port,
    wsUrl,
    setAccount: (account) => runtime.setAccount(accountKey(account.address, 'address'), { ...account, owner: accountKey(account.owner, 'owner') }),
    advanceSlots: (count) => {
      for (let i = 0; i < count; i++) runtime.tick();
    },
    dropUnfinalizedBlocks,
    pauseBlocks: () => {
      paused++;
      let resumed = false;
      return () => {
        if (!resumed) paused--;
        resumed = true;
      };
    },
    close: () => {
      closing ??= (async () => {
        ticker.stop();
        await Promise.all([endpoint.close(), pubsub.close()]);
        runtime.close();
      })();
      return closing;
    },
  };
}
