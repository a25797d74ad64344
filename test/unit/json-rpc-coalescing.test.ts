/**
 * The JSON-RPC network's shared reads (issue 25): concurrent getSignatureStatus calls of one tick
 * become one getSignatureStatuses request (256 signatures at most), and concurrent getSlot,
 * getBlockHeight and getLatestBlockhash at one commitment one request; a later tick always asks
 * again. A counting JSON-RPC server stands in for the node.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJsonRpcNetwork } from '../../src/network/json-rpc-network';
import type { SvmNetwork } from '../../src/network/svm-network';

/** Every request the server took: its method and params. */
let requests: { method: string; params: unknown[] }[] = [];
/** While set, every request is answered with this JSON-RPC error. */
let failing: string | null = null;
let server: http.Server;
let network: SvmNetwork;

const SIGNATURE_A = '5'.repeat(88);
/** Base58 digits standing for 0–9: a signature ends with its number. */
const DIGITS = 'ABCDEFGHJK';
/** Distinct valid base58 signatures (64 bytes), the i-th ending with i. */
const signatures = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${'4'.repeat(80)}${String(i)
        .padStart(8, '0')
        .replace(/\d/g, (d) => DIGITS[Number(d)])}`,
  );
const numberOf = (sig: string) => Number(sig.slice(-8).replace(/./g, (c) => String(DIGITS.indexOf(c))));

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { id, method, params } = JSON.parse(Buffer.concat(chunks).toString());
    requests.push({ method, params });
    const slot = requests.length; // a new value for every request
    const result =
      method === 'getSignatureStatuses'
        ? {
            context: { slot },
            // Odd signatures unknown; an even one's confirmations are its number.
            value: (params[0] as string[]).map((sig) =>
              numberOf(sig) % 2 ? null : { slot, confirmations: numberOf(sig), confirmationStatus: 'confirmed', err: null },
            ),
          }
        : method === 'getLatestBlockhash'
          ? { context: { slot }, value: { blockhash: SIGNATURE_A.slice(0, 44), lastValidBlockHeight: slot + 150 } }
          : slot;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(failing ? { jsonrpc: '2.0', id, error: { code: -32005, message: failing } } : { jsonrpc: '2.0', id, result }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  network = createJsonRpcNetwork('TEST', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = [];
  failing = null;
});

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('getSignatureStatus', () => {
  it('makes one getSignatureStatuses request for the calls of one tick, each caller getting its own status', async () => {
    const sigs = signatures(40);
    const statuses = await Promise.all(
      sigs.map(async (sig, i) => {
        for (let n = 0; n < i % 4; n++) await Promise.resolve();
        return network.getSignatureStatus(sig);
      }),
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'getSignatureStatuses', params: [expect.any(Array), { searchTransactionHistory: true }] });
    expect([...(requests[0].params[0] as string[])].sort()).toEqual(sigs);
    expect(statuses.map((s) => s?.confirmations ?? null)).toEqual(sigs.map((_, i) => (i % 2 ? null : i)));
  });

  it('splits more than 256 signatures into requests of at most 256', async () => {
    const sigs = signatures(300);
    await Promise.all(sigs.map((sig) => network.getSignatureStatus(sig)));
    expect(requests.map((r) => (r.params[0] as string[]).length)).toEqual([256, 44]);
    expect(requests.flatMap((r) => r.params[0] as string[]).sort()).toEqual(sigs);
  });

  it("gives the request's error to every caller", async () => {
    failing = 'node is behind';
    const outcomes = await Promise.allSettled(signatures(3).map((sig) => network.getSignatureStatus(sig)));
    expect(requests).toHaveLength(1);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const [reason] = outcomes.map((o) => (o as PromiseRejectedResult).reason);
    expect(reason).toBeInstanceOf(Error);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toBe(reason);
  });

  it('asks again in a later tick, even while the earlier request is in flight', async () => {
    const [sig] = signatures(1);
    const first = network.getSignatureStatus(sig);
    await nextTick();
    const second = network.getSignatureStatus(sig);
    const [a, b] = await Promise.all([first, second]);
    expect(requests).toHaveLength(2);
    expect(a!.slot).not.toEqual(b!.slot);
    expect(await network.getSignatureStatus(sig)).toMatchObject({ slot: 3n });
  });
});

describe('getSlot, getBlockHeight, getLatestBlockhash', () => {
  it('share one request per commitment among the calls of one tick, however many awaits each caller made before', async () => {
    // Callers woken together (confirm loops on one poll-clock wake-up) reach the read after different numbers of awaits.
    const after = async <T>(awaits: number, read: () => Promise<T>) => {
      for (let i = 0; i < awaits; i++) await Promise.resolve();
      return read();
    };
    const [slots, heights, hashes] = await Promise.all([
      Promise.all([
        after(0, () => network.getSlot('confirmed')),
        after(3, () => network.getSlot('confirmed')),
        after(1, () => network.getSlot('finalized')),
        after(5, () => network.getSlot()),
      ]),
      Promise.all([after(0, () => network.getBlockHeight('finalized')), after(2, () => network.getBlockHeight('finalized'))]),
      Promise.all([after(1, () => network.getLatestBlockhash('confirmed')), after(4, () => network.getLatestBlockhash())]),
    ]);
    // kit leaves out the node's default commitment (finalized).
    const asked = requests.map((r) => `${r.method} ${(r.params[0] as { commitment?: string } | undefined)?.commitment ?? 'finalized'}`).sort();
    expect(asked).toEqual(['getBlockHeight finalized', 'getLatestBlockhash confirmed', 'getSlot confirmed', 'getSlot finalized']);
    expect(new Set([slots[0], slots[1], slots[3]]).size).toBe(1);
    expect(slots[2]).not.toEqual(slots[0]);
    expect(heights[0]).toEqual(heights[1]);
    expect(hashes[0]).toEqual(hashes[1]);
  });

  it('never answer a later tick with an earlier value', async () => {
    const first = await network.getSlot('confirmed');
    const inFlight = network.getBlockHeight('finalized');
    await nextTick();
    const [height, later] = await Promise.all([inFlight, network.getBlockHeight('finalized')]);
    expect(await network.getSlot('confirmed')).not.toEqual(first);
    expect(later).not.toEqual(height);
    expect(requests).toHaveLength(4);
  });

  it("give a read's error to every caller of the tick", async () => {
    failing = 'node is behind';
    const outcomes = await Promise.allSettled([network.getSlot('confirmed'), network.getSlot('confirmed')]);
    expect(requests).toHaveLength(1);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe((outcomes[1] as PromiseRejectedResult).reason);
  });
});
