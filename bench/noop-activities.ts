/** Activities of the same names and shapes as the real ones, doing nothing: the engine's cost alone. */
import type { createActivities, Steps } from '../src/activities';
import { createStages } from '../src/activities/pipeline/stages';
import type { Resolved } from '../src/domain/write';

type Activities = ReturnType<typeof createActivities>;

/** The steps and the activities grouping them; the steps alone serve the previous shape's workflow. */
export function noopActivities(): Activities & Steps {
  const resolved: Resolved = {
    needsTransaction: true,
    feePayer: 'fee-payer',
    signers: ['fee-payer'],
    debits: [],
    webhooks: { preSubmit: false, postSubmit: false },
    data: {},
  };
  const steps: Steps = {
    lookup: async () => resolved,
    checkLimits: async () => {},
    build: async () => ({ messageBase64: '', signers: ['fee-payer'], lifetime: { kind: 'BLOCKHASH', blockhash: '', lastValidBlockHeight: '0' }, size: 0 }),
    sign: async () => ({ signature: 'signature', wireBase64: '' }),
    submit: async () => ({ rejected: null }),
    confirm: async () => ({ status: 'CONFIRMED', slot: '1', confirmations: 0 }),
    record: async () => ({ transaction: null }),
  };
  return {
    ...steps,
    ...createStages(steps),
    recordFailure: async () => null,
    startPostSubmitDelivery: async () => {},
    recordRejection: async () => ({ transaction: null }),
    callPreSubmitWebhooks: async () => 'OK',
    callPostSubmitWebhooks: async () => {},
    replayWebhookEvent: async () => {},
    callMissingSignatureWebhooks: async () => {},
    addSignatures: async () => ({ signature: 'signature', wireBase64: '' }),
    loanSnapshot: async () => null,
    markLoanOverdue: async () => null,
    followChain: async (cluster: string) => ({
      cluster,
      slot: 0,
      tipSlot: 0,
      caughtUp: true,
      lagSlots: 0,
      lagSeconds: 0,
      recorded: 0,
      updatedAt: new Date(0).toISOString(),
    }),
    callNetworkTransactionWebhooks: async () => undefined,
    callLeftChainWebhooks: async () => undefined,
    reconciliationClusters: async () => [],
    reconcileCluster: async ({ cluster }: { cluster: string }) => ({
      cluster,
      accountsChecked: 0,
      positionsChecked: 0,
      differences: 0,
      explained: 0,
      findings: 0,
      newFindings: 0,
      repaired: 0,
      resolved: 0,
      openFindings: 0,
    }),
    isLifetimeOver: async () => false,
    recordCancellation: async () => null,
    endApproval: async () => 'EXPIRED',
  };
}
