/** Create Account in the pipeline: resolve the new address (a new or imported key), then record it. */
import type { CreateAccountItemData } from '../../../domain/operations/accounts/account.inputs';
import { Account, AddressLookupTable, DurableNonceAccount } from '../../../db/entities';
import { NONCE_ACCOUNT_SIZE, nonceAccountRow } from '../../../domain/operations/durable-nonces/create-durable-nonce-accounts.rules';
import { newTableRecord } from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import {
  chainVerifiedKind,
  checkOnboardedLookupTable,
  checkOnboardedNonce,
  checkTableNotOnRecord,
  onboardedTableFlags,
} from '../../../domain/operations/accounts/onboarded-kinds.rules';
import { readLookupTableToOnboard } from '../../../network/lookup-tables';
import { appendComponents, type Component } from '../address-lookup-tables/lookup-table-components';
import { createAccountRecord, createdBy, payloadFields } from '../../../db/repositories/accounts.repository';
import {
  accountTypeOf,
  checkNotOnboarded,
  checkOnchainExistence,
  keyLocationOf,
  lamportsForNewAccount,
  planCreateAccount,
  thresholdPlayers,
} from '../../../domain/operations/accounts/create-account.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActivityDeps } from '../../deps';
import { scopeOf, type OperationHandler, type OperationRequest } from '../operation-handler';
import { resolveFeePayer, offchainOnly } from '../fee-payer';
import { checkApprovers, type DebitLimit } from '../../../domain/debit-limits';
import { storedTokenDebitLimits } from './token-debit-limits';
import { usableApprovers } from '../../../db/repositories/organizations.repository';

/** What the chain says of an onboarded nonce account or table: its record beside the account's is built from this. */
type ChainVerified =
  | { kind: 'NONCE'; authority: string; authorityAccountId: string | null; nonce: string }
  | {
      kind: 'ADDRESS_LOOKUP_TABLE';
      authority: string;
      authorityAccountId: string | null;
      managed: boolean;
      components: Component[];
      flags: ReturnType<typeof onboardedTableFlags>;
    };

interface CreateAccountData {
  /** An onboarded NONCE or ADDRESS_LOOKUP_TABLE account, as verified against the chain. */
  chainVerified?: ChainVerified;
  newAddress: string;
  lamports: string;
  createWithKey: boolean;
  accountId: string;
  /** The request's token limits with their mint authorities resolved to addresses. */
  tokenDebitLimits?: DebitLimit[];
}

export const createAccountHandler: OperationHandler<CreateAccountItemData, CreateAccountData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const managed = item.managed ?? true;
    const network = deps.networks.get(request.cluster)!;
    // Before a key is made: approvers that can never approve are refused.
    checkApprovers(item, await usableApprovers(em, request.organizationId, item));
    const tokenDebitLimits = await storedTokenDebitLimits(em, scopeOf(request), item.tokenDebitLimits);

    let newAddress: string;
    // A key this request generates: its address is known to nobody but this write yet.
    let generated = false;
    const dkgKey = item.privateKeyDetails?.dkgKeys?.[0];
    if (dkgKey) {
      newAddress = await generateThresholdKey(em, deps, request.organizationId, `${request.transactionId}:new-account`, dkgKey);
      generated = true;
    } else if (item.privateKeyDetails?.privateKey) {
      newAddress = await deps.keyStore.import(em, request.organizationId, deps.sealer.unseal(item.privateKeyDetails.privateKey), keyLocationOf(item));
    } else if (managed) {
      newAddress = await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:new-account`, keyLocationOf(item));
      generated = true;
    } else {
      newAddress = item.onchainId!;
    }

    checkNotOnboarded(newAddress, Boolean(await em.findOne(Account, { ...scopeOf(request), address: newAddress })));
    // A generated address is not asked about: no account can be there before this write's own lands
    // (lookup runs before anything is built or sent, and once only: a replay answers the resolution stored).
    const existsOnchain = item.alreadyOnchain
      ? item.skipBlockchainExistenceVerification || (await network.accountExists(newAddress))
      : !generated && (await network.accountExists(newAddress));
    checkOnchainExistence(item, newAddress, request.cluster, existsOnchain);

    if (item.alreadyOnchain) {
      const chainVerified = await verifyAgainstChain(em, deps, request, newAddress);
      // The record starts at what the address holds (reconciliation compares it with the chain); 0 where nothing is there yet.
      const lamports = existsOnchain ? await network.getBalance(newAddress, 'confirmed') : 0n;
      const data: CreateAccountData = {
        newAddress,
        lamports: lamports.toString(),
        createWithKey: false,
        accountId: request.newRecordId!,
        tokenDebitLimits,
        chainVerified,
      };
      return offchainOnly(deps.feePayerAddress, data);
    }

    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const dataLength = item.dataLength ?? 0;
    const lamports = lamportsForNewAccount(item, await network.getMinimumBalanceForRentExemption(dataLength));
    const createWithKey = managed;
    const data: CreateAccountData = { newAddress, lamports: lamports.toString(), createWithKey, accountId: request.newRecordId!, tokenDebitLimits };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: createWithKey ? [feePayer.address, newAddress] : [feePayer.address],
      debits: [
        {
          accountId: feePayer.accountId,
          address: feePayer.address,
          asset: 'NETWORK_CURRENCY',
          amount: lamports.toString(),
          destination: { address: newAddress, class: managed ? 'MANAGED' : 'NON_MANAGED' },
        },
      ],
      webhooks: { preSubmit: feePayer.webhooks.preSubmit, postSubmit: feePayer.webhooks.postSubmit || hasItemWebhooks(item) },
      reservesAddress: newAddress,
      data,
    };
  },

  instructions(request, resolved) {
    const item = request.itemData;
    const data = resolved.data;
    return planCreateAccount({
      feePayer: resolved.feePayer,
      newAddress: data.newAddress,
      lamports: BigInt(data.lamports),
      dataLength: item.dataLength ?? 0,
      createWithKey: data.createWithKey,
    });
  },

  async record(em, request, resolved, outcome, tx, at) {
    const item = request.itemData;
    const data = resolved.data;
    if (outcome && outcome.status !== 'CONFIRMED' && outcome.status !== 'FINALIZED' && outcome.status !== 'SUBMITTED') return undefined;
    const managed = item.managed ?? true;
    const sent = outcome ? tx : null;
    createAccountRecord(
      em,
      {
        id: data.accountId,
        organizationId: request.organizationId,
        cluster: request.cluster,
        address: data.newAddress,
        type: accountTypeOf(item),
        managed,
        privateKeyLocation: managed ? [keyLocationOf(item)] : [],
        ...payloadFields(item),
        wasOnchainAlready: item.alreadyOnchain ?? false,
        canPayFees: item.canPayFees ?? false,
        globalFeePayerForOrgs: item.globalFeePayerForOrgs ?? [],
        solDebitApiKeys: item.networkCurrencyDebitApiKeys ?? [],
        tokenDebitApiKeys: item.tokenDebitApiKeys ?? [],
        networkCurrencyDebitLimits: item.networkCurrencyDebitLimits ?? null,
        tokenDebitLimits: data.tokenDebitLimits ?? null,
        missingSignatureWebhooks: item.missingSignatureWebhooks ?? [],
        preTransactionSubmitWebhooks: item.preTransactionSubmitWebhooks ?? [],
        postTransactionSubmitWebhooks: item.postTransactionSubmitWebhooks ?? [],
        // An onboarded nonce account is the network's 80 bytes.
        dataLength: data.chainVerified?.kind === 'NONCE' ? NONCE_ACCOUNT_SIZE : (item.dataLength ?? 0),
        tokenVersion: item.tokenVersion ?? null,
        lamportsBalance: BigInt(data.lamports),
        // An onboarding (no network transaction) has no creation transaction, though its write has a record.
        ...createdBy(sent, at),
      },
      at,
    );
    recordChainVerified(em, request, data, at);
    linkRecords(tx, [data.accountId]);
    return { onchainId: data.newAddress, offchainId: data.accountId };
  },
};

/**
 * An onboarded NONCE or ADDRESS_LOOKUP_TABLE account checked against the chain (owner program,
 * initialized nonce or table, authority resolved to its record); undefined for other kinds.
 */
async function verifyAgainstChain(
  em: EntityManager,
  deps: ActivityDeps,
  request: OperationRequest<CreateAccountItemData>,
  address: string,
): Promise<ChainVerified | undefined> {
  const kind = chainVerifiedKind(request.itemData);
  if (!kind) return undefined;
  const scope = scopeOf(request);
  const network = deps.networks.get(request.cluster)!;
  const recordOf = async (onchainId: string) => em.findOne(Account, { ...scope, address: onchainId });
  if (kind === 'NONCE') {
    const { authority, nonce } = checkOnboardedNonce(await network.getAccount(address), address, request.cluster);
    return { kind, authority, authorityAccountId: (await recordOf(authority))?.id ?? null, nonce };
  }
  checkTableNotOnRecord(!!(await em.findOne(AddressLookupTable, { ...scope, address })), address);
  const state = checkOnboardedLookupTable(await readLookupTableToOnboard(network, address), address, request.cluster);
  const authority = await recordOf(state.authority);
  const onRecord = await em.find(Account, { ...scope, address: { $in: state.addresses } });
  return {
    kind,
    authority: state.authority,
    authorityAccountId: authority?.id ?? null,
    managed: authority?.managed ?? false,
    components: state.addresses.map((a) => ({ address: a, accountId: onRecord.find((r) => r.address === a)?.id ?? null })),
    flags: onboardedTableFlags(state),
  };
}

/** The nonce account's or table's record, as Create Durable Nonce Accounts and Create Address Lookup Table record theirs (same id as the account). */
function recordChainVerified(em: EntityManager, request: OperationRequest<CreateAccountItemData>, data: CreateAccountData, at: Date): void {
  const verified = data.chainVerified;
  if (!verified) return;
  const scope = scopeOf(request);
  const item = request.itemData;
  const authority = { address: verified.authority, accountId: verified.authorityAccountId };
  if (verified.kind === 'NONCE') {
    const row = nonceAccountRow(scope, { id: data.accountId, address: data.newAddress }, item.offchainReferences?.code ?? null, authority, at);
    em.create(DurableNonceAccount, { ...row, nonceHash: verified.nonce });
    return;
  }
  const table = em.create(AddressLookupTable, {
    ...newTableRecord(
      {
        tableId: data.accountId,
        address: data.newAddress,
        recentSlot: null,
        authority: verified.authority,
        authorityAccountId: verified.authorityAccountId,
        managed: verified.managed,
      },
      scope,
      item,
      null,
    ),
    ...verified.flags,
  });
  appendComponents(table, verified.components, null, at);
}

type DkgKey = NonNullable<NonNullable<CreateAccountItemData['privateKeyDetails']>['dkgKeys']>[number];

/** The players must be configured ones and enough for the threshold (validation checked the rest). */
async function generateThresholdKey(em: EntityManager, deps: ActivityDeps, organizationId: string, requestKey: string, dkgKey: DkgKey): Promise<string> {
  const { players, threshold } = thresholdPlayers(dkgKey, deps.keyStore.dkgPlayers);
  // Validation allowed only SIGNING and the default key: what is stored is what the key does.
  return deps.keyStore.generateThreshold(em, organizationId, requestKey, {
    threshold,
    playerCodes: players,
    keyUsage: dkgKey.keyUsage ?? 'SIGNING',
    isDefault: true,
  });
}

function hasItemWebhooks(item: CreateAccountItemData): boolean {
  return (item.postTransactionSubmitWebhooks?.length ?? 0) > 0;
}
