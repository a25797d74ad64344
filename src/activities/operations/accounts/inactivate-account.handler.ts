/**
 * Inactivate Account (spec 3): the record becomes CLOSED. A managed account's remaining
 * lamports are swept to `transferRemainingNetworkCurrencyTo` in one transaction signed by the account
 * (the fee payer pays the fee, so the whole balance moves and the account leaves the chain). The sweep
 * is a debit like Transfer Network Currency: classified by destination, under the same limits.
 */
import { getTransferSolInstruction } from '@solana-program/system';
import { address, createNoopSigner } from '@solana/kit';
import type { InactivateAccountItemData } from '../../../domain/operations/accounts/account.inputs';
import { FinancialInstrument, Position } from '../../../db/entities';
import { assertMaySign, closeAccountRecord, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { forbidden, validationError } from '../../../domain/errors';
import { lamportsToSweep } from '../../../domain/operations/accounts/inactivate-account.rules';
import { offPlatformDestination, onboardedDestination } from '../../../domain/operations/accounts/transfer-network-currency.rules';
import type { Debit } from '../../../domain/write';
import { resolveFeePayer } from '../fee-payer';
import { landed, type OperationHandler } from '../operation-handler';

interface InactivateData {
  accountId: string;
  address: string;
  /** Where the remaining lamports go; null when nothing moves onchain. */
  destination: string | null;
  lamports: string;
}

export const inactivateAccountHandler: OperationHandler<InactivateAccountItemData, InactivateData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const f = 'itemData.accountToInactivate';
    const to = 'itemData.transferRemainingNetworkCurrencyTo';
    const scope = { organizationId: request.organizationId, cluster: request.cluster };
    const account = await findAccountByLookup(em, scope, item.accountToInactivate, f);
    if (account.organizationId !== request.organizationId) throw forbidden('only the organization that owns an account may inactivate it', f);
    if (account.status !== 'ACTIVE') throw validationError(f, `the account is already ${account.status}`);
    const positions = await em.count(Position, { cluster: request.cluster, status: 'ACTIVE', $or: [{ ownerAccountId: account.id }, { organizationId: account.organizationId, ownerAddress: account.address }] });
    if (positions > 0) {
      throw validationError(f, `the account owns ${positions} active position(s): inactivate them first (Inactivate Position), so no token balance stays behind an account the service no longer signs for`);
    }
    if (await em.count(FinancialInstrument, { mintAccountId: account.id, status: 'ACTIVE' })) {
      throw validationError(f, 'the account is the mint of an active financial instrument: close the instrument with Close Financial Instrument instead');
    }

    const onchain = account.managed ? await deps.networks.get(request.cluster)!.getAccount(account.address) : null;
    const lamports = lamportsToSweep(account, onchain && { owner: onchain.owner, lamports: onchain.lamports, dataLength: onchain.data.length }, Boolean(item.transferRemainingNetworkCurrencyTo));

    let destination: Debit['destination'] = null;
    if (item.transferRemainingNetworkCurrencyTo?.offPlatform) {
      destination = offPlatformDestination(offPlatformAddress(item.transferRemainingNetworkCurrencyTo, to));
    } else if (item.transferRemainingNetworkCurrencyTo) {
      destination = onboardedDestination(await findAccountByLookup(em, scope, item.transferRemainingNetworkCurrencyTo, to), to);
    }
    if (destination?.address === account.address) throw validationError(to, 'the destination is the account being inactivated');

    const data: InactivateData = { accountId: account.id, address: account.address, destination: lamports > 0n ? destination!.address : null, lamports: lamports.toString() };
    if (lamports === 0n) {
      return { needsTransaction: false, feePayer: deps.feePayerAddress, signers: [], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data };
    }
    assertMaySign(account, request.organizationId, request.organizationExternalId, f);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    if (feePayer.address === account.address) throw validationError('svmTransactionConfig.feePayer', 'the account being inactivated cannot pay the fee of its own sweep: its whole balance moves');
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [feePayer.address, account.address],
      debits: [{ accountId: account.id, address: account.address, asset: 'NETWORK_CURRENCY', amount: data.lamports, operationType: 'TRANSFER', destination: destination!, field: f }],
      webhooks: {
        preSubmit: feePayer.webhooks.preSubmit || account.preTransactionSubmitWebhooks.length > 0,
        postSubmit: feePayer.webhooks.postSubmit || account.postTransactionSubmitWebhooks.length > 0,
      },
      data,
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data;
    return [getTransferSolInstruction({ source: createNoopSigner(address(d.address)), destination: address(d.destination!), amount: BigInt(d.lamports) })];
  },

  /**
   * The pipeline leaves the balance of the record a write answers with to its handler (as for a
   * create), so the sweep's own change is applied here: exactly -lamports, the fee payer paying the
   * fee. One atomic statement, as the pipeline's own balance moves are, so concurrent writes commute.
   */
  async record(em, _request, resolved, outcome, tx, at) {
    if (outcome && !landed(outcome)) return undefined;
    const d = resolved.data;
    await closeAccountRecord(em, d.accountId, d.lamports, tx, at);
    // First in the list: a replayed record step answers the first account as the write's object.
    if (tx) tx.accountIds = [...new Set([d.accountId, ...tx.accountIds])];
    return { onchainId: d.address, offchainId: d.accountId };
  },
};
