/**
 * Workflow versioning: every stored history (test/fixtures/workflow-histories, recorded by
 * scripts/record-workflow-histories.ts from earlier releases) replays against the current workflow
 * code without a nondeterminism error, so a release never breaks writes still open when it rolls out
 * (approvals wait a day, nonce writes for days). A change that cannot replay one goes behind patched().
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { installSdkLogger } from '../../src/main/worker';

const dir = path.join(__dirname, '../fixtures/workflow-histories');
const files = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith('.pb'))
  .sort();

beforeAll(() => installSdkLogger());

it('has stored histories of every kind of wait, of a refusal, and of a loan taking its movements as updates', () => {
  for (const kind of [
    'create-account',
    'approved-transfer',
    'cancelled-signature-wait',
    'submitted-after-signed',
    'multi-part-nonce-accounts',
    'refused-write',
    'loan-movements',
  ]) {
    expect(files.some((name) => name.endsWith(`-${kind}.pb`))).toBe(true);
  }
});

it('keeps a refusal of each kind: one that failed its run (before write-refusal-completes), one that completed it', () => {
  const { EventType } = temporal.api.enums.v1;
  const ends = files
    .filter((name) => name.endsWith('-refused-write.pb'))
    .map((name) => temporal.api.history.v1.History.decode(fs.readFileSync(path.join(dir, name))).events.at(-1)!.eventType);
  expect(ends).toEqual(expect.arrayContaining([EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED]));
});

it.each(files)('replays %s against the current workflows', async (file) => {
  const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(dir, file)));
  expect(history.events.length).toBeGreaterThan(5);
  await Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows') }, history, file);
});
