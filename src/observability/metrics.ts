/**
 * The process's Prometheus metrics (prom-client): Node runtime defaults, the API's requests and
 * refusals, and the writes the worker in this process recorded. One registry per process, read by
 * GET /metrics of the API (which hosts a worker by default); a worker on its own exposes the Temporal
 * SDK's metrics (TEMPORAL_METRICS_ADDRESS, src/main/worker.ts).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'ledger_http_requests_total',
  help: 'API requests by method, route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'ledger_http_request_duration_seconds',
  help: 'Time to answer API requests, by method and route (a write answers once its transaction reached the requested commitment).',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const apiErrors = new Counter({
  name: 'ledger_api_errors_total',
  help: 'Error answers by error code (business refusals such as LIMIT_EXCEEDED or INSUFFICIENT_BALANCE included).',
  labelNames: ['code'] as const,
  registers: [registry],
});

export const writesRecorded = new Counter({
  name: 'ledger_writes_total',
  help: "Network transactions (and offchain-only writes) recorded by this process's worker, by operation and final status.",
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const confirmDuration = new Histogram({
  name: 'ledger_write_confirm_seconds',
  help: 'From sending a signed transaction to its outcome at the requested commitment, by cluster and commitment.',
  labelNames: ['cluster', 'commitment'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
  registers: [registry],
});

export const apiKeyLookups = new Counter({
  name: 'ledger_api_key_lookups_total',
  help: 'API key hashes looked up in the database (not in the authentication cache, known or unknown); a flood of made-up keys is looked up in batches, one query at a time per process.',
  registers: [registry],
});

export const rateLimitStoreFallbacks = new Counter({
  name: 'ledger_rate_limit_store_fallbacks_total',
  help: 'Rate limit decisions made in this process because the shared store (PostgreSQL) failed or was late.',
  registers: [registry],
});

export const reconciliationDrifts = new Counter({
  name: 'ledger_reconciliation_drifts_total',
  help: 'Drift findings reconciliation opened (a record differing from the chain with no recorded transaction to explain it), by cluster and kind (account, position); a drift still open at the next pass is not counted again.',
  labelNames: ['cluster', 'kind'] as const,
  registers: [registry],
});

export const reconciliationOpenFindings = new Gauge({
  name: 'ledger_reconciliation_open_findings',
  help: 'Drift findings still OPEN after the last reconciliation pass of this process, by cluster.',
  labelNames: ['cluster'] as const,
  registers: [registry],
});

export const reconciliationRepairs = new Counter({
  name: 'ledger_reconciliation_repairs_total',
  help: 'Drift findings of subscribed records repaired by recording the missing network transactions from the chain, by cluster.',
  labelNames: ['cluster'] as const,
  registers: [registry],
});

export const chainFollowerLagSlots = new Gauge({
  name: 'ledger_chain_follower_lag_slots',
  help: "Confirmed slots the chain follower has not read yet (the network's confirmed tip less the follower's cursor), by cluster.",
  labelNames: ['cluster'] as const,
  registers: [registry],
});

export const chainFollowerLagSeconds = new Gauge({
  name: 'ledger_chain_follower_lag_seconds',
  help: 'Age of the newest block the chain follower has recorded (now less its block time), by cluster.',
  labelNames: ['cluster'] as const,
  registers: [registry],
});

export const networkTransactionsRecorded = new Counter({
  name: 'ledger_network_transactions_total',
  help: 'Network transactions the chain follower recorded (one per organization following a touched account), by cluster.',
  labelNames: ['cluster'] as const,
  registers: [registry],
});
