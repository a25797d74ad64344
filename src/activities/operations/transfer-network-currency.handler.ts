/**
 * Transfer Network Currency (API.md 6): lamports from a managed account to any address, signed by the
 * source. The debit is classified by its destination (OFF_PLATFORM, NON_MANAGED, MANAGED) so the
 * limit-check step applies spec 8's limits to it.
 */
import { getTransferSolInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { TransferNetworkCurrencyItemData } from '../../domain/inputs/account.inputs';
import { assertMaySign, findAccountByLookup, offPlatformAddress } from '../../db/repositories/accounts.repository';
import { validationError } from '../../domain/errors';
import { NETWORK_CURRENCY_DECIMALS, resolveValue } from '../../domain/money';
import type { DestinationClass } from '../../domain/write';
import { resolveFeePayer } from './fee-payer';
import { MEMO_PROGRAM_V3 } from './token-movement';
import type { OperationHandler } from './operation-handler';

interface TransferSolData {
  source: string;
  destination: string;
  amount: string;
  memo: string | null;
}

export const transferNetworkCurrencyHandler: OperationHandler<TransferNetworkCurrencyItemData, TransferSolData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = { organizationId: request.organizationId, cluster: request.cluster };
    const source = await findAccountByLookup(em, scope, item.source, 'itemData.source');
    assertMaySign(source, request.organizationId, request.organizationExternalId, 'itemData.source');
    let destination: string;
    let destinationClass: DestinationClass;
    if (item.destination.offPlatform) {
      destination = offPlatformAddress(item.destination, 'itemData.destination');
      destinationClass = 'OFF_PLATFORM';
    } else {
      const account = await findAccountByLookup(em, scope, item.destination, 'itemData.destination');
      if (account.status !== 'ACTIVE') throw validationError('itemData.destination', `the destination account is ${account.status}`);
      destination = account.address;
      destinationClass = account.managed ? 'MANAGED' : 'NON_MANAGED';
    }
    if (destination === source.address) throw validationError('itemData.destination', 'the destination is the source');
    const amount = resolveValue(item.value, NETWORK_CURRENCY_DECIMALS, 'itemData.value');
    if (amount === 0n) throw validationError('itemData.value', 'the amount must be more than zero');
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const data: TransferSolData = { source: source.address, destination, amount: amount.toString(), memo: item.memo ?? null };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, source.address])],
      debits: [{ accountId: source.id, address: source.address, asset: 'NETWORK_CURRENCY', amount: data.amount, operationType: 'TRANSFER', destination: { address: destination, class: destinationClass } }],
      webhooks: feePayer.webhooks,
      data,
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data;
    const out: Instruction[] = [getTransferSolInstruction({ source: createNoopSigner(address(d.source)), destination: address(d.destination), amount: BigInt(d.amount) })];
    if (d.memo) out.push(getAddMemoInstruction({ memo: d.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never }));
    return out;
  },

  // Balances of onboarded accounts move in the record step from the network's own pre/post balances.
  async record() {
    return undefined;
  },
};
