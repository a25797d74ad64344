import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  DYNAMIC_CONFIG_FILE,
  readDynamicConfigValues,
  readSearchAttributes,
  SEARCH_ATTRIBUTES_FILE,
  startTemporalDevServer,
} from '../../dev/temporal/dev-server';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';
import { echo } from '../support/workflows/echo.workflow';

const LedgerOrganization = defineSearchAttributeKey('LedgerOrganization', SearchAttributeType.KEYWORD);

describe('Temporal dev server from the integration harness', () => {
  const { address, namespace } = temporalTarget();
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    connection = await Connection.connect({ address });
    client = new Client({ connection, namespace });
  });
  afterAll(async () => {
    await connection?.close();
  });

  it('runs a workflow on a real worker and finds it by a search attribute', async () => {
    const taskQueue = uniqueTaskQueue('echo');
    const workerConnection = await NativeConnection.connect({ address });
    try {
      const worker = await Worker.create({
        connection: workerConnection,
        namespace,
        taskQueue,
        workflowsPath: path.join(__dirname, '../support/workflows/echo.workflow.ts'),
      });
      await worker.runUntil(async () => {
        expect(await client.workflow.execute(echo, { taskQueue, workflowId: `${taskQueue}-plain`, args: ['hello'] })).toBe('hello');

        const workflowId = `${taskQueue}-tagged`;
        const handle = await client.workflow.start(echo, {
          taskQueue,
          workflowId,
          args: ['tagged'],
          typedSearchAttributes: [{ key: LedgerOrganization, value: 'org-x' }],
        });
        expect(await handle.result()).toBe('tagged');
        // Visibility is eventually consistent: poll. The WorkflowId term keeps runs against a shared server apart.
        expect(await findWorkflowIds(client, `LedgerOrganization = 'org-x' AND WorkflowId = '${workflowId}'`)).toEqual([workflowId]);
      });
    } finally {
      await workerConnection.close();
    }
  });

  it("runs npm start's server in a process group of its own, so a Ctrl-C in the terminal reaches the launcher, which stops it last", async () => {
    const server = await startTemporalDevServer({ ui: false, ownProcessGroup: true, log: () => undefined });
    try {
      const groupOf = (pid: number) => Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
      expect(server.pid).toBeDefined();
      expect(groupOf(server.pid!)).toBe(server.pid);
      expect(groupOf(server.pid!)).not.toBe(groupOf(process.pid));
    } finally {
      await server.close();
    }
  });

  it('has every project search attribute registered', async () => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    for (const name of Object.keys(readSearchAttributes(SEARCH_ATTRIBUTES_FILE))) expect(customAttributes).toHaveProperty(name);
  });

  it('reads the dynamic config file into dev-server flags', () => {
    const values = readDynamicConfigValues(DYNAMIC_CONFIG_FILE);
    expect(values['matching.numTaskqueueReadPartitions']).toBe(1);
    expect(values['system.forceSearchAttributesCacheRefreshOnRead']).toBe(true);
  });
});

async function findWorkflowIds(client: Client, query: string, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
    if (ids.length > 0 || Date.now() > deadline) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
