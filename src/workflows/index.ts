/** The workflows the worker registers. */
export { ledgerWrite, deliverPostSubmitWebhooks } from './write.workflow';
