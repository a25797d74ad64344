/** A small seeded random source (mulberry32): a run's choices repeat with its seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  /** A bigint in [low, high] (a span below 2^53). */
  big(low: bigint, high: bigint): bigint {
    return low + BigInt(Math.floor(this.next() * Number(high - low + 1n)));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from nothing');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the entries, with probability proportional to its weight (entries of weight 0 never). */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [item, weight] of entries) {
      if (weight <= 0) continue;
      if ((at -= weight) < 0) return item;
    }
    return entries.filter(([, weight]) => weight > 0).at(-1)![0];
  }

  /** A separate stream for one part of the run (a client, the faults), so its choices do not depend on the others'. */
  fork(salt: number): Random {
    return new Random(Math.imul(this.state ^ 0x9e3779b9, 31) + Math.imul(salt + 1, 0x85ebca6b));
  }
}
