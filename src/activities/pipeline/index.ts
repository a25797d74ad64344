/**
 * The generic steps of the write pipeline, one module each over a shared context (docs/write-engine.md):
 * lookup → limit check → build → (pre-submit webhook) → sign → submit → confirm → record, and the
 * ends of a write that sends nothing. Each is safe to replay: it reads what it did before (the
 * write's record) before doing it again. The workflow runs them grouped into a few local
 * activities (`stages.ts`).
 */
import type { ActivityDeps } from '../deps';
import { createApprovalWait } from './approval-wait.activity';
import { createBuild } from './build.activity';
import { createConfirm } from './confirm.activity';
import { createPipelineContext } from './context';
import { createCheckLimits } from './limit-check.activity';
import { createLookup } from './lookup.activity';
import { createStartPostSubmitDelivery } from './post-submit.activity';
import { createRecord } from './record.activity';
import { createRefusals } from './refusal.activity';
import { createSign } from './sign.activity';
import { createSignatureWait } from './signature-wait.activity';
import { createStages, type Steps } from './stages';
import { createSubmit } from './submit.activity';

export { MAX_TRANSACTION_SIZE } from './build.activity';
export type { Steps } from './stages';

/** `wrapSteps`: a test or bench hook around each step (fault points, timings). */
export function createPipelineActivities(deps: ActivityDeps, wrapSteps: (steps: Steps) => Steps = (steps) => steps) {
  const ctx = createPipelineContext(deps);
  const steps = wrapSteps({
    lookup: createLookup(ctx),
    checkLimits: createCheckLimits(ctx),
    build: createBuild(ctx),
    sign: createSign(ctx),
    submit: createSubmit(ctx),
    confirm: createConfirm(ctx),
    record: createRecord(ctx),
  });
  return {
    ...createStages(steps),
    ...createRefusals(ctx),
    ...createSignatureWait(ctx),
    ...createApprovalWait(ctx),
    startPostSubmitDelivery: createStartPostSubmitDelivery(ctx),
  };
}
