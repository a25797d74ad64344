/**
 * The PubSub WebSocket endpoint (the RPC port + 1, as on a cluster): JSON-RPC 2.0 frames in,
 * subscribe/unsubscribe answers and notifications out, over the `ws` package.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { parseJson, stringifyJson } from './json-codec';
import type { NotificationSink, PubSubSubscriptions } from './pubsub-subscriptions';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError } from './rpc-errors';

export interface PubSubEndpoint {
  port: number;
  /** Open connections (for tests and logs). */
  readonly connections: number;
  close(): Promise<void>;
}

type RequestId = string | number | bigint | null;

const MAX_MESSAGE_BYTES = 1024 * 1024;

function errorFrame(id: RequestId, error: RpcError) {
  return { jsonrpc: '2.0', error: { code: error.code, message: error.message }, id };
}

export function servePubSub(host: string, port: number, subscriptions: PubSubSubscriptions, log: (message: string) => void): Promise<PubSubEndpoint> {
  const server = new WebSocketServer({ host, port, maxPayload: MAX_MESSAGE_BYTES });

  server.on('connection', (socket: WebSocket) => {
    const sink: NotificationSink = {
      notify: (method, subscription, result) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(stringifyJson({ jsonrpc: '2.0', method, params: { result, subscription } }));
      },
    };
    const send = (frame: unknown) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(stringifyJson(frame));
    };

    /** Answers one request; returns what to run once the answer is on the wire (an early notification). */
    const call = (request: unknown): { frame: unknown; then?: () => void } | null => {
      if (typeof request !== 'object' || request === null || Array.isArray(request))
        return { frame: errorFrame(null, new RpcError(INVALID_REQUEST, 'Invalid request')) };
      const { jsonrpc, method, params, id } = request as Record<string, unknown>;
      const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint';
      const responseId = (validId ? (id ?? null) : null) as RequestId;
      if (jsonrpc !== '2.0' || typeof method !== 'string' || !validId)
        return { frame: errorFrame(responseId, new RpcError(INVALID_REQUEST, 'Invalid request')) };
      // Notifications (clients' keep-alive `ping`) get no answer.
      if (id === undefined) return null;
      try {
        if (params !== undefined && params !== null && !Array.isArray(params))
          throw new RpcError(INVALID_PARAMS, 'Invalid params: invalid type: map, expected a sequence.');
        const list = (params as unknown[] | undefined) ?? [];
        if (subscriptions.isSubscribe(method)) {
          const { id: subscription, then } = subscriptions.subscribe(method, list, sink);
          return { frame: { jsonrpc: '2.0', result: subscription, id: responseId }, then };
        }
        if (subscriptions.isUnsubscribe(method)) return { frame: { jsonrpc: '2.0', result: subscriptions.unsubscribe(method, list, sink), id: responseId } };
        throw new RpcError(METHOD_NOT_FOUND, 'Method not found');
      } catch (error) {
        if (error instanceof RpcError) return { frame: errorFrame(responseId, error) };
        log(`local node: ${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        return { frame: errorFrame(responseId, new RpcError(INTERNAL_ERROR, 'Internal error')) };
      }
    };

    socket.on('message', (data, isBinary) => {
      let request: unknown;
      try {
        request = parseJson(isBinary ? Buffer.from(data as Buffer).toString('utf8') : String(data));
      } catch {
        send(errorFrame(null, new RpcError(PARSE_ERROR, 'Parse error')));
        return;
      }
      if (Array.isArray(request)) {
        const answers = request.map(call).filter((answer) => answer !== null);
        if (answers.length > 0) send(answers.map((answer) => answer.frame));
        answers.forEach((answer) => answer.then?.());
        return;
      }
      const answer = call(request);
      if (!answer) return;
      send(answer.frame);
      answer.then?.();
    });
    socket.on('close', () => subscriptions.dropSink(sink));
    socket.on('error', () => socket.terminate());
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      server.on('error', (error) => log(`local node: PubSub server error: ${error.message}`));
      resolve({
        port: (server.address() as AddressInfo).port,
        get connections() {
          return server.clients.size;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const client of server.clients) client.terminate();
            server.close(() => done());
          }),
      });
    });
  });
}
