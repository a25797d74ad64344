/** What the loan tests share: a fixed price table as the price port, and the accounts and positions a loan needs. */
import type { InstrumentPrice, PriceSource } from '../../src/domain/prices';
import type { Stack } from './stack';

export type Ref = { onchainId: string; offchainId: string };

/** Prices the loans see: the table's, by instrument offchain id (a missing entry has no price). */
export function fixedPrices(table: Map<string, string>): PriceSource {
  return {
    async priceOf(_organizationId, financialInstrumentId): Promise<InstrumentPrice | null> {
      const value = table.get(financialInstrumentId);
      return value
        ? {
            value,
            updatedAt: new Date().toISOString(),
            slot: null,
            dataSource: { onchainId: '11111111111111111111111111111111', offchainId: '00000000-0000-0000-0000-000000000000' },
          }
        : null;
    },
  };
}

/** The position lookup of `owner`'s position of `token`. */
export const at = (owner: Ref, token: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: token.onchainId } });

export async function createAccount(stack: Stack, itemData: Record<string, unknown> = { managed: true }): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount as Ref;
}

/** Opens `owner`'s position of `token` (if needed) and mints `amount` into it. */
export async function mintInto(stack: Stack, owner: Ref, token: Ref, amount: number): Promise<void> {
  await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, token) } });
  const minted = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, token), value: { amount } } });
  expect(minted.body).toMatchObject({ success: true });
}

/** The balance of `owner`'s position of `token` ({amount, lamports}), after checking the chain and the record agree. */
export async function agreedBalance(stack: Stack, owner: Ref, token: Ref): Promise<{ amount: number; lamports: string }> {
  const answer = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, token) } });
  expect(answer.status).toBe(200);
  expect(answer.body.offchain.balance).toEqual(answer.body.onchain.balance);
  return answer.body.onchain.balance;
}

/**
 * A strategy of `lender` lending `principal` against `collateral` (default: the principal) at `apy`
 * per duration index, its vault funded by the lender with `funds` of the principal.
 */
export async function createStrategy(
  stack: Stack,
  lender: Ref,
  principal: Ref,
  options: { collateral?: Ref[]; apy?: number[]; loanToValueRatio?: number; funds?: number; extra?: Record<string, unknown> } = {},
): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/loans/strategies', {
    itemData: {
      strategy: { comments: 'vault' },
      lender: { offchainId: lender.offchainId },
      principal: { financialInstrument: { onchainId: principal.onchainId } },
      collateral: (options.collateral ?? [principal]).map((c) => ({
        financialInstrument: { onchainId: c.onchainId },
        apy: options.apy ?? [100_000, 120_000, 150_000],
        loanToValueRatio: options.loanToValueRatio ?? 800_000,
        liquidationRatio: 900_000,
      })),
      ...options.extra,
    },
  });
  expect(created.status).toBe(201);
  const vault = created.body.newLoanStrategy as Ref;
  if (options.funds) {
    const funded = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: {
        source: at(lender, principal),
        destination: at(vault, principal),
        value: { amount: options.funds },
        initializeDestinationPositionIfNeeded: true,
      },
    });
    expect(funded.body).toMatchObject({ success: true });
  }
  return vault;
}

/**
 * `borrower` borrows `borrow` of `principal` from the strategy `vault` against `pledge` of `collateral`
 * (default: the principal), paying the fees; expects 201 and returns the loan's escrow and id.
 */
export async function createLoan(
  stack: Stack,
  vault: Ref,
  borrower: Ref,
  principal: Ref,
  amounts: { borrow: number; pledge: number; collateral?: Ref; apy?: number; liquidationRatio?: number; durationIndex?: number },
): Promise<{ escrow: string; loanId: string }> {
  const created = await stack.call('POST', '/api/v1/loans', {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: {
        loanStrategyAddress: vault.onchainId,
        expectedLoanValues: { expectedApy: amounts.apy ?? 100_000, expectedLqt: [amounts.liquidationRatio ?? 900_000] },
        durationIndex: amounts.durationIndex ?? 0,
      },
      itemsToBorrow: [{ positionLookup: at(borrower, principal), value: { amount: amounts.borrow } }],
      itemsToPledge: [{ positionLookup: at(borrower, amounts.collateral ?? principal), value: { amount: amounts.pledge } }],
    },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect({ status: created.status, refusal: created.status === 201 ? undefined : created.body }).toEqual({ status: 201, refusal: undefined });
  return { escrow: created.body.newLoan.escrow.onchainId as string, loanId: created.body.newLoan.offchainId as string };
}
