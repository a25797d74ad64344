/** Pause / Unpause Financial Instrument (Token-2022 Pausable): one instruction signed by the pausable authority. */
import type { PauseFinancialInstrumentItemData } from '../../../domain/operations/financial-instruments/financial-instrument.inputs';
import { Account, FinancialInstrument } from '../../../db/entities';
import { assertMaySign } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { onboardedAuthority } from '../../../domain/operations/financial-instruments/instrument-authority.rules';
import { checkPauseChange, planPause } from '../../../domain/operations/financial-instruments/pause-financial-instrument.rules';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { reconcileInstrument } from './reconcile-instrument';

interface PauseData {
  instrumentId: string;
  mint: string;
  authority: string;
}

export function pauseHandler(pause: boolean): OperationHandler<PauseFinancialInstrumentItemData, PauseData> {
  const field = 'itemData.financialInstrument';
  return {
    async lookup(em, deps, request) {
      const item = request.itemData;
      const instrument = await findInstrumentByLookup(em, scopeOf(request), item.financialInstrument, field);
      checkPauseChange(instrument, pause);
      const ref = instrument.authorities.pausableAuthority;
      const authority = onboardedAuthority(ref?.accountId ? await em.findOne(Account, { id: ref.accountId }) : null, 'pausable authority');
      assertMaySign(authority, request.organizationId, request.organizationExternalId, `${field}.pausableAuthority`);
      const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
      const data: PauseData = { instrumentId: instrument.id, mint: instrument.mintAddress, authority: authority.address };
      return paidBy(feePayer, data, authority.address);
    },

    reconcile: (em, deps, request, resolved) => reconcileInstrument(em, deps.networks.get(request.cluster)!, resolved.data.instrumentId),

    instructions: (_request, resolved) => planPause(pause, resolved.data),

    async record(em, _request, resolved, outcome, tx, at) {
      if (!landed(outcome)) return undefined;
      const data = resolved.data;
      const instrument = await em.findOneOrFail(FinancialInstrument, { id: data.instrumentId });
      instrument.paused = pause;
      instrument.lastTransactionId = tx?.id ?? null;
      instrument.lastTransactionAt = at;
      return undefined;
    },
  };
}
