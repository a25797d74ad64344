/**
 * The webhooks of an account payload (spec 2.3, 6), on the request alone: only a pre-submit webhook
 * runs before submission, so only it can stop one (`doNotSubmitTransactionOnFailure`).
 * VALIDATION_ERROR naming the field.
 */
import type { WebhookConfigInput } from '../../inputs/common.inputs';
import { validationError } from '../../errors';

export interface WebhookFields {
  missingSignatureWebhooks?: WebhookConfigInput[];
  postTransactionSubmitWebhooks?: WebhookConfigInput[];
}

export function checkWebhookFields(item: WebhookFields, f = 'itemData'): void {
  for (const list of ['missingSignatureWebhooks', 'postTransactionSubmitWebhooks'] as const) {
    (item[list] ?? []).forEach((hook, i) => {
      if (hook.doNotSubmitTransactionOnFailure !== undefined)
        throw validationError(
          `${f}.${list}.${i}.doNotSubmitTransactionOnFailure`,
          'doNotSubmitTransactionOnFailure applies only to preTransactionSubmitWebhooks: only a pre-submit webhook is called before the transaction is submitted',
        );
    });
  }
}
