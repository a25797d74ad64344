/** JSON-RPC 2.0 framing: single and batch requests, notifications, and error responses. */
import { parseJson, stringifyJson } from './json-codec';
import { accountMethods } from './rpc-account-methods';
import { clusterMethods } from './rpc-cluster-methods';
import { historyMethods } from './rpc-history-methods';
import type { RpcHandler } from './rpc-context';
import { supplyMethods } from './rpc-supply-methods';
import { transactionMethods } from './rpc-transaction-methods';
import { validatorMethods } from './rpc-validator-methods';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError } from './rpc-errors';
import type { NodeRuntime } from './runtime';

const METHODS = new Map<string, RpcHandler>(
  Object.entries({ ...accountMethods, ...clusterMethods, ...historyMethods, ...supplyMethods, ...transactionMethods, ...validatorMethods }),
);

type RequestId = string | number | bigint | null;

interface RpcResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

function errorResponse(id: RequestId, error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) }, id };
}

export class RpcDispatcher {
  private readonly methods = new Map(METHODS);

  constructor(
    private readonly node: NodeRuntime,
    private readonly log: (message: string) => void,
  ) {}

  /** Serves one more method on this node only (the fault controls a harness in another process asks for). */
  addMethod(name: string, handler: RpcHandler): void {
    this.methods.set(name, handler);
  }

  /** Returns null for a request made only of notifications: nothing to answer. */
  handle(body: string): string | null {
    let request: unknown;
    try {
      request = parseJson(body);
    } catch {
      return stringifyJson(errorResponse(null, new RpcError(PARSE_ERROR, 'Parse error')));
    }
    if (Array.isArray(request)) {
      if (request.length === 0) return stringifyJson(errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request')));
      const responses = request.map((entry) => this.call(entry)).filter((response): response is RpcResponse => response !== null);
      return responses.length > 0 ? stringifyJson(responses) : null;
    }
    const response = this.call(request);
    return response ? stringifyJson(response) : null;
  }

  private call(request: unknown): RpcResponse | null {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request'));
    }
    const { jsonrpc, method, params, id } = request as Record<string, unknown>;
    const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint';
    const responseId = (validId ? (id ?? null) : null) as RequestId;
    if (jsonrpc !== '2.0' || typeof method !== 'string' || !validId) return errorResponse(responseId, new RpcError(INVALID_REQUEST, 'Invalid request'));
    const isNotification = id === undefined;
    const handler = this.methods.get(method);
    let response: RpcResponse;
    if (!handler) {
      response = errorResponse(responseId, new RpcError(METHOD_NOT_FOUND, 'Method not found'));
    } else if (params !== undefined && params !== null && !Array.isArray(params)) {
      response = errorResponse(responseId, new RpcError(INVALID_PARAMS, 'Invalid params: invalid type: map, expected a sequence.'));
    } else {
      try {
        response = { jsonrpc: '2.0', result: handler((params as unknown[] | undefined) ?? [], this.node), id: responseId };
      } catch (error) {
        if (error instanceof RpcError) {
          response = errorResponse(responseId, error);
        } else {
          this.log(`local node: ${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          response = errorResponse(responseId, new RpcError(INTERNAL_ERROR, 'Internal error'));
        }
      }
    }
    return isNotification ? null : response;
  }
}
