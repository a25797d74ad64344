/** Starts test/support/fault-worker.ts as its own process against a test stack (SIGKILL must hit the worker itself). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Stack } from './stack';

export interface FaultWorker {
  /** Resolves when the worker reached its fault point (and hangs there). */
  reached: Promise<void>;
  kill(): Promise<void>;
  /** SIGTERM: the worker shuts down gracefully (its running activities end first). */
  stop(): Promise<void>;
}

export async function startFaultWorker(stack: Stack, point: string, rpcUrl = stack.node.url): Promise<FaultWorker> {
  const env = {
    ...process.env,
    DATABASE_URL: stack.config.databaseUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_NAMESPACE: stack.config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
    SVM_CLUSTERS: `LOCAL=${rpcUrl}`,
    KEY_ENCRYPTION_KEY: stack.config.keyEncryptionKey,
    FEE_PAYER_KEY_FILE: stack.config.feePayerKeyFile,
    DATA_DIR: stack.config.dataDir,
    FAULT_POINT: point,
    // The stack's webhook receivers live on 127.0.0.1 (plain http).
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: String(stack.config.webhookUrlPolicy.allowPrivateAddresses),
    WEBHOOK_ALLOW_HTTP: String(stack.config.webhookUrlPolicy.allowHttp),
    // Paused: a reconciliation pass would repair a gap the fault tests must see.
    RECONCILE_INTERVAL_SECONDS: '0',
    NODE_OPTIONS: '',
  };
  // Node itself with tsx's loader, not the tsx wrapper (a SIGKILL to the wrapper leaves its child running).
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fault-worker.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const reached = new Promise<void>((resolve) =>
    proc.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()).includes('FAULT_POINT_REACHED') && resolve()),
  );
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', () => output.includes('WORKER_READY') && resolve());
    proc.once('exit', (code) => reject(new Error(`fault worker exited with ${code}: ${output}`)));
  });
  return {
    reached,
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
