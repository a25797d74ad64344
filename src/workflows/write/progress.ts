/** Where a running write is (the `currentStep` query and the outage memo), and its `LedgerStatus` at each wait and at its end. */
import { defineQuery, patched, upsertSearchAttributes } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { LedgerStatus, WriteOutage, WriteResult } from '../../domain/write';
import { searchAttributeNames } from '../../domain/write';

/** Where a running write is: prepare (lookup → sign), preSubmitWebhook, deliver (submit → record), record, postSubmitWebhook, done. */
export const currentStepQuery = defineQuery<string>('currentStep');

export const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
export const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

/** The write's current step, and the fault its prepare is riding out (kept in the memo while it lasts). */
export type Progress = { step: string; outage?: WriteOutage };

/**
 * LedgerStatus as the write enters a wait (AWAITING_APPROVAL, AWAITING_SIGNATURES, SIGNED), so an
 * operator lists waiting writes by status. Only waits: a write that does not wait runs in one
 * workflow task, where a status before its end would never be seen (each is a history event and a
 * visibility write). Histories from before `ledger-status-at-waits` set it at the end only.
 */
export function showWaiting(status: 'AWAITING_APPROVAL' | 'AWAITING_SIGNATURES' | 'SIGNED'): void {
  if (patched('ledger-status-at-waits')) upsertSearchAttributes([{ key: statusKey, value: status }]);
}

/** The write's last search-attribute update, at its end. */
export function finish(progress: Progress, result: WriteResult, status: LedgerStatus, signature?: string): WriteResult {
  upsertSearchAttributes([...(signature ? [{ key: signatureKey, value: signature }] : []), { key: statusKey, value: status }]);
  progress.step = 'done';
  return result;
}
