/**
 * Writes waiting for their rest, told by push (docs/write-engine.md, "Answering a write that
 * rests"): a trigger announces a record coming to rest (migration 0057) on WRITE_REST_CHANNEL, and
 * the API process's one listener wakes the requests waiting for that transaction, which then read
 * the record once. After a gap in the listener (announcements may have been lost) every waiting
 * request reads its record once.
 */
import { listen } from '../db/notifications';

/** The channel migration 0057's trigger announces on: `<transaction id> <status>`. */
export const WRITE_REST_CHANNEL = 'ledger_write_rests';

/** One waiting request's look-out for its write's rest. */
export interface RestWaiter {
  /** Resolves once the record is worth reading: at once if it was since the last call, else at the next announcement or gap. */
  next(): Promise<void>;
  /** Worth reading now (the record may already rest, and no announcement will come for it). */
  poke(): void;
  /** Done waiting (answered, or failed): no longer woken. */
  stop(): void;
}

export interface WriteRests {
  /** Wakes on announcements for `transactionId` (with one of `statuses`, if given) and on gaps. Register before the write's run starts. */
  watch(transactionId: string, statuses?: readonly string[]): RestWaiter;
  /** How many requests wait (0 once all are answered: none leaks). */
  waiting(): number;
  close(): Promise<void>;
}

class Waiter implements RestWaiter {
  private due = false;
  private wake?: () => void;

  constructor(
    readonly statuses: readonly string[] | undefined,
    readonly stop: () => void,
  ) {}

  poke(): void {
    this.due = true;
    this.wake?.();
    this.wake = undefined;
  }

  async next(): Promise<void> {
    if (!this.due) await new Promise<void>((resolve) => (this.wake = resolve));
    this.due = false;
  }
}

/** The API process's listener for rests (one per process, on a connection of its own). */
export function createWriteRests(databaseUrl: string, log: (message: string) => void): WriteRests {
  const waiters = new Map<string, Set<Waiter>>();
  const listener = listen(
    databaseUrl,
    WRITE_REST_CHANNEL,
    (payload) => {
      const [id, status] = payload.split(' ');
      for (const waiter of waiters.get(id) ?? []) if (!waiter.statuses || waiter.statuses.includes(status)) waiter.poke();
    },
    () => {
      for (const set of waiters.values()) for (const waiter of set) waiter.poke();
    },
    log,
  );
  return {
    watch(transactionId, statuses) {
      const set = waiters.get(transactionId) ?? new Set<Waiter>();
      waiters.set(transactionId, set);
      const waiter: Waiter = new Waiter(statuses, () => {
        set.delete(waiter);
        if (!set.size && waiters.get(transactionId) === set) waiters.delete(transactionId);
      });
      set.add(waiter);
      return waiter;
    },
    waiting: () => [...waiters.values()].reduce((n, set) => n + set.size, 0),
    close: () => listener.close(),
  };
}
