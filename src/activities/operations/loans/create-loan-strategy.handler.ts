/**
 * Create Loan Strategy in the pipeline: the vault is made exactly as Create Account makes a managed
 * account (its handler does it), then the strategy's record beside the vault's, in the same record
 * step. The lender funds the vault with an ordinary transfer into the vault's principal position.
 */
import type { CreateLoanStrategyItemData } from '../../../domain/operations/loans/loan.inputs';
import { LoanStrategy } from '../../../db/entities';
import { findAccountByLookup } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { resolveValue } from '../../../domain/money';
import { loanStrategyRecord, requireActiveLender, requireListedOnce, type NewStrategy } from '../../../domain/operations/loans/loan-strategy.rules';
import { withLoanFieldNames } from '../../../domain/operations/loans/loan.rules';
import { createAccountHandler } from '../accounts/create-account.handler';
import { scopeOf, type OperationHandler, type OperationRequest, type OperationResolved } from '../operation-handler';

interface CreateLoanStrategyData extends NewStrategy {
  vault: unknown;
}

/** The vault's part of the write, as Create Account sees it. */
const vaultRequest = (request: OperationRequest<CreateLoanStrategyItemData>) => ({
  ...request,
  itemData: { ...request.itemData.strategy, offchainReferences: { type: 'DEFI_SETTLEMENT_WALLET' as const, ...request.itemData.strategy.offchainReferences } },
});
const vaultResolved = (resolved: OperationResolved<CreateLoanStrategyData>) => ({ ...resolved, data: resolved.data.vault as never });

export const createLoanStrategyHandler: OperationHandler<CreateLoanStrategyItemData, CreateLoanStrategyData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const lender = await findAccountByLookup(em, scope, item.lender, 'itemData.lender');
    requireActiveLender(lender.status);
    const principal = await findInstrumentByLookup(em, scope, item.principal.financialInstrument, 'itemData.principal.financialInstrument');
    const collateral: NewStrategy['collateral'] = [];
    for (const [i, terms] of item.collateral.entries()) {
      const field = `itemData.collateral[${i}].financialInstrument`;
      const instrument = await findInstrumentByLookup(em, scope, terms.financialInstrument, field);
      requireListedOnce(
        collateral.map((c) => c.financialInstrumentId),
        instrument,
        field,
      );
      collateral.push({
        financialInstrumentId: instrument.id,
        mintAddress: instrument.mintAddress,
        apy: terms.apy,
        loanToValueRatio: terms.loanToValueRatio,
        liquidationRatio: terms.liquidationRatio,
      });
    }
    const units = (value: CreateLoanStrategyItemData['originationCap'], field: string) =>
      value ? resolveValue(value, principal.decimals, field).toString() : null;
    // The vault's refusals name its fields as Create Account's payload; the request has them under itemData.strategy.
    const vault = await createAccountHandler.lookup(em, deps, vaultRequest(request)).catch((error: unknown) => {
      throw withLoanFieldNames(error, { itemData: 'itemData.strategy' });
    });
    const data: CreateLoanStrategyData = {
      vault: vault.data,
      lender: { address: lender.address, id: lender.id },
      principal: { id: principal.id, mint: principal.mintAddress },
      collateral,
      originationCap: units(item.originationCap, 'itemData.originationCap'),
      liquidityBuffer: units(item.liquidityBuffer, 'itemData.liquidityBuffer'),
    };
    return { ...vault, data };
  },

  instructions(request, resolved, part) {
    return createAccountHandler.instructions(vaultRequest(request), vaultResolved(resolved), part);
  },

  async record(em, request, resolved, outcome, tx, at, part) {
    const created = await createAccountHandler.record(em, vaultRequest(request), vaultResolved(resolved), outcome, tx, at, part);
    if (!created) return undefined;
    const strategy = loanStrategyRecord(request.itemData, resolved.data, created.onchainId, tx?.id ?? null, at);
    em.create(LoanStrategy, { id: created.offchainId, ...scopeOf(request), ...strategy });
    return created;
  },
};
