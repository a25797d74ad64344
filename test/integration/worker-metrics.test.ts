/**
 * A worker process started as operators start it (`npm run worker`) with TEMPORAL_METRICS_ADDRESS
 * serves the Temporal SDK's own Prometheus metrics there; a malformed address names the variable.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/database';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait';

const workerMain = path.join(__dirname, '../../src/main/worker.ts');
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await db?.drop();
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
const env = (extra: Record<string, string>) => ({
  ...process.env,
  NODE_OPTIONS: '',
  DATABASE_URL: db.url,
  TEMPORAL_ADDRESS: temporalTarget().address,
  TEMPORAL_NAMESPACE: temporalTarget().namespace,
  TEMPORAL_TASK_QUEUE: uniqueTaskQueue('metrics'),
  SVM_CLUSTERS: 'LOCAL=http://127.0.0.1:1',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  ...extra,
});

it("serves the SDK's worker metrics at TEMPORAL_METRICS_ADDRESS", async () => {
  const address = `127.0.0.1:${await freePort()}`;
  worker = spawn(process.execPath, ['--import', 'tsx', workerMain], { env: env({ TEMPORAL_METRICS_ADDRESS: address }), stdio: 'ignore' });
  const text = await waitFor(
    async () => {
      const body = await fetch(`http://${address}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      // Pollers report once the worker runs.
      return /temporal_num_pollers\{/.test(body) && body;
    },
    60_000,
    250,
  );
  expect(text).toMatch(/temporal_worker_task_slots_available\{[^}]*worker_type="WorkflowWorker"/);
}, 90_000);

it('refuses a malformed TEMPORAL_METRICS_ADDRESS naming the variable', async () => {
  const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', workerMain], { env: env({ TEMPORAL_METRICS_ADDRESS: '9464' }) }).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(failed).toMatchObject({ code: 1 });
  // The worker's log (JSON lines) says why, at fatal.
  const fatal = (failed as { stdout: string }).stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((entry) => entry.level === 60);
  expect(fatal).toMatchObject({ name: 'worker', msg: expect.stringContaining('TEMPORAL_METRICS_ADDRESS "9464" is not host:port') });
});
