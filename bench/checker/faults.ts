/**
 * The seeded fault injector: one fault at a time, at seeded moments (a mean of `everyMs` apart),
 * each ending with everything back up: SIGKILL and restart of the worker, the API, the Temporal dev
 * server or the node; every PostgreSQL connection of the service ended; PostgreSQL unreachable for a
 * while; the whole stack killed and restarted; a fork that drops the node's unfinalized blocks (fork.ts).
 */
import type { History } from './history';
import type { Random } from './random';
import type { Services } from './services';

export const FAULT_KINDS = ['worker', 'api', 'temporal', 'node', 'postgres', 'postgres-outage', 'stack', 'fork'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Faults {
  counts: Map<FaultKind, number>;
  /** Ends the injection after the fault under way (everything is up again when it resolves). */
  stop(): Promise<void>;
}

/** Restarts a part, again after a second if it fails to come up (its port may still be held a moment). */
async function restart(services: Services, part: 'worker' | 'api' | 'temporal' | 'node'): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await services.restart(part);
    } catch (error) {
      if (tries >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export function startFaults(
  services: Services,
  random: Random,
  targets: FaultKind[],
  everyMs: number,
  history: History,
  log: (m: string) => void,
  /** The fork (fork.ts): answers what it did. */
  fork: () => Promise<string>,
): Faults {
  const counts = new Map<FaultKind, number>();
  let running = everyMs > 0 && targets.length > 0;
  let wake = () => {};
  const pause = (ms: number) => new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, ms)));
  const note = (what: string) => {
    history.fault(what);
    log(what);
  };

  const inject = async (kind: FaultKind) => {
    const downMs = 300 + Math.floor(random.next() * 2500);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    switch (kind) {
      case 'worker':
      case 'api':
      case 'temporal':
      case 'node':
        note(`SIGKILL ${kind}, restarted after ${downMs} ms`);
        await services.kill(kind);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await restart(services, kind);
        return;
      case 'postgres':
        note(`PostgreSQL: ${await services.dropDatabaseConnections()} connections of the service ended`);
        return;
      case 'postgres-outage':
        note(`PostgreSQL unreachable for ${downMs} ms`);
        services.setDatabaseDown(true);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        services.setDatabaseDown(false);
        return;
      case 'stack':
        note(`whole stack SIGKILLed (worker, API, node, Temporal; PostgreSQL cut), restarted after ${downMs} ms`);
        for (const part of ['worker', 'api', 'node', 'temporal'] as const) await services.kill(part);
        services.setDatabaseDown(true);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        services.setDatabaseDown(false);
        for (const part of ['temporal', 'node', 'worker', 'api'] as const) await restart(services, part);
        return;
      case 'fork':
        note(await fork());
        return;
    }
  };

  const loop = (async () => {
    while (running) {
      await pause(everyMs / 2 + random.next() * everyMs);
      if (!running) break;
      await inject(random.pick(targets));
    }
  })();

  return {
    counts,
    async stop() {
      running = false;
      wake();
      await loop;
    },
  };
}
