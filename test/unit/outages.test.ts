/** What the API takes for an outage of a service it needs (503 with Retry-After) rather than a fault of its own (500): src/client/outages.ts. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { address, createSolanaRpc } from '@solana/kit';
import { isOutage } from '../../src/client/outages';

/** The error a JSON-RPC read of a node at `url` throws. */
async function rpcError(url: string): Promise<unknown> {
  try {
    await createSolanaRpc(url).getAccountInfo(address('11111111111111111111111111111111')).send();
  } catch (error) {
    return error;
  }
  throw new Error('the read answered');
}

it('takes a node that died in the middle of a request ("other side closed") for an outage, as one that refuses connections', async () => {
  const server = http.createServer((request) => request.socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const closed = await rpcError(url);
    expect((closed as { cause?: { code?: string } }).cause?.code).toBe('UND_ERR_SOCKET');
    expect(isOutage(closed)).toBe(true);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  expect(isOutage(await rpcError(url))).toBe(true);
});

it('takes a lost PostgreSQL connection for an outage, and a plain error for a fault', () => {
  expect(isOutage(new Error('wrapped', { cause: new Error('Connection terminated unexpectedly') }))).toBe(true);
  expect(isOutage(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
  expect(isOutage(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
});

it('takes a Temporal call whose connection broke under it ("transport error", whatever its status) for an outage', () => {
  const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  // As the client wraps it: "Workflow Update Poll failed", caused by the call's error.
  expect(isOutage(new Error('Workflow Update Poll failed', { cause: grpc(2, 'transport error') }))).toBe(true);
  expect(isOutage(grpc(14, 'tcp connect error'))).toBe(true);
  expect(isOutage(grpc(3, 'invalid argument'))).toBe(false);
});
