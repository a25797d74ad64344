/**
 * The recorded history of a run: every operation with its invocation, each attempt's answer, what
 * the model allowed, what was answered and every read compared with the model; and the faults. On a
 * divergence it prints the shortest history that shows it: the diverging client's operations on the
 * diverging objects since the last read where the system and the model agreed on them.
 */
import type { Attempt } from './client';

export interface ReadCheck {
  object: string;
  field: string;
  /** Where the value was read: `api onchain`, `api offchain`, `api`, `chain`. */
  source: string;
  seen: string;
  allowed: string[];
  agree: boolean;
}

export interface Entry {
  seq: number;
  client: number;
  /** Milliseconds since the run started. */
  at: number;
  text: string;
  key?: string;
  objects: string[];
  /** What the model allowed, one line per possible answer. */
  allowed: string[];
  attempts: Attempt[];
  answered?: string;
  reads: ReadCheck[];
  /** When its reads ended (milliseconds since the run started). */
  end?: number;
}

export interface Divergence {
  client: number;
  /** The entry where it showed. */
  seq: number;
  objects: string[];
  what: string;
  /** What the system says about the objects (a transaction's status history), read at the divergence. */
  evidence?: string[];
}

export class History {
  readonly entries: Entry[] = [];
  readonly faults: { at: number; what: string }[] = [];

  constructor(readonly startedAt: number) {}

  begin(client: number, text: string, objects: string[], allowed: string[], key?: string): Entry {
    const entry: Entry = { seq: this.entries.length, client, at: Date.now() - this.startedAt, text, key, objects, allowed, attempts: [], reads: [] };
    this.entries.push(entry);
    return entry;
  }

  /** The entry's reads are over. */
  finish(entry: Entry): void {
    entry.end = Date.now() - this.startedAt;
  }

  fault(what: string): void {
    this.faults.push({ at: Date.now() - this.startedAt, what });
  }

  /**
   * For each diverging object, the last entry of the client before the divergence whose reads of
   * it all agreed (undefined: none), and the client's entries touching those objects after it, up
   * to and with the diverging entry.
   */
  shortest(divergence: Divergence): { anchors: Map<string, Entry | undefined>; entries: Entry[] } {
    const own = this.entries.filter((e) => e.client === divergence.client && e.seq <= divergence.seq);
    const anchors = new Map<string, Entry | undefined>();
    const chosen = new Set<Entry>();
    for (const object of divergence.objects) {
      const anchor = own.findLast(
        (e) => e.seq < divergence.seq && e.reads.some((r) => r.object === object) && e.reads.filter((r) => r.object === object).every((r) => r.agree),
      );
      anchors.set(object, anchor);
      for (const e of own) if (e.seq > (anchor?.seq ?? -1) && e.objects.includes(object)) chosen.add(e);
    }
    const last = own.find((e) => e.seq === divergence.seq);
    if (last) chosen.add(last);
    return { anchors, entries: [...chosen].sort((a, b) => a.seq - b.seq) };
  }

  /** The shortest history of a divergence, as text, with how to repeat the run. */
  format(divergence: Divergence, reproduce: string): string {
    const { anchors, entries } = this.shortest(divergence);
    const lines = [`DIVERGENCE (client ${divergence.client}, ${divergence.objects.join(', ')}): ${divergence.what}`, `reproduce: ${reproduce}`];
    for (const [object, anchor] of anchors) {
      lines.push(
        anchor
          ? `last agreement on ${object}: #${anchor.seq} (${anchor.text}) ${readsText(anchor.reads.filter((r) => r.object === object)).join('; ')}`
          : `no read agreed on ${object} before`,
      );
    }
    lines.push(`the ${entries.length} operation(s) on it since, with the faults meanwhile:`);
    const from = entries[0]?.at ?? 0;
    const until = Math.max(...entries.map((e) => e.end ?? e.attempts.at(-1)?.at ?? e.at), from);
    const faults = this.faults.filter((f) => f.at >= from && f.at <= until);
    const events: [number, string[]][] = [
      ...entries.map((e): [number, string[]] => [e.at, entryLines(e, e.seq === divergence.seq ? undefined : divergence.objects)]),
      ...faults.map((f): [number, string[]] => [f.at, [`   ${seconds(f.at)} FAULT ${f.what}`]]),
    ];
    for (const [, text] of events.sort((a, b) => a[0] - b[0])) lines.push(...text);
    if (divergence.evidence?.length) lines.push('what the service says about them:', ...divergence.evidence.map((e) => `   ${e}`));
    return lines.join('\n');
  }
}

const seconds = (ms: number) => `+${(ms / 1000).toFixed(1)}s`;

/** "units: api onchain 88, api offchain 88, chain 88 (model 88) ok". */
function readsText(reads: ReadCheck[]): string[] {
  const byField = new Map<string, ReadCheck[]>();
  for (const r of reads) byField.set(`${r.object} ${r.field}`, [...(byField.get(`${r.object} ${r.field}`) ?? []), r]);
  return [...byField].map(
    ([name, rs]) =>
      `${name}: ${rs.map((r) => `${r.source} ${r.seen}`).join(', ')} (model ${rs[0]!.allowed.join(' or ')}) ${rs.every((r) => r.agree) ? 'ok' : 'DIFFERS'}`,
  );
}

/** An entry's lines; `only`: print just the reads of these objects (all reads of the diverging entry). */
function entryLines(e: Entry, only?: string[]): string[] {
  const lines = [`#${e.seq} ${seconds(e.at)} ${e.text}${e.key ? ` [key ${e.key}]` : ''}`];
  for (const allowed of e.allowed) lines.push(`     model allows: ${allowed}`);
  for (const a of e.attempts) lines.push(`     ${seconds(a.at)} ${a.request} → ${a.answer}`);
  if (e.answered) lines.push(`     answered: ${e.answered}`);
  for (const r of readsText(e.reads.filter((r) => !only || only.includes(r.object)))) lines.push(`     read ${r}`);
  return lines;
}
