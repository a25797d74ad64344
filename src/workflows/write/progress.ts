/** Where a running write is (the `currentStep` query and the outage memo), and its one search-attribute update at its end. */
import { defineQuery, upsertSearchAttributes } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { LedgerStatus, WriteOutage, WriteResult } from '../../domain/write';
import { searchAttributeNames } from '../../domain/write';

/** Where a running write is: prepare (lookup → sign), preSubmitWebhook, deliver (submit → record), record, postSubmitWebhook, done. */
export const currentStepQuery = defineQuery<string>('currentStep');

export const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
export const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

/** The write's current step, and the fault its prepare is riding out (kept in the memo while it lasts). */
export type Progress = { step: string; outage?: WriteOutage };

/** One search-attribute update per write, at its end (each is a history event and a visibility write). */
export function finish(progress: Progress, result: WriteResult, status: LedgerStatus, signature?: string): WriteResult {
  upsertSearchAttributes([...(signature ? [{ key: signatureKey, value: signature }] : []), { key: statusKey, value: status }]);
  progress.step = 'done';
  return result;
}
