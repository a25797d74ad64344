/**
 * What an operator sees of writes in Temporal (docs/write-engine.md, "Refusals" and "Workflow ids"):
 * a refused write's workflow is Completed (not Failed) with LedgerStatus REFUSED while the client
 * gets the same 4xx; a write with no network transaction ends with LedgerStatus too; workflow ids
 * name the organization by its external id, escaped, never by its internal id.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Organization } from '../../src/db/entities';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { forkEm } from '../../src/main/runtime';
import { roleNames } from '../../src/domain/roles';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';
import { waitFor } from '../support/wait';

let stack: Stack;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  stack = await startStack();
  connection = await Connection.connect({ address: temporalTarget().address });
  client = new Client({ connection, namespace: temporalTarget().namespace });
});
afterAll(async () => {
  await connection?.close();
  await stack?.close();
});

/** The workflow ids a visibility query lists (the dev server's visibility catches up within moments). */
async function listed(query: string, expected: number): Promise<string[]> {
  let ids: string[] = [];
  await waitFor(
    async () => {
      ids = [];
      for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
      return ids.length >= expected;
    },
    10_000,
    200,
  );
  return ids;
}

/** An external id as workflow ids hold it: `-` as `_`, the rest of what is not a letter, digit or `.` percent-encoded. */
const segment = (externalId: string) =>
  encodeURIComponent(externalId)
    .replace(/[_!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/-/g, '_');
const internalId = async (externalId: string) => (await forkEm(stack.runtime.orm).findOneOrFail(Organization, { externalId })).id;

it('a refused write answers the same 4xx, and its workflow completes with LedgerStatus REFUSED', async () => {
  const key = `refused-${randomUUID()}`;
  const feePayer = randomUUID();
  const refused = await stack.call(
    'POST',
    '/api/v1/accounts',
    { itemData: { managed: true }, svmTransactionConfig: { feePayer: { offchainId: feePayer } } },
    { headers: { 'Idempotency-Key': key } },
  );
  expect(refused.status).toBe(404);
  expect(refused.body.errors[0]).toMatchObject({ code: 'NOT_FOUND', field: 'svmTransactionConfig.feePayer' });

  const workflowId = `create_account-${segment(stack.organizationExternalId)}-${key}`;
  const described = await client.workflow.getHandle(workflowId).describe();
  expect(described.status.name).toBe('COMPLETED');
  expect(described.searchAttributes).toMatchObject({ LedgerStatus: ['REFUSED'] });
  expect(await listed(`WorkflowId = "${workflowId}" AND LedgerStatus = "REFUSED" AND ExecutionStatus = "Completed"`, 1)).toEqual([workflowId]);

  // The same key again is answered from the completed run: the same refusal.
  const again = await stack.call(
    'POST',
    '/api/v1/accounts',
    { itemData: { managed: true }, svmTransactionConfig: { feePayer: { offchainId: feePayer } } },
    { headers: { 'Idempotency-Key': key } },
  );
  expect(again.status).toBe(404);
  expect(again.body.errors).toEqual(refused.body.errors);
});

it('a write with no network transaction (Update Account) ends with LedgerStatus FINALIZED', async () => {
  const wallet = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  const key = `update-${randomUUID()}`;
  const updated = await stack.call(
    'PATCH',
    '/api/v1/accounts',
    { itemData: { account: { offchainId: wallet.offchainId }, comments: 'renamed' } },
    { headers: { 'Idempotency-Key': key } },
  );
  expect(updated.status).toBe(200);
  const workflowId = `update_account-${segment(stack.organizationExternalId)}-${key}`;
  expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
  expect(await listed(`WorkflowId = "${workflowId}" AND LedgerStatus = "FINALIZED"`, 1)).toEqual([workflowId]);
});

it('lists a write by LedgerStatus while it waits (AWAITING_APPROVAL, AWAITING_SIGNATURES, resting at SIGNED), and by how it ended', async () => {
  const em = () => forkEm(stack.runtime.orm);
  const { organization } = await ensureOrganization(em(), stack.runtime.sealer, stack.organizationExternalId);
  const approver = await createApiKey(em(), organization, ['APPROVE'], stack.config.platformName);
  const account = async (itemData: Record<string, unknown>) =>
    (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { offchainId: string };
  const vault = await account({ managed: true });
  const transfer = async (source: Record<string, unknown>, value: Record<string, unknown>, svmTransactionConfig = {}) => {
    const answer = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source, destination: { offchainId: vault.offchainId }, value },
      svmTransactionConfig,
    });
    const offchainId = (answer.body.transaction?.offchainId ?? answer.body.offchainId) as string;
    const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } });
    return { offchainId, status: (answer.body.transaction?.status ?? answer.body.status) as string, workflowId: details.body.workflowId as string };
  };
  const overLimit = await account({
    managed: true,
    seed: { amount: 2 },
    networkCurrencyDebitLimits: [
      { destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1, approversForOverride: [approver.id], requiredApproversCount: 1 } },
    ],
  });
  const waiting = [
    await transfer({ offchainId: overLimit.offchainId }, { amount: 1.5 }),
    await transfer({ offchainId: (await account({ managed: true, seed: { amount: 0.1 } })).offchainId, autoSign: false }, { lamports: '1000' }),
    await transfer({ offchainId: (await account({ managed: true, seed: { amount: 0.1 } })).offchainId }, { lamports: '1000' }, { submitTransaction: false }),
  ];
  expect(waiting.map((w) => w.status)).toEqual(['AWAITING_APPROVAL', 'AWAITING_SIGNATURES', 'SIGNED']);
  for (const { workflowId, status } of waiting) {
    expect(await listed(`WorkflowId = "${workflowId}" AND LedgerStatus = "${status}" AND ExecutionStatus = "Running"`, 1)).toEqual([workflowId]);
  }
  expect(await client.workflow.count(`LedgerStatus = "AWAITING_APPROVAL" AND WorkflowId = "${waiting[0].workflowId}"`)).toMatchObject({ count: 1 });

  // Each ends CANCELLED, and is listed so.
  for (const { offchainId, workflowId } of waiting) {
    expect((await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId } } })).status).toBe(200);
    expect(await listed(`WorkflowId = "${workflowId}" AND LedgerStatus = "CANCELLED"`, 1)).toEqual([workflowId]);
  }
});

it("reads a write's timeline like a ledger: each step's activity carries a summary (the operation and the step, no request value)", async () => {
  const receiver = http.createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const webhook = { name: 'risk', endpointUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ok` };
    const account = async (itemData: Record<string, unknown>) =>
      (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { offchainId: string };
    const source = await account({ managed: true, seed: { amount: 0.05 }, preTransactionSubmitWebhooks: [webhook] });
    const destination = await account({ managed: true });
    const sent = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: source.offchainId }, destination: { offchainId: destination.offchainId }, value: { lamports: '1000' } },
    });
    expect(sent.body).toMatchObject({ success: true });
    const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: sent.body.offchainId } } });

    const { EventType } = temporal.api.enums.v1;
    const history = await client.workflow.getHandle(details.body.workflowId).fetchHistory();
    const summaries = (type: temporal.api.enums.v1.EventType) =>
      history
        .events!.filter((e) => e.eventType === type)
        .map((e) => (e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : null));
    // Local activities (the steps grouped: docs/write-engine.md) are markers; the webhook is a regular activity.
    expect(summaries(EventType.EVENT_TYPE_MARKER_RECORDED).filter((s) => s !== null)).toEqual([
      'Transfer Network Currency: lookup → check debit limit → build → sign',
      'Transfer Network Currency: submit → confirm → record',
    ]);
    expect(summaries(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toEqual(['Transfer Network Currency: pre-submit webhook']);
    // It started PENDING (the write client's search attributes), and ended with its status.
    const started = history.events![0].workflowExecutionStartedEventAttributes!.searchAttributes!.indexedFields!;
    expect(defaultPayloadConverter.fromPayload(started.LedgerStatus)).toBe('PENDING');
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});

it('names the organization by its external id in workflow ids, escaped so that no two organizations share one', async () => {
  // Free text: a `-` (the separator of an id's parts), a slash, a space, a non-ASCII letter.
  const externalId = `acme-x/ü ${randomBytes(3).toString('hex')}`;
  const apiKey = await stack.newApiKey(
    externalId,
    roleNames.filter((r) => r !== 'ADMIN'),
  );
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } }, { apiKey, headers: { 'Idempotency-Key': 'k-1' } });
  expect(created.status).toBe(201);
  const details = await stack.call(
    'POST',
    '/api/v1/transactions/single',
    { itemData: { transaction: { offchainId: created.body.svmTransaction.offchainId } } },
    { apiKey },
  );
  expect(details.body.workflowId).toBe(`create_account-acme_x%2F%C3%BC%20${externalId.slice(-6)}-k-1`);
  expect(details.body.workflowId).not.toContain(await internalId(externalId));
  expect((await client.workflow.getHandle(details.body.workflowId).describe()).status.name).toBe('COMPLETED');

  // An external id too long for an id is named by the internal id (`~`, no dashes).
  const long = `long-${'x'.repeat(120)}-${randomBytes(3).toString('hex')}`;
  const longKey = await stack.newApiKey(
    long,
    roleNames.filter((r) => r !== 'ADMIN'),
  );
  const other = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } }, { apiKey: longKey, headers: { 'Idempotency-Key': 'k-1' } });
  expect(other.status).toBe(201);
  const otherDetails = await stack.call(
    'POST',
    '/api/v1/transactions/single',
    { itemData: { transaction: { offchainId: other.body.svmTransaction.offchainId } } },
    { apiKey: longKey },
  );
  expect(otherDetails.body.workflowId).toBe(`create_account-~${(await internalId(long)).replace(/-/g, '')}-k-1`);
});

it('lists and heads a write in the Web UI by its operation, organization, amount and ends (static summary and details)', async () => {
  const from = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } })).body.newAccount;
  const to = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  const key = `summary-${randomUUID()}`;
  const sent = await stack.call(
    'POST',
    '/api/v1/accounts/transfer-network-currency',
    { itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { amount: 0.001 } } },
    { headers: { 'Idempotency-Key': key } },
  );
  expect(sent.status).toBe(201);
  const described = await client.workflow.getHandle(`transfer_network_currency-${segment(stack.organizationExternalId)}-${key}`).describe();
  const summary = `Transfer Network Currency · ${stack.organizationExternalId} · 0.001 ${from.offchainId} → ${to.offchainId}`;
  expect(await described.staticSummary()).toBe(summary);
  expect(await described.staticDetails()).toContain(`transaction \`${sent.body.offchainId}\``);
});
