/**
 * A client's own objects, made through the API before any fault: an SPL instrument (decimals 0)
 * with its authority, wallets (one guarded by a network-currency debit limit naming the client's
 * approver), holders' positions (one guarded by a token debit limit), two durable nonce accounts, and
 * a lender whose strategy's vault lends the instrument against itself at APY 0 to a borrower.
 */
import type { Attempt } from './client';
import { initialState, type Shape, type State } from './model';
import type { HttpSystem, Ref } from './system';

export const WALLET_SEED = 50_000_000n;
export const GUARDED_SEED = 200_000_000n;
export const HOLDING = 1_000n;
export const LENDER_MINT = 10_000n;
export const VAULT_FUNDS = 5_000n;
export const BORROWER_SEED = 1_000_000_000n;

export async function setUpClient(system: HttpSystem, keyPrefix: string, rentMin: bigint): Promise<{ shape: Shape; state: State }> {
  let n = 0;
  const ignore = (_: Attempt) => {};
  /** A setup write that must land; its answer's body. */
  const landed = async (route: string, body: unknown, method = 'POST') => {
    const { outcome, answer } = await system.write(method, route, body, `${keyPrefix}-setup-${n++}`, ignore);
    if (outcome.type !== 'landed') throw new Error(`setup ${route}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    return answer.body;
  };
  const account = async (name: string, itemData: Record<string, unknown>) => {
    system.registry.accounts[name] = (await landed('/api/v1/accounts', { itemData: { managed: true, ...itemData } })).newAccount as Ref;
    return system.registry.accounts[name];
  };
  const open = (name: string) => landed('/api/v1/positions', { itemData: { positionToInitialize: system.at(name) } });
  const mint = (name: string, units: bigint) => landed('/api/v1/positions/mint', { itemData: { mintTo: system.at(name), value: { lamports: String(units) } } });
  const approvers = { approversForOverride: [system.tenant.approverId], requiredApproversCount: 1 };

  const authority = await account('authority', { offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  system.registry.mint = (
    await landed('/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 0 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).newFinancialInstrument.onchainId;

  const state = initialState();
  for (const w of ['W0', 'W1', 'W2']) {
    await account(w, { seed: { lamports: String(WALLET_SEED) } });
    state.lamports[w] = WALLET_SEED;
  }
  await account('GW', {
    seed: { lamports: String(GUARDED_SEED) },
    networkCurrencyDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '0.01', ...approvers } }],
  });
  state.lamports.GW = GUARDED_SEED;

  for (const h of ['H0', 'H1', 'H2', 'H3', 'GH']) {
    await account(
      h,
      h === 'GH'
        ? {
            tokenDebitLimits: [
              { destination: 'ANY', operationType: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '10', ...approvers } },
            ],
          }
        : {},
    );
    await open(h);
    await mint(h, HOLDING);
    state.units[h] = HOLDING;
  }

  const nonceAuthority = await account('nonce-authority', {});
  await landed('/api/v1/durable-nonce-accounts', {
    itemData: { nonceAccount: { offchainReferences: { type: 'NONCE' } }, numberOfNonceAccounts: 2, nonceAuthority: { offchainId: nonceAuthority.offchainId } },
  });

  const lender = await account('LP', {});
  await open('LP');
  await mint('LP', LENDER_MINT);
  system.registry.accounts.V = (
    await landed('/api/v1/loans/strategies', {
      itemData: {
        strategy: { comments: 'vault' },
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: system.registry.mint } },
        collateral: [{ financialInstrument: { onchainId: system.registry.mint }, apy: [0], loanToValueRatio: 800_000, liquidationRatio: 900_000 }],
      },
    })
  ).newLoanStrategy;
  await landed('/api/v1/positions/transfer', {
    itemData: { source: system.at('LP'), destination: system.at('V'), value: { lamports: String(VAULT_FUNDS) }, initializeDestinationPositionIfNeeded: true },
  });
  state.units.LP = LENDER_MINT - VAULT_FUNDS;
  state.units.V = VAULT_FUNDS;
  await account('B', { canPayFees: true, seed: { lamports: String(BORROWER_SEED) } });
  await open('B');
  await mint('B', HOLDING);
  state.units.B = HOLDING;
  state.supply = HOLDING * 6n + LENDER_MINT;

  const shape: Shape = {
    rentMin,
    guardedWallet: 'GW',
    lamportsLimit: 10_000_000n,
    guardedHolder: 'GH',
    unitsLimit: 10n,
    borrower: 'B',
    vault: 'V',
    nonceAccounts: 2,
    loanToValue: 800_000n,
  };
  return { shape, state };
}
