/**
 * Inactivate Account (spec 3): what must happen onchain before an account's record can
 * become CLOSED. Pure: the lookup step supplies the account as the chain holds it.
 */
import { validationError } from '../../errors';
import { fromBaseUnits, NETWORK_CURRENCY_DECIMALS } from '../../money';
import { checkOwnAccount } from './create-account.rules';
import { checkTransferableSource } from './transfer-network-currency.rules';

export interface OnchainAccountState {
  owner: string;
  lamports: bigint;
  dataLength: number;
}

/**
 * The lamports to sweep to the destination in one transaction signed by the account (0: only the
 * record changes). A non-managed account cannot sign, so only its record changes; a managed one is
 * emptied, which removes it from the chain. Throws VALIDATION_ERROR naming the field when the
 * account cannot be emptied or its lamports have nowhere to go.
 */
export function lamportsToSweep(account: { managed: boolean; address: string }, onchain: OnchainAccountState | null, hasDestination: boolean): bigint {
  const f = 'itemData.accountToInactivate';
  const destination = 'itemData.transferRemainingNetworkCurrencyTo';
  if (!account.managed) {
    if (hasDestination)
      throw validationError(
        destination,
        'the account is not managed: the service holds no key to move its network currency; only its record is closed, so omit transferRemainingNetworkCurrencyTo',
      );
    return 0n;
  }
  if (!onchain || onchain.lamports === 0n) return 0n;
  checkTransferableSource(account.address, onchain, f);
  if (!hasDestination) {
    throw validationError(
      destination,
      `account ${account.address} still holds ${fromBaseUnits(onchain.lamports, NETWORK_CURRENCY_DECIMALS)} of network currency (${onchain.lamports} lamports): name where they go in transferRemainingNetworkCurrencyTo`,
    );
  }
  return onchain.lamports;
}

/** What the stored records say of the account: this organization's, ACTIVE, owning no active position, the mint of no active instrument. */
export function checkInactivatable(
  account: { organizationId: string; status: string },
  organizationId: string,
  activePositions: number,
  mintOfActiveInstrument: boolean,
): void {
  const f = 'itemData.accountToInactivate';
  checkOwnAccount(account, organizationId, f, 'inactivate it');
  if (account.status !== 'ACTIVE') throw validationError(f, `the account is already ${account.status}`);
  if (activePositions > 0)
    throw validationError(
      f,
      `the account owns ${activePositions} active position(s): inactivate them first (Inactivate Position), so no token balance stays behind an account the service no longer signs for`,
    );
  if (mintOfActiveInstrument)
    throw validationError(f, 'the account is the mint of an active financial instrument: close the instrument with Close Financial Instrument instead');
}

/** The sweep goes elsewhere, and the fee payer is not the account emptied. */
export function checkSweep(account: string, destination: string | undefined, feePayer?: string): void {
  if (destination === account) throw validationError('itemData.transferRemainingNetworkCurrencyTo', 'the destination is the account being inactivated');
  if (feePayer === account)
    throw validationError('svmTransactionConfig.feePayer', 'the account being inactivated cannot pay the fee of its own sweep: its whole balance moves');
}
