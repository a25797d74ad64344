/** The workflows the worker registers. */
export { ledgerWrite, deliverPostSubmitWebhooks, replayWebhookEvent } from './write.workflow';
export { loanLifecycle } from './loan.workflow';
export { scheduledOracleRefresh } from './oracle-refresh.workflow';
