/** Pieces shared by the JSON-RPC method handlers. */
import type { NodeRuntime } from './runtime';

/** A handler gets the positional params and the node; it returns the `result` or throws an RpcError. */
export type RpcHandler = (params: unknown[], node: NodeRuntime) => unknown;

/** Reported in every context, like the `apiVersion` of an Agave node. */
export const API_VERSION = '3.0.0';

/** The `{context: {slot}, value}` envelope of Solana's "with context" methods. */
export function withContext(slot: number, value: unknown) {
  return { context: { apiVersion: API_VERSION, slot }, value };
}

/** Where the node listens, for getClusterNodes (the runtime itself does not know). */
export interface NodeEndpoints {
  rpc: string;
  pubsub: string;
}

const endpoints = new WeakMap<NodeRuntime, NodeEndpoints>();

export function setNodeEndpoints(node: NodeRuntime, value: NodeEndpoints): void {
  endpoints.set(node, value);
}

export function nodeEndpoints(node: NodeRuntime): NodeEndpoints | null {
  return endpoints.get(node) ?? null;
}
