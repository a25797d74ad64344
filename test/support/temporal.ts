// Helpers for tests that talk to the Temporal server started (or named) by test/support/global-setup.ts.
import { randomBytes } from 'node:crypto';
import type { TemporalDevServer } from '../../dev/temporal/dev-server';

/** A task queue no other test (or earlier run against a shared server) polls. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Address and namespace published by the global setup. */
export function temporalTarget(): { address: string; namespace: string } {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run integration tests through the jest integration project');
  return { address, namespace: process.env.TEMPORAL_NAMESPACE || 'default' };
}

// Jest runs globalSetup and globalTeardown in the same process; the handle travels between them on globalThis.
const HANDLE = Symbol.for('ledger-asset-service.test.temporalDevServer');

export function keepDevServer(server: TemporalDevServer | undefined): void {
  (globalThis as Record<symbol, unknown>)[HANDLE] = server;
}

export function takeDevServer(): TemporalDevServer | undefined {
  const server = (globalThis as Record<symbol, unknown>)[HANDLE] as TemporalDevServer | undefined;
  delete (globalThis as Record<symbol, unknown>)[HANDLE];
  return server;
}
