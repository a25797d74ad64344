/** The workflows the worker registers. */
export { ledgerWrite } from './write/write.workflow';
export { deliverPostSubmitWebhooks, deliverNetworkTransactionWebhooks, deliverLeftChainWebhooks, replayWebhookEvent } from './write/webhook-delivery.workflow';
export { loanLifecycle } from './loan.workflow';
export { scheduledOracleRefresh } from './oracle-refresh.workflow';
export { scheduledReconciliation } from './reconciliation.workflow';
export { chainFollower } from './chain-follower.workflow';
