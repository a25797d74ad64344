/**
 * The bench's reads section (scenario `reads`): bulk reads at limit 100 over HTTP through the real
 * API, against 1,000,000 transaction records and 100,000 accounts and positions written straight
 * into the database first (bench/read-data.ts). Each shape is a filter and a sort that a client
 * walks page after page with the answer's cursor; the baseline walks the same pages with skip
 * (offset paging), in the same run, so the ratio shows what the cursor saves at depth.
 *
 * Every shape runs at each client count of BENCH_READ_CONCURRENCY (default `1,4`). One client
 * measures a request's latency (the p99 aim applies there); more clients than the machine's cores
 * measure the load it carries, where latency is mostly queueing (pages a second are printed).
 *
 * Knobs: BENCH_READ_SECONDS (10 per walk), BENCH_READ_CONCURRENCY (`1,4`), BENCH_READ_PAGES
 * (pages per walk before a client starts over, 100: 10,000 records deep), BENCH_READ_TRANSACTIONS
 * (1,000,000), BENCH_READ_ACCOUNTS (100,000 accounts and as many positions), BENCH_READ_SHAPES (only the
 * shapes whose name contains one of these comma-separated words, e.g. `slot,managed`).
 */
import { Client as PgClient } from 'pg';
import { fillReadData, type ReadData } from './read-data';

const seconds = Number(process.env.BENCH_READ_SECONDS ?? 10);
const concurrencies = (process.env.BENCH_READ_CONCURRENCY ?? '1,4').split(',').map(Number);
const pagesPerWalk = Number(process.env.BENCH_READ_PAGES ?? 100);
const transactions = Number(process.env.BENCH_READ_TRANSACTIONS ?? 1_000_000);
const accounts = Number(process.env.BENCH_READ_ACCOUNTS ?? 100_000);
const shapeWords = (process.env.BENCH_READ_SHAPES ?? '')
  .split(',')
  .map((word) => word.trim())
  .filter(Boolean);
const limit = 100;

export interface ReadRun {
  name: string;
  clients: number;
  paging: 'cursor' | 'skip';
  latencies: number[];
  errors: number;
  /** The deepest page read (records passed over before it). */
  depth: number;
}

type ItemQuery = Record<string, unknown>;
interface Shape {
  name: string;
  route: string;
  itemQuery: ItemQuery;
}

const equals = (fieldName: string, valueString: string) => ({ fieldName, filterValues: [{ filterType: 'EQUALS', valueString }] });

/** The walks: typical filters and sorts of spec 4.1's resources (and the transactions the product added). */
function shapes(data: ReadData): Shape[] {
  const transactionsRoute = '/api/v1/transactions/bulk/compact';
  const accountsRoute = '/api/v1/accounts/bulk/compact';
  const positionsRoute = '/api/v1/positions/bulk/compact';
  return [
    { name: 'transactions, newest first', route: transactionsRoute, itemQuery: {} },
    { name: 'transactions, operation = MINT, newest first', route: transactionsRoute, itemQuery: { filter: [equals('operation', 'MINT')] } },
    {
      name: 'transactions, status IN (CONFIRMED, FINALIZED), slot desc',
      route: transactionsRoute,
      itemQuery: {
        filter: [{ fieldName: 'status', filterValues: [{ filterType: 'IN', valuesString: ['CONFIRMED', 'FINALIZED'] }] }],
        sort: [{ fieldName: 'slot', sortDirection: 'DESC' }],
      },
    },
    {
      name: 'transactions, createdAt in one hour, oldest first',
      route: transactionsRoute,
      itemQuery: {
        filter: [
          { fieldName: 'createdAt', filterValues: [{ filterType: 'RANGE', valueFromString: '2026-01-01T01:00:00Z', valueToString: '2026-01-01T02:00:00Z' }] },
        ],
        sort: [{ fieldName: 'createdAt', sortDirection: 'ASC' }],
      },
    },
    {
      name: 'transactions of one account (accountOffchainId)',
      route: transactionsRoute,
      itemQuery: { filter: [equals('accountOffchainId', data.accountIds[1]!)] },
    },
    { name: 'accounts, managed first (default sort)', route: accountsRoute, itemQuery: {} },
    {
      name: 'accounts, type = WALLET, lamportsBalance desc',
      route: accountsRoute,
      itemQuery: { filter: [equals('type', 'WALLET')], sort: [{ fieldName: 'lamportsBalance', sortDirection: 'DESC' }] },
    },
    { name: 'positions, newest first (default sort)', route: positionsRoute, itemQuery: {} },
    {
      name: 'positions of one instrument, balance desc',
      route: positionsRoute,
      itemQuery: { filter: [equals('financialInstrumentOffchainId', data.instruments[0]!.id)], sort: [{ fieldName: 'balance', sortDirection: 'DESC' }] },
    },
  ];
}

/** Writes the records (untimed), then times every shape with cursor and with skip paging. */
export async function benchReads(options: {
  databaseUrl: string;
  organizationId: string;
  cluster: string;
  apiUrl: string;
  apiKey: string;
  log: (m: string) => void;
}): Promise<ReadRun[]> {
  const { log } = options;
  const pg = new PgClient({ connectionString: options.databaseUrl });
  await pg.connect();
  let data: ReadData;
  try {
    const started = performance.now();
    data = await fillReadData(pg, options.organizationId, options.cluster, { accounts, positions: accounts, transactions });
    log(
      `reads setup: ${transactions} transaction records, ${accounts} accounts and ${accounts} positions written with generate_series, indexes built, VACUUM ANALYZE (${((performance.now() - started) / 1000).toFixed(1)} s, untimed)`,
    );
  } finally {
    await pg.end();
  }

  const read = async (route: string, itemQuery: ItemQuery): Promise<{ items: unknown[]; cursor?: string }> => {
    const response = await fetch(`${options.apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ itemQuery }),
    });
    const body = (await response.json()) as { items?: unknown[]; cursor?: string };
    if (response.status !== 200 || !Array.isArray(body.items)) throw new Error(`${route}: HTTP ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return { items: body.items, ...(body.cursor ? { cursor: body.cursor } : {}) };
  };

  const runs: ReadRun[] = [];
  for (const clients of concurrencies) {
    for (const shape of shapes(data).filter((s) => shapeWords.length === 0 || shapeWords.some((word) => s.name.includes(word)))) {
      for (const paging of ['cursor', 'skip'] as const) {
        const run: ReadRun = { name: shape.name, clients, paging, latencies: [], errors: 0, depth: 0 };
        let firstError: unknown;
        const warmupEnd = Date.now() + 2000;
        const end = warmupEnd + seconds * 1000;
        await Promise.all(
          Array.from({ length: clients }, async () => {
            // Each client walks from the first page, pagesPerWalk deep, then starts over.
            let page = 0;
            let cursor: string | undefined;
            while (Date.now() < end) {
              const itemQuery = { ...shape.itemQuery, limit, ...(paging === 'cursor' ? (cursor ? { cursor } : {}) : { skip: page * limit }) };
              const started = performance.now();
              try {
                const answer = await read(shape.route, itemQuery);
                if (Date.now() > warmupEnd) run.latencies.push(performance.now() - started);
                run.depth = Math.max(run.depth, page * limit);
                cursor = answer.cursor;
                page++;
                if (answer.items.length < limit || page >= pagesPerWalk) [page, cursor] = [0, undefined];
              } catch (error) {
                run.errors++;
                firstError ??= error;
                [page, cursor] = [0, undefined];
                await new Promise((resolve) => setTimeout(resolve, 100));
              }
            }
          }),
        );
        if (firstError) log(`${shape.name} (${paging}): ${run.errors} errors, first: ${(firstError as Error).message}`);
        run.latencies.sort((a, b) => a - b);
        runs.push(run);
      }
    }
  }
  return runs;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * Prints, per client count, p50/p99 and pages a second per shape and paging, the skip / cursor ratio
 * of the p99s, and the cursor's p99 over all shapes: against the aim at one client (latency), as
 * the load carried at more.
 */
export function reportReads(runs: ReadRun[]): void {
  const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(9);
  for (const clients of [...new Set(runs.map((r) => r.clients))]) {
    const group = runs.filter((r) => r.clients === clients);
    console.log(
      `\nBulk reads over HTTP, limit ${limit}, ${clients} client${clients === 1 ? '' : 's'}, walks ${pagesPerWalk} pages deep (${transactions} transactions, ${accounts} accounts and positions)`,
    );
    for (const cursorRun of group.filter((r) => r.paging === 'cursor')) {
      const skipRun = group.find((r) => r.paging === 'skip' && r.name === cursorRun.name)!;
      for (const run of [cursorRun, skipRun]) {
        console.log(
          `${`${run.name} (${run.paging})`.padEnd(72)} p50 ${ms(percentile(run.latencies, 50))}   p99 ${ms(percentile(run.latencies, 99))}   (${(run.latencies.length / seconds).toFixed(0)} pages/s, deepest ${run.depth}, ${run.errors} errors)`,
        );
      }
      console.log(
        `${'  ratio: p99 skip / p99 cursor'.padEnd(72)} ${(percentile(skipRun.latencies, 99) / percentile(cursorRun.latencies, 99)).toFixed(2).padStart(7)}`,
      );
    }
    const cursorRuns = group.filter((r) => r.paging === 'cursor');
    const all = cursorRuns.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const note =
      clients === 1
        ? 'aim p99 ≤ 20 ms: the latency of one request'
        : `${(all.length / seconds / cursorRuns.length).toFixed(0)} pages/s a shape; latency here is mostly queueing`;
    console.log(
      `${`bulk reads with cursor, all shapes, ${clients} client${clients === 1 ? '' : 's'}`.padEnd(72)} p50 ${ms(percentile(all, 50))}   p99 ${ms(percentile(all, 99))}   (${note})`,
    );
  }
}
