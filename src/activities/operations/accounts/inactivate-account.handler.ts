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
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { assertMaySign, closeAccountRecord, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { checkInactivatable, checkSweep, lamportsToSweep } from '../../../domain/operations/accounts/inactivate-account.rules';
import { offPlatformDestination, onboardedDestination } from '../../../domain/operations/accounts/transfer-network-currency.rules';
import type { Debit } from '../../../domain/write';
import { resolveFeePayer, offchainOnly } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';

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
    const scope = scopeOf(request);
    const account = await findAccountByLookup(em, scope, item.accountToInactivate, f);
    const owned = account.organizationId === request.organizationId && account.status === 'ACTIVE';
    const positions = owned
      ? await em.count(Position, {
          cluster: request.cluster,
          status: 'ACTIVE',
          $or: [{ ownerAccountId: account.id }, { organizationId: account.organizationId, ownerAddress: account.address }],
        })
      : 0;
    const mintOfActiveInstrument = owned && positions === 0 && (await em.count(FinancialInstrument, { mintAccountId: account.id, status: 'ACTIVE' })) > 0;
    checkInactivatable(account, request.organizationId, positions, mintOfActiveInstrument);

    const onchain = account.managed ? await deps.networks.get(request.cluster)!.getAccount(account.address) : null;
    const lamports = lamportsToSweep(
      account,
      onchain && { owner: onchain.owner, lamports: onchain.lamports, dataLength: onchain.data.length },
      Boolean(item.transferRemainingNetworkCurrencyTo),
    );

    let destination: Debit['destination'] = null;
    if (item.transferRemainingNetworkCurrencyTo?.offPlatform) {
      destination = offPlatformDestination(offPlatformAddress(item.transferRemainingNetworkCurrencyTo, to));
    } else if (item.transferRemainingNetworkCurrencyTo) {
      destination = onboardedDestination(await findAccountByLookup(em, scope, item.transferRemainingNetworkCurrencyTo, to), to);
    }
    checkSweep(account.address, destination?.address);

    const data: InactivateData = {
      accountId: account.id,
      address: account.address,
      destination: lamports > 0n ? destination!.address : null,
      lamports: lamports.toString(),
    };
    if (lamports === 0n) {
      return offchainOnly(deps.feePayerAddress, data);
    }
    assertMaySign(account, request.organizationId, request.organizationExternalId, f);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    checkSweep(account.address, undefined, feePayer.address);
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [feePayer.address, account.address],
      debits: [
        {
          accountId: account.id,
          address: account.address,
          asset: 'NETWORK_CURRENCY',
          amount: data.lamports,
          operationType: 'TRANSFER',
          destination: destination!,
          field: f,
        },
      ],
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
    linkRecords(tx, [d.accountId], true);
    return { onchainId: d.address, offchainId: d.accountId };
  },
};
