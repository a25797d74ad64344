/** The workflows the worker registers. */
export { ledgerWrite, deliverPostSubmitWebhooks, replayWebhookEvent } from './write.workflow';
export { scheduledOracleRefresh } from './oracle-refresh.workflow';
