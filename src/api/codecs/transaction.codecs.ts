/** Transaction reads (API.md 6): a transaction named by offchainId or onchainId (signature). */
import { strictObject, nonEmptyString, uuid } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const transactionLookup = strictObject('TransactionLookup', {}, { offchainId: uuid, onchainId: nonEmptyString(100) });
export const singleTransactionBody = strictObject('SingleTransactionRequest', { itemData: strictObject('SingleTransactionItemData', { transaction: transactionLookup }, {}) }, { tenancyConfig });

/** Replay Webhook Delivery (API.md 8): one event, by the eventId its deliveries carry. */
export const replayWebhookDeliveryBody = strictObject('ReplayWebhookDeliveryRequest', { itemData: strictObject('ReplayWebhookDeliveryItemData', { eventId: nonEmptyString(300) }, {}) }, { tenancyConfig });
