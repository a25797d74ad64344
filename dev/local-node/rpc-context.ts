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
