/** Activities of the same names and shapes as the real ones, doing nothing: the engine's cost alone. */
import type { createActivities } from '../src/activities';
import type { Resolved } from '../src/domain/write';

type Activities = ReturnType<typeof createActivities>;

export function noopActivities(): Activities {
  const resolved: Resolved = { needsTransaction: true, feePayer: 'fee-payer', signers: ['fee-payer'], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data: {} };
  return {
    lookup: async () => resolved,
    checkLimits: async () => {},
    build: async () => ({ messageBase64: '', signers: ['fee-payer'], lifetime: { kind: 'BLOCKHASH', blockhash: '', lastValidBlockHeight: '0' }, size: 0 }),
    sign: async () => ({ signature: 'signature', wireBase64: '' }),
    submit: async () => ({ rejected: null }),
    confirm: async () => ({ status: 'CONFIRMED', slot: '1', confirmations: 0 }),
    record: async () => ({ transaction: null }),
    recordFailure: async () => null,
    startPostSubmitDelivery: async () => {},
    recordRejection: async () => ({ transaction: null }),
    callPreSubmitWebhooks: async () => 'OK',
    callPostSubmitWebhooks: async () => {},
  } as Activities;
}
