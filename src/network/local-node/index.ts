/**
 * A local SVM node: LiteSVM behind Solana's JSON-RPC over HTTP, with blocks, confirmation
 * levels and persistence that make unmodified kit clients behave as against a cluster.
 */
import { serveJsonRpc } from './http-server';
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
}

export interface LocalNode {
  url: string;
  port: number;
  /** Stops block production and the server, then saves state. */
  close(): Promise<void>;
}

export async function startLocalNode(options: LocalNodeOptions = {}): Promise<LocalNode> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const runtime = NodeRuntime.open({ dataDir: options.dataDir, log });
  const dispatcher = new RpcDispatcher(runtime, log);
  let endpoint;
  try {
    endpoint = await serveJsonRpc(host, options.port ?? 0, (body) => dispatcher.handle(body));
  } catch (error) {
    runtime.close();
    throw error;
  }
  const ticker = startTicker(options.blockTimeMs ?? 400, () => runtime.tick(), log);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${endpoint.port}`;
  log(`local node: listening on ${url}`);
  let closing: Promise<void> | null = null;
  return {
    url,
    port: endpoint.port,
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
