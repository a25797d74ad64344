/**
 * CPU time per process group, read from /proc (Linux): what each part of the stack spent on a run.
 * PostgreSQL counts every `postgres` process of the machine and Temporal every Temporal server
 * process (the CLI dev server, or the cluster's `server`), so other work on the machine counts too.
 */
import fs from 'node:fs';
import path from 'node:path';

export const groups = ['api', 'worker', 'temporal', 'node', 'postgres', 'bench'] as const;
export type Group = (typeof groups)[number];
export type CpuSample = Record<Group, number>;
/** CPU seconds so far of each counted process, by pid. */
export type ProcessSample = Map<number, { group: Group; seconds: number }>;

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function groupOf(pid: number, comm: string, known: ReadonlyMap<number, Group>): Group | undefined {
  const group = known.get(pid);
  if (group) return group;
  if (comm === 'postgres') return 'postgres';
  if (comm === 'temporal' || comm === 'server') {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (comm === 'temporal' ? argv.includes('start-dev') : argv.includes('--allow-no-auth') || argv.includes('start')) return 'temporal';
  }
  return undefined;
}

/** CPU seconds used so far by each counted process; `known` names the service processes the bench started. */
export function sampleCpu(known: ReadonlyMap<number, Group>): ProcessSample {
  const sample: ProcessSample = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(path.join('/proc', entry, 'stat'), 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const group = groupOf(Number(entry), comm, known);
      if (!group) continue;
      // Fields after the command: state is the 3rd field of the line, utime the 14th and stime the 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sample.set(Number(entry), { group, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
    } catch {
      // The process ended while we read it.
    }
  }
  return sample;
}

/**
 * Milliseconds of CPU per write of each group between two samples. A process that started in between
 * counts whole; one that ended in between is lost (short-lived PostgreSQL backends: the pools keep theirs).
 */
export function cpuPerWrite(before: ProcessSample, after: ProcessSample, writes: number): CpuSample {
  const spent = Object.fromEntries(groups.map((g) => [g, 0])) as CpuSample;
  for (const [pid, { group, seconds }] of after) spent[group] += seconds - (before.get(pid)?.seconds ?? 0);
  return Object.fromEntries(groups.map((g) => [g, writes ? (spent[g] * 1000) / writes : NaN])) as CpuSample;
}
