/**
 * A JSON-RPC proxy in front of the local node, for the fault tests: it can hold the answer of a
 * `sendTransaction` the node already took (so a worker can be killed after the network accepted the
 * bytes but before it heard so), and it can make the node unreachable for a while (connections
 * reset). Everything else is passed through unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  url: string;
  /** Holds the answer of the next sendTransaction after the node took it; resolves when one is held. */
  holdNextSend(): Promise<void>;
  /** Answers the held sendTransaction (if its caller is still there). */
  releaseHeld(): void;
  /** While true, every request's connection is reset: the node is unreachable. */
  setUnreachable(unreachable: boolean): void;
  /** How many sendTransaction calls reached the node. */
  readonly sends: number;
  /** How many requests were cut while unreachable. */
  readonly refused: number;
  /** Every request passed to the node, in arrival order: its JSON-RPC method (methods joined by "," for a batch). */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let unreachable = false;
  let sends = 0;
  let refused = 0;
  const requests: string[] = [];
  let holding: { reached: () => void } | null = null;
  const held: (() => void)[] = [];
  const server = http.createServer(async (req, res) => {
    if (unreachable) {
      refused++;
      return req.socket.destroy();
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const isSend = /"method"\s*:\s*"sendTransaction"/.test(body);
    requests.push([...body.matchAll(/"method"\s*:\s*"(\w+)"/g)].map((m) => m[1]).join(','));
    let answer: Response;
    try {
      answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch {
      return req.socket.destroy();
    }
    const text = await answer.text();
    const respond = () => {
      if (!res.writableEnded && !req.socket.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    };
    if (isSend) sends++;
    if (isSend && holding) {
      const { reached } = holding;
      holding = null;
      held.push(respond);
      reached();
      return;
    }
    respond();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holdNextSend: () => new Promise<void>((resolve) => (holding = { reached: resolve })),
    releaseHeld: () => held.splice(0).forEach((respond) => respond()),
    setUnreachable: (value) => {
      unreachable = value;
      if (value) server.closeAllConnections();
    },
    get sends() {
      return sends;
    },
    get refused() {
      return refused;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
