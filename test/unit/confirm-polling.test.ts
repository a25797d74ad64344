/**
 * Confirm polling (issue 25): the confirm loops of a process wake on one shared clock (poll-clock.ts),
 * so writes waiting at once share each getSignatureStatuses request instead of sending one each.
 * A counting JSON-RPC server stands in for the node; the real JSON-RPC network is used.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJsonRpcNetwork } from '../../src/network/json-rpc-network';
import { createConfirm } from '../../src/activities/pipeline/confirm.activity';
import { nextPoll } from '../../src/activities/pipeline/poll-clock';
import type { PipelineContext } from '../../src/activities/pipeline/context';
import type { BuiltTransaction, WriteRequest } from '../../src/domain/write';

describe('the poll clock', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('wakes every loop that waits for the same grid point with one timer', async () => {
    const first = nextPoll(50); // at +50
    jest.advanceTimersByTime(20);
    const joined = nextPoll(25); // +45 rounds up to the same point
    const later = nextPoll(40); // +60 rounds up to the next one
    expect(joined).toBe(first);
    expect(later).not.toBe(first);
    let woken = false;
    void first.then(() => (woken = true));
    await jest.advanceTimersByTimeAsync(29);
    expect(woken).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(woken).toBe(true);
  });
});

describe('confirm', () => {
  const WRITES = 20;
  /** The signatures of every getSignatureStatuses request the node took. */
  const requests: string[][] = [];
  let server: http.Server;
  let ctx: PipelineContext;

  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { id, method, params } = JSON.parse(Buffer.concat(chunks).toString());
      if (method !== 'getSignatureStatuses') throw new Error(`unexpected ${method}`);
      requests.push(params[0]);
      // A signature is processed at its first poll and confirmed at its second.
      const polls = (sig: string) => requests.filter((r) => r.includes(sig)).length;
      const value = (params[0] as string[]).map((sig) => ({
        slot: 7,
        confirmations: 1,
        confirmationStatus: polls(sig) >= 2 ? 'confirmed' : 'processed',
        err: null,
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { context: { slot: 7 }, value } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const network = createJsonRpcNetwork('TEST', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    ctx = { network: () => network, lifetime: () => ({ isOver: async () => false }) } as unknown as PipelineContext;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('polls the signatures of writes waiting at once in shared requests', async () => {
    const confirm = createConfirm(ctx);
    const built = { lifetime: { kind: 'BLOCKHASH', blockhash: '1'.repeat(32), lastValidBlockHeight: '100' } } as BuiltTransaction;
    const signature = (i: number) => `${'5'.repeat(86)}${'ABCDEFGHJKLMNPQRSTUV'[i]}1`;
    // Writes reach confirm one after another over 40 ms, as a worker's do.
    const outcomes: Promise<unknown>[] = [];
    for (let i = 0; i < WRITES; i++) {
      outcomes.push(confirm({ cluster: 'TEST', commitment: 'confirmed' } as WriteRequest, { signature: signature(i), wireBase64: '' }, built));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await Promise.all(outcomes)).toEqual(Array.from({ length: WRITES }, () => ({ status: 'CONFIRMED', slot: '7', confirmations: 1 })));
    // Each write polled twice (processed, then confirmed): 40 requests if each polled on its own.
    expect(requests.flat()).toHaveLength(2 * WRITES);
    expect(requests.length).toBeLessThanOrEqual(6);
  });
});
