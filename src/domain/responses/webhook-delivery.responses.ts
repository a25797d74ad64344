/** The webhook delivery log (docs/webhooks.md): one item per delivery attempt. */
import * as t from 'io-ts';
import { integer, listOf, nullable, strictObject, textWith, timestamp } from './building-blocks';

export const webhookDelivery = strictObject(
  'WebhookDelivery',
  {
    eventId: textWith('The event delivered; the same on every attempt and replay, for the receiver to deduplicate.'),
    eventType: textWith('TRANSACTION_PRE_SUBMIT or TRANSACTION_POST_SUBMIT.'),
    webhookName: nullable(textWith("The webhook's name, null when it has none.")),
    attempt: integer,
    at: timestamp,
    httpStatus: nullable(integer),
    error: nullable(textWith("Why the attempt failed (the receiver's status, a timeout, a refused address, the OAuth2 token endpoint); null on a 2xx.")),
  },
  {},
  'One delivery attempt of one webhook: attempts count per webhook and event.',
);

export const webhookDeliveriesResponse = strictObject(
  'WebhookDeliveries',
  { items: listOf(webhookDelivery) },
  {},
  "Every delivery attempt of the transaction's webhook events, oldest first.",
);
export type WebhookDeliveriesBody = t.TypeOf<typeof webhookDeliveriesResponse>;
