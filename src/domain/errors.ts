/**
 * The one error type of the service: a stable string code, a message safe to show a client,
 * the request field at fault (when there is one) and typed context. Codes are never renamed or reused.
 */
export const errorStatus = {
  VALIDATION_ERROR: 400,
  TRANSACTION_TOO_LARGE: 400,
  FREEZE_AUTHORITY_NOT_FOUND: 400,
  INSUFFICIENT_BALANCE: 400,
  POSITION_FROZEN: 400,
  LIMIT_EXCEEDED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  NETWORK_ERROR: 502,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in errorStatus;
}

/** A refusal's code (a 4xx status): the client's answer, never a fault of ours or of a service we need. */
export function isRefusalCode(value: unknown): value is ErrorCode {
  return isErrorCode(value) && errorStatus[value] < 500;
}

export const refusalCodes = Object.keys(errorStatus).filter(isRefusalCode);

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const validationError = (field: string, message: string) => new LedgerError('VALIDATION_ERROR', message, field);
export const notFound = (field: string, message: string) => new LedgerError('NOT_FOUND', message, field);
export const conflict = (field: string, message: string) => new LedgerError('CONFLICT', message, field);
export const forbidden = (message: string, field?: string) => new LedgerError('FORBIDDEN', message, field);
