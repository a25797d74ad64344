/**
 * Solana's PubSub subscriptions over the node's events, with the cluster's notification shapes
 * and commitment rules: `processed` fires when a transaction lands, `confirmed` when its block
 * closes, `finalized` FINALITY_DEPTH blocks later. Transport-free: pubsub-server.ts frames it.
 *
 * A confirmed or finalized account notification must show the account as its block left it, not
 * as it is now; LiteSVM keeps only the latest state, so the post-state of each watched account
 * written in a block is kept until that block is finalized (only while account or program
 * subscriptions exist).
 */
import { Account } from 'litesvm/dist/internal';
import { encodeAccount, readAccountEncoding, readDataSlice, type AccountEncoding, type DataSlice } from './account-encoding';
import { encodeBase58 } from './base58';
import type { BlockInfo, Commitment } from './chain';
import { keyId } from './key-id';
import { readFilter } from './rpc-account-methods';
import { INVALID_REQUEST, invalidParams, RpcError } from './rpc-errors';
import { readAddress, readArray, readBoolean, readCommitment, readConfig, readSignature, readString } from './rpc-params';
import type { NodeRuntime } from './runtime';
import type { TransactionRecord } from './transaction-record';
import { indexEntryOf } from './transaction-store';

/** Where a subscription's notifications go: one client connection. */
export interface NotificationSink {
  notify(method: string, subscription: number, result: unknown): void;
}

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
const MAX_PROGRAM_FILTERS = 4;
const SYSTEM_PROGRAM = new Uint8Array(32);

interface Base {
  id: number;
  sink: NotificationSink;
}
interface AccountSubscription extends Base {
  kind: 'account';
  key: string;
  commitment: Commitment;
  encoding: AccountEncoding;
  slice: DataSlice | null;
}
interface ProgramSubscription extends Base {
  kind: 'program';
  program: string;
  commitment: Commitment;
  encoding: AccountEncoding;
  slice: DataSlice | null;
  filters: ((data: Uint8Array) => boolean)[];
}
interface SignatureSubscription extends Base {
  kind: 'signature';
  signature: string;
  commitment: Commitment;
  received: boolean;
}
interface LogsSubscription extends Base {
  kind: 'logs';
  /** Null: every transaction (the node has no vote transactions, so `all` and `allWithVotes` agree). */
  mentions: string | null;
  commitment: Commitment;
}
interface SlotSubscription extends Base {
  kind: 'slot' | 'root';
}
type Subscription = AccountSubscription | ProgramSubscription | SignatureSubscription | LogsSubscription | SlotSubscription;
type Kind = Subscription['kind'];

const NOTIFICATION: Record<Kind, string> = {
  account: 'accountNotification',
  program: 'programNotification',
  signature: 'signatureNotification',
  logs: 'logsNotification',
  slot: 'slotNotification',
  root: 'rootNotification',
};

const UNSUBSCRIBE: Record<string, Kind> = {
  accountUnsubscribe: 'account',
  programUnsubscribe: 'program',
  signatureUnsubscribe: 'signature',
  logsUnsubscribe: 'logs',
  slotUnsubscribe: 'slot',
  rootUnsubscribe: 'root',
};

/** An account's state at the end of a block; null once closed (shown as an empty system account). */
interface WrittenAccount {
  key: Uint8Array;
  account: Account | null;
}

const context = (slot: number, value: unknown) => ({ context: { slot }, value });

export class PubSubSubscriptions {
  private nextId = 1;
  private readonly byId = new Map<number, Subscription>();
  private readonly accounts = new Map<string, Set<AccountSubscription>>();
  private readonly programs = new Map<string, Set<ProgramSubscription>>();
  private readonly signatures = new Map<string, Set<SignatureSubscription>>();
  private readonly logs = new Set<LogsSubscription>();
  private readonly slots = new Set<SlotSubscription>();
  private readonly roots = new Set<SlotSubscription>();
  /** Post-states of accounts written in blocks not yet finalized, by slot then key id. */
  private readonly written = new Map<number, Map<string, WrittenAccount>>();
  private lastRoot: number;

  constructor(private readonly node: NodeRuntime) {
    this.lastRoot = node.chain.slotAt('finalized');
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * Handles a `*Subscribe` call. Returns the subscription id and, for a signature already at the
   * wanted commitment, a notification to send once the id has been answered.
   */
  subscribe(method: string, params: unknown[], sink: NotificationSink): { id: number; then?: () => void } {
    const id = this.nextId++;
    const subscription = this.parse(method, params, id, sink);
    this.byId.set(id, subscription);
    switch (subscription.kind) {
      case 'account':
        addTo(this.accounts, subscription.key, subscription);
        break;
      case 'program':
        addTo(this.programs, subscription.program, subscription);
        break;
      case 'signature': {
        addTo(this.signatures, subscription.signature, subscription);
        // Landed before the subscription: answer from the status cache, as the transaction will not land again.
        const status = this.node.store.status(subscription.signature);
        if (status && RANK[this.node.chain.commitmentOf(status.slot)] >= RANK[subscription.commitment]) {
          return { id, then: () => this.fireSignature(subscription, status.slot, status.err) };
        }
        break;
      }
      case 'logs':
        this.logs.add(subscription);
        break;
      case 'slot':
        this.slots.add(subscription);
        break;
      case 'root':
        this.roots.add(subscription);
        break;
    }
    return { id };
  }

  /** Handles a `*Unsubscribe` call: true, or Agave's error for an id this client does not hold. */
  unsubscribe(method: string, params: unknown[], sink: NotificationSink): boolean {
    const [raw] = params;
    const subscription = typeof raw === 'number' || typeof raw === 'bigint' ? this.byId.get(Number(raw)) : undefined;
    if (!subscription || subscription.sink !== sink || subscription.kind !== UNSUBSCRIBE[method]) throw invalidParams('Invalid subscription id.');
    this.remove(subscription);
    return true;
  }

  isUnsubscribe(method: string): boolean {
    return method in UNSUBSCRIBE;
  }

  /** A client went away: its subscriptions go with it. */
  dropSink(sink: NotificationSink): void {
    for (const subscription of [...this.byId.values()]) if (subscription.sink === sink) this.remove(subscription);
  }

  private remove(subscription: Subscription): void {
    this.byId.delete(subscription.id);
    switch (subscription.kind) {
      case 'account':
        removeFrom(this.accounts, subscription.key, subscription);
        break;
      case 'program':
        removeFrom(this.programs, subscription.program, subscription);
        break;
      case 'signature':
        removeFrom(this.signatures, subscription.signature, subscription);
        break;
      case 'logs':
        this.logs.delete(subscription);
        break;
      case 'slot':
        this.slots.delete(subscription);
        break;
      case 'root':
        this.roots.delete(subscription);
        break;
    }
  }

  private parse(method: string, params: unknown[], id: number, sink: NotificationSink): Subscription {
    switch (method) {
      case 'accountSubscribe': {
        const key = keyId(readAddress(params[0]));
        const config = readConfig(params[1]);
        return {
          id,
          sink,
          kind: 'account',
          key,
          commitment: readCommitment(config),
          encoding: readAccountEncoding(config, 'binary'),
          slice: readDataSlice(config),
        };
      }
      case 'programSubscribe': {
        const program = keyId(readAddress(params[0]));
        const config = readConfig(params[1]);
        const filters = config.filters === undefined || config.filters === null ? [] : readArray(config.filters, 'filters', MAX_PROGRAM_FILTERS);
        return {
          id,
          sink,
          kind: 'program',
          program,
          commitment: readCommitment(config),
          encoding: readAccountEncoding(config, 'binary'),
          slice: readDataSlice(config),
          filters: filters.map(readFilter),
        };
      }
      case 'signatureSubscribe': {
        const signature = readString(params[0], 'signature');
        readSignature(signature);
        const config = readConfig(params[1]);
        return {
          id,
          sink,
          kind: 'signature',
          signature,
          commitment: readCommitment(config),
          received: readBoolean(config.enableReceivedNotification, 'enableReceivedNotification', false),
        };
      }
      case 'logsSubscribe': {
        const [filter, rawConfig] = params;
        let mentions: string | null = null;
        if (typeof filter === 'object' && filter !== null && 'mentions' in filter) {
          const addresses = readArray((filter as { mentions: unknown }).mentions, 'mentions', Number.MAX_SAFE_INTEGER);
          if (addresses.length !== 1) throw new RpcError(INVALID_REQUEST, 'Invalid Request: Only 1 address supported');
          mentions = keyId(readAddress(addresses[0]));
        } else if (filter !== 'all' && filter !== 'allWithVotes') {
          throw invalidParams('Invalid params: unknown variant; expected `all`, `allWithVotes` or `{"mentions": [<address>]}`.');
        }
        return { id, sink, kind: 'logs', mentions, commitment: readCommitment(readConfig(rawConfig)) };
      }
      case 'slotSubscribe':
        return { id, sink, kind: 'slot' };
      case 'rootSubscribe':
        return { id, sink, kind: 'root' };
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  isSubscribe(method: string): boolean {
    return ['accountSubscribe', 'programSubscribe', 'signatureSubscribe', 'logsSubscribe', 'slotSubscribe', 'rootSubscribe'].includes(method);
  }

  private send(subscription: Subscription, result: unknown): void {
    subscription.sink.notify(NOTIFICATION[subscription.kind], subscription.id, result);
  }

  private fireSignature(subscription: SignatureSubscription, slot: number, err: unknown): void {
    // One notification per subscription: it ends with the status it waited for.
    if (!this.byId.has(subscription.id)) return;
    this.remove(subscription);
    this.send(subscription, context(slot, { err }));
  }

  /** Hook: a transaction has landed in the block in progress (`processed`). */
  transactionLanded(record: TransactionRecord, written: readonly Uint8Array[]): void {
    for (const subscription of this.signatures.get(record.signature) ?? []) {
      if (subscription.received) this.send(subscription, context(record.slot, 'receivedSignature'));
      if (subscription.commitment === 'processed') this.fireSignature(subscription, record.slot, record.err);
    }
    if (this.logs.size > 0) this.notifyLogs(record, 'processed');
    if (this.accounts.size === 0 && this.programs.size === 0) return;
    let inSlot = this.written.get(record.slot);
    if (!inSlot) this.written.set(record.slot, (inSlot = new Map()));
    for (const key of written) {
      const account = this.node.svm.getAccount(key);
      const state: WrittenAccount = { key, account: account && account.lamports() > 0n ? account : null };
      inSlot.set(keyId(key), state);
      this.notifyAccount(state, record.slot, 'processed');
    }
  }

  /** Hook: a block has closed, so it is now confirmed, and the block FINALITY_DEPTH back is finalized. */
  blockClosed(closed: BlockInfo): void {
    this.notifyCommitted(closed.slot, 'confirmed');
    const root = this.node.chain.slotAt('finalized');
    for (let slot = this.lastRoot + 1; slot <= root; slot++) {
      this.notifyCommitted(slot, 'finalized');
      this.written.delete(slot);
    }
    const rootMoved = root > this.lastRoot;
    this.lastRoot = Math.max(this.lastRoot, root);
    for (const subscription of this.slots) this.send(subscription, { parent: closed.slot, root: this.lastRoot, slot: this.node.chain.currentSlot });
    if (rootMoved) for (const subscription of this.roots) this.send(subscription, this.lastRoot);
  }

  /** Hook: a fork dropped every block above the root; what they wrote must never be announced as finalized. */
  blocksDropped(): void {
    for (const slot of [...this.written.keys()]) if (slot > this.lastRoot) this.written.delete(slot);
  }

  private notifyCommitted(slot: number, commitment: Commitment): void {
    if (this.signatures.size > 0 || this.logs.size > 0) {
      for (const entry of this.node.store.index.inSlot(slot)) {
        for (const subscription of this.signatures.get(entry.signature) ?? []) {
          if (subscription.commitment === commitment) this.fireSignature(subscription, slot, entry.err);
        }
        if (this.logs.size > 0) {
          const record = this.node.store.get(entry.signature);
          if (record) this.notifyLogs(record, commitment);
        }
      }
    }
    for (const state of this.written.get(slot)?.values() ?? []) this.notifyAccount(state, slot, commitment);
  }

  private notifyLogs(record: TransactionRecord, commitment: Commitment): void {
    let keys: Set<string> | null = null;
    for (const subscription of this.logs) {
      if (subscription.commitment !== commitment) continue;
      if (subscription.mentions !== null) {
        keys ??= new Set(indexEntryOf(record).accounts.map(keyId));
        if (!keys.has(subscription.mentions)) continue;
      }
      this.send(subscription, context(record.slot, { signature: record.signature, err: record.err, logs: record.logs }));
    }
  }

  private notifyAccount(state: WrittenAccount, slot: number, commitment: Commitment): void {
    const account = state.account ?? new Account(0n, new Uint8Array(0), SYSTEM_PROGRAM, false, 0n);
    for (const subscription of this.accounts.get(keyId(state.key)) ?? []) {
      if (subscription.commitment !== commitment) continue;
      this.send(subscription, context(slot, encodeAccount(account, subscription.encoding, subscription.slice, this.node.readMint)));
    }
    if (!state.account) return;
    const data = account.data();
    for (const subscription of this.programs.get(keyId(account.owner())) ?? []) {
      if (subscription.commitment !== commitment || !subscription.filters.every((matches) => matches(data))) continue;
      const value = { pubkey: encodeBase58(state.key), account: encodeAccount(account, subscription.encoding, subscription.slice, this.node.readMint) };
      this.send(subscription, context(slot, value));
    }
  }
}

function addTo<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function removeFrom<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
