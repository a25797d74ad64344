/**
 * A local SVM node: LiteSVM behind Solana's JSON-RPC over HTTP, with blocks, confirmation
 * levels and persistence that make unmodified kit clients behave as against a cluster.
 */
import { decodeBase58Exact } from './base58';
import { serveJsonRpc } from './http-server';
import type { LocalNodeProgram } from './programs';
import { RpcDispatcher } from './rpc-dispatcher';
import { NodeRuntime } from './runtime';
import { startTicker } from './ticker';

export interface LocalNodeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** State survives restarts when given. */
  dataDir?: string;
  /** Default 400 ms, a cluster's slot time. */
  blockTimeMs?: number;
  log?: (message: string) => void;
  /** Programs deployed at each start (not saved with the state); see programs.ts and LOCAL_NODE_PROGRAMS. */
  programs?: LocalNodeProgram[];
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

export async function startLocalNode(options: LocalNodeOptions = {}): Promise<LocalNode> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const runtime = NodeRuntime.open({ dataDir: options.dataDir, log, programs: options.programs });
  const dispatcher = new RpcDispatcher(runtime, log);
  let endpoint;
  try {
    endpoint = await serveJsonRpc(host, options.port ?? 0, (body) => dispatcher.handle(body));
  } catch (error) {
    runtime.close();
    throw error;
  }
  let paused = 0;
  const ticker = startTicker(
    options.blockTimeMs ?? 400,
    () => {
      if (paused === 0) runtime.tick();
    },
    log,
  );
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${endpoint.port}`;
  log(`local node: listening on ${url}`);
  let closing: Promise<void> | null = null;
  return {
    url,
    port: endpoint.port,
    setAccount: (account) => runtime.setAccount(accountKey(account.address, 'address'), { ...account, owner: accountKey(account.owner, 'owner') }),
    advanceSlots: (count) => {
      for (let i = 0; i < count; i++) runtime.tick();
    },
    dropUnfinalizedBlocks: () => runtime.dropUnfinalizedBlocks(),
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
        await endpoint.close();
        runtime.close();
      })();
      return closing;
    },
  };
}
