/**
 * The local node's PubSub WebSocket API (RPC port + 1), spoken raw over `ws` so the cluster's
 * exact frames are checked: each subscription kind fires with its shape at its commitment
 * (processed on landing, confirmed when the block closes, finalized FINALITY_DEPTH blocks
 * later), and unsubscribing stops it. Blocks are held with pauseBlocks/advanceSlots.
 */
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { WebSocket } from 'ws';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { FINALITY_DEPTH } from '../../dev/local-node/chain';
import { waitFor } from '../support/wait';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

interface Frame {
  jsonrpc: '2.0';
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { result: unknown; subscription: number };
}

/** A raw PubSub client: requests by id, notifications kept per subscription in arrival order. */
class PubSubClient {
  private nextId = 1;
  readonly frames: Frame[] = [];
  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(String(data)) as Frame));
  }

  static async open(url: string): Promise<PubSubClient> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new PubSubClient(socket);
  }

  async call(method: string, params: unknown[] = []): Promise<Frame> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return waitFor(async () => this.frames.find((frame) => frame.id === id));
  }

  async subscribe(method: string, params: unknown[] = []): Promise<number> {
    const frame = await this.call(method, params);
    expect(frame.error).toBeUndefined();
    return frame.result as number;
  }

  notifications(subscription: number): Frame[] {
    return this.frames.filter((frame) => frame.params?.subscription === subscription);
  }

  async notification(subscription: number, count = 1): Promise<Frame> {
    return waitFor(async () => this.notifications(subscription)[count - 1]);
  }

  close(): void {
    this.socket.close();
  }
}

let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let resume: () => void;
let client: PubSubClient;
let payer: KeyPairSigner;

/** A signed transfer not yet sent, and its signature. */
async function transfer(to: Address, amount: bigint) {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination: to, amount })], m),
    ),
  );
  return {
    signature: getSignatureFromTransaction(transaction),
    send: () => rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send(),
  };
}

const processedSlot = async () => Number(await rpc.getSlot({ commitment: 'processed' }).send());

beforeAll(async () => {
  node = await startLocalNode({ port: 0 });
  resume = node.pauseBlocks();
  rpc = createSolanaRpc(node.url);
  payer = await generateKeyPairSigner();
  await rpc.requestAirdrop(payer.address, lamports(10_000_000_000n)).send();
  node.advanceSlots(2);
  client = await PubSubClient.open(node.wsUrl);
});

afterAll(async () => {
  client?.close();
  resume?.();
  await node?.close();
});

it('listens on the RPC port + 1', () => {
  expect(node.wsUrl).toBe(`ws://127.0.0.1:${node.port + 1}`);
});

it('signatureSubscribe: receivedSignature on landing, then the status at the wanted commitment, once', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const { signature, send } = await transfer(recipient, 1_000_000n);
  const confirmed = await client.subscribe('signatureSubscribe', [signature, { commitment: 'confirmed', enableReceivedNotification: true }]);
  const processed = await client.subscribe('signatureSubscribe', [signature, { commitment: 'processed' }]);
  const finalized = await client.subscribe('signatureSubscribe', [signature]);
  const slot = await processedSlot();
  await send();
  expect((await client.notification(confirmed)).params!.result).toEqual({ context: { slot }, value: 'receivedSignature' });
  expect(await client.notification(processed)).toEqual({
    jsonrpc: '2.0',
    method: 'signatureNotification',
    params: { result: { context: { slot }, value: { err: null } }, subscription: processed },
  });
  expect(client.notifications(confirmed)).toHaveLength(1);
  node.advanceSlots(1);
  expect((await client.notification(confirmed, 2)).params!.result).toEqual({ context: { slot }, value: { err: null } });
  node.advanceSlots(FINALITY_DEPTH - 2);
  expect(client.notifications(finalized)).toHaveLength(0);
  node.advanceSlots(1);
  expect((await client.notification(finalized)).params!.result).toEqual({ context: { slot }, value: { err: null } });
  // A signature subscription ends with its notification; a late subscription is answered at once.
  expect((await client.call('signatureUnsubscribe', [finalized])).error).toEqual({ code: -32602, message: 'Invalid subscription id.' });
  const late = await client.subscribe('signatureSubscribe', [signature, { commitment: 'confirmed' }]);
  expect((await client.notification(late)).params!.result).toEqual({ context: { slot }, value: { err: null } });
});

it('accountSubscribe: the account as each commitment sees it, in the requested encoding; unsubscribe stops it', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const processed = await client.subscribe('accountSubscribe', [recipient, { commitment: 'processed', encoding: 'base64' }]);
  const confirmed = await client.subscribe('accountSubscribe', [recipient, { commitment: 'confirmed', encoding: 'jsonParsed' }]);
  const finalized = await client.subscribe('accountSubscribe', [recipient, { encoding: 'base64' }]);
  const slot = await processedSlot();
  await (await transfer(recipient, 2_000_000n)).send();
  const account = { lamports: 2_000_000, owner: SYSTEM_PROGRAM, data: ['', 'base64'], executable: false, rentEpoch: 18446744073709551615, space: 0 };
  expect(await client.notification(processed)).toEqual({
    jsonrpc: '2.0',
    method: 'accountNotification',
    params: { result: { context: { slot }, value: account }, subscription: processed },
  });
  node.advanceSlots(1);
  // jsonParsed falls back to base64 for an account without a parser, as on a cluster.
  expect((await client.notification(confirmed)).params!.result).toEqual({ context: { slot }, value: account });
  // A second write in the next block: the finalized notification of the first block still shows it as that block left it.
  await (await transfer(recipient, 3_000_000n)).send();
  expect((await client.notification(processed, 2)).params!.result).toMatchObject({ context: { slot: slot + 1 }, value: { lamports: 5_000_000 } });
  node.advanceSlots(FINALITY_DEPTH);
  expect((await client.notification(finalized)).params!.result).toEqual({ context: { slot }, value: account });
  expect((await client.notification(finalized, 2)).params!.result).toMatchObject({ context: { slot: slot + 1 }, value: { lamports: 5_000_000 } });

  expect(await client.call('accountUnsubscribe', [processed])).toMatchObject({ result: true });
  expect((await client.call('accountUnsubscribe', [processed])).error).toEqual({ code: -32602, message: 'Invalid subscription id.' });
  expect((await client.notification(confirmed, 2)).params!.result).toMatchObject({ context: { slot: slot + 1 }, value: { lamports: 5_000_000 } });
  await (await transfer(recipient, 1n)).send();
  node.advanceSlots(1);
  await client.notification(confirmed, 3);
  expect(client.notifications(processed)).toHaveLength(2);
});

it('logsSubscribe: all and mentions, with signature, err and logs', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const mentions = await client.subscribe('logsSubscribe', [{ mentions: [recipient] }, { commitment: 'processed' }]);
  const all = await client.subscribe('logsSubscribe', ['all', { commitment: 'confirmed' }]);
  const withVotes = await client.subscribe('logsSubscribe', ['allWithVotes', { commitment: 'processed' }]);
  expect((await client.call('logsSubscribe', [{ mentions: [recipient, SYSTEM_PROGRAM] }])).error).toEqual({
    code: -32600,
    message: 'Invalid Request: Only 1 address supported',
  });
  const slot = await processedSlot();
  const other = await transfer((await generateKeyPairSigner()).address, 1_000_000n);
  await other.send();
  const { signature, send } = await transfer(recipient, 1_000_000n);
  await send();
  const logs = ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success'];
  expect(await client.notification(mentions)).toEqual({
    jsonrpc: '2.0',
    method: 'logsNotification',
    params: { result: { context: { slot }, value: { signature, err: null, logs } }, subscription: mentions },
  });
  expect(client.notifications(mentions)).toHaveLength(1);
  await client.notification(withVotes, 2);
  expect(client.notifications(all)).toHaveLength(0);
  node.advanceSlots(1);
  const confirmed = await client.notification(all, 2);
  expect(client.notifications(all).map((frame) => (frame.params!.result as { value: { signature: string } }).value.signature)).toEqual([
    other.signature,
    signature,
  ]);
  expect(confirmed.params!.result).toEqual({ context: { slot }, value: { signature, err: null, logs } });
  expect(await client.call('logsUnsubscribe', [all])).toMatchObject({ result: true });
  expect(await client.call('logsUnsubscribe', [withVotes])).toMatchObject({ result: true });
  expect(await client.call('logsUnsubscribe', [mentions])).toMatchObject({ result: true });
});

it('programSubscribe: accounts the program owns, through dataSize and memcmp filters, in the requested encoding', async () => {
  const recipient = await generateKeyPairSigner();
  const matching = await client.subscribe('programSubscribe', [SYSTEM_PROGRAM, { commitment: 'processed', encoding: 'base64', filters: [{ dataSize: 0 }] }]);
  const none = await client.subscribe('programSubscribe', [SYSTEM_PROGRAM, { commitment: 'processed', encoding: 'base64', filters: [{ dataSize: 1 }] }]);
  const memcmp = await client.subscribe('programSubscribe', [SYSTEM_PROGRAM, { commitment: 'processed', filters: [{ memcmp: { offset: 0, bytes: '2' } }] }]);
  const slot = await processedSlot();
  await (await transfer(recipient.address, 1_000_000n)).send();
  const frames = await waitFor(async () => {
    const found = client.notifications(matching);
    return found.length >= 2 ? found : undefined;
  });
  // The payer and the recipient both changed; both are system accounts without data.
  const values = frames.map(
    (frame) => frame.params!.result as { context: { slot: number }; value: { pubkey: string; account: { lamports: number; data: unknown } } },
  );
  expect(values.map((value) => value.value.pubkey).sort()).toEqual([payer.address, recipient.address].sort());
  expect(values.find((value) => value.value.pubkey === recipient.address)).toEqual({
    context: { slot },
    value: {
      pubkey: recipient.address,
      account: { lamports: 1_000_000, owner: SYSTEM_PROGRAM, data: ['', 'base64'], executable: false, rentEpoch: 18446744073709551615, space: 0 },
    },
  });
  expect(frames[0].method).toBe('programNotification');
  expect(client.notifications(none)).toHaveLength(0);
  expect(client.notifications(memcmp)).toHaveLength(0);
  expect(await client.call('programUnsubscribe', [matching])).toMatchObject({ result: true });
  expect(await client.call('programUnsubscribe', [none])).toMatchObject({ result: true });
  expect(await client.call('programUnsubscribe', [memcmp])).toMatchObject({ result: true });
});

it('slotSubscribe and rootSubscribe: each new slot with its parent and root, and each new root', async () => {
  const slots = await client.subscribe('slotSubscribe');
  const roots = await client.subscribe('rootSubscribe');
  const before = await processedSlot();
  node.advanceSlots(2);
  expect(await client.notification(slots, 2)).toEqual({
    jsonrpc: '2.0',
    method: 'slotNotification',
    params: { result: { parent: before + 1, root: before + 2 - FINALITY_DEPTH, slot: before + 2 }, subscription: slots },
  });
  expect((await client.notification(roots, 2)).params!.result).toBe(before + 2 - FINALITY_DEPTH);
  expect(Number(await rpc.getSlot({ commitment: 'finalized' }).send())).toBe(before + 2 - FINALITY_DEPTH);
  expect(await client.call('slotUnsubscribe', [slots])).toMatchObject({ result: true });
  expect(await client.call('rootUnsubscribe', [roots])).toMatchObject({ result: true });
  const watcher = await client.subscribe('rootSubscribe');
  node.advanceSlots(1);
  await client.notification(watcher);
  expect(client.notifications(slots)).toHaveLength(2);
  expect(client.notifications(roots)).toHaveLength(2);
});

it('answers unknown methods and bad params as JSON-RPC errors, and ignores notifications (keep-alive pings)', async () => {
  expect((await client.call('blockSubscribe', ['all'])).error).toMatchObject({ code: -32601 });
  expect((await client.call('accountSubscribe', ['not-an-address'])).error).toMatchObject({ code: -32602 });
  const framesBefore = client.frames.length;
  await new Promise<void>((resolve) => {
    // A notification has no id and gets no answer; the next call's answer is the next frame.
    (client as unknown as { socket: WebSocket }).socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' }), () => resolve());
  });
  await client.call('slotUnsubscribe', [999_999]);
  expect(client.frames.length).toBe(framesBefore + 1);
});

it('a dropped fork: finalized subscriptions never announce its transactions or what they wrote', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const { signature, send } = await transfer(recipient, 1_000_000n);
  const account = await client.subscribe('accountSubscribe', [recipient, { encoding: 'base64' }]);
  const status = await client.subscribe('signatureSubscribe', [signature]);
  await send();
  node.advanceSlots(1);
  expect(node.dropUnfinalizedBlocks()).toContain(signature);
  node.advanceSlots(FINALITY_DEPTH + 1);
  // The answer to a later call comes after every notification sent before it on this socket.
  await client.call('slotUnsubscribe', [999_999]);
  expect(client.notifications(account)).toHaveLength(0);
  expect(client.notifications(status)).toHaveLength(0);
});
