/**
 * Close Financial Instrument: a Token-2022 mint with zero supply is closed by its closing authority,
 * its rent going to `refundDestination` (default: the fee payer); the record becomes CLOSED.
 */
import type { CloseFinancialInstrumentItemData } from '../../../domain/operations/financial-instruments/financial-instrument.inputs';
import { Account, FinancialInstrument } from '../../../db/entities';
import { assertMaySign, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { decodeMintState } from '../../../domain/mint-state';
import {
  checkClosable,
  checkClosableMint,
  planCloseFinancialInstrument,
} from '../../../domain/operations/financial-instruments/close-financial-instrument.rules';
import { onboardedAuthority } from '../../../domain/operations/financial-instruments/instrument-authority.rules';
import { resolveFeePayer, paidBy } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';

interface CloseData {
  instrumentId: string;
  mintAccountId: string;
  mint: string;
  authority: string;
  destination: string;
}

export const closeFinancialInstrumentHandler: OperationHandler<CloseFinancialInstrumentItemData, CloseData> = {
  async lookup(em, deps, request) {
    const field = 'itemData.financialInstrument';
    const item = request.itemData;
    const scope = scopeOf(request);
    const instrument = await findInstrumentByLookup(em, scope, item.financialInstrument, field);
    const ref = instrument.authorities.closingAuthority;
    checkClosable({ status: instrument.status, version: instrument.version, hasClosingAuthority: Boolean(ref) });
    const data = await deps.networks.get(request.cluster)!.getAccount(instrument.mintAddress);
    checkClosableMint(instrument.mintAddress, request.cluster, data && decodeMintState(data.data, deps.now()).supply);
    const authority = onboardedAuthority(ref?.accountId ? await em.findOne(Account, { id: ref.accountId }) : null, 'closing authority');
    assertMaySign(authority, request.organizationId, request.organizationExternalId, `${field}.closingAuthority`);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const destination = item.refundDestination
      ? item.refundDestination.offPlatform
        ? offPlatformAddress(item.refundDestination, 'itemData.refundDestination')
        : (await findAccountByLookup(em, scope, item.refundDestination, 'itemData.refundDestination')).address
      : feePayer.address;
    const close: CloseData = {
      instrumentId: instrument.id,
      mintAccountId: instrument.mintAccountId,
      mint: instrument.mintAddress,
      authority: authority.address,
      destination,
    };
    return paidBy(feePayer, close, authority.address);
  },

  instructions: (_request, resolved) => planCloseFinancialInstrument(resolved.data),

  async record(em, _request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const data = resolved.data;
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: data.instrumentId });
    Object.assign(instrument, { status: 'CLOSED', lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    const mintAccount = await em.findOne(Account, { id: data.mintAccountId });
    if (mintAccount) mintAccount.status = 'CLOSED';
    return undefined;
  },
};
