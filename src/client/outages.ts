/**
 * Whether an error the API met is an outage of a service it needs (PostgreSQL, Temporal, the node) rather than
 * a fault of its own: such a request is answered 503 UNAVAILABLE with Retry-After, never 500
 * (docs/outages.md). Recognised by the errors' own types and codes, looked up through `cause` chains.
 * Kept below HTTP, beside the write client, because telling Temporal's errors apart needs its client library.
 */
import { ConnectionException } from '@mikro-orm/core';
import { isGrpcServiceError } from '@temporalio/client';

/**
 * Socket errors of a peer that is down or unreachable; with undici's (fetch: the SVM node over
 * JSON-RPC) for a peer that died or stalled mid-request ("other side closed", timeouts).
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** PostgreSQL's SQLSTATEs of a server going away or not taking connections (class 08, 57P01–57P03, 53300). */
const POSTGRES_CODES = /^(08\d{3}|57P0[123]|53300)$/;
/** node-postgres and its pool say so in words only. */
const POSTGRES_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Cannot use a pool after calling end/i;
/** gRPC UNAVAILABLE, DEADLINE_EXCEEDED: the Temporal server is down, restarting or overloaded. */
const GRPC_OUTAGE = new Set([14, 4]);
/** The Temporal client's own words for a connection that broke under a call, whatever status it came with. */
const GRPC_TRANSPORT = /transport error|tcp connect error|connection (reset|refused|closed)|broken pipe/i;

export function isOutage(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    if (isGrpcServiceError(e) && (GRPC_OUTAGE.has(e.code) || GRPC_TRANSPORT.test(e.details))) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
    if (e instanceof Error && POSTGRES_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** What a 503 asks a client to wait before it sends the same request again, when nothing better is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
