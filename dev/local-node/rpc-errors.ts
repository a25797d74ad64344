/** JSON-RPC errors with the codes and messages a Solana RPC node uses. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
export const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const BLOCK_CLEANED_UP = -32001;
export const BLOCK_NOT_AVAILABLE = -32004;
export const UNSUPPORTED_TRANSACTION_VERSION = -32015;
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

export const invalidParams = (message: string) => new RpcError(INVALID_PARAMS, message);
