/**
 * Create Durable Nonce Accounts in the pipeline: new managed keys (one per account, generated once
 * per write), then NONCE_ACCOUNTS_PER_TRANSACTION accounts per network transaction, each created
 * rent-exempt and initialized with the authority; each landed transaction records its accounts.
 */
import type { CreateDurableNonceAccountsItemData } from '../../../domain/operations/durable-nonces/durable-nonce.inputs';
import { Account, DurableNonceAccount } from '../../../db/entities';
import { createAccountRecord, createdBy, payloadFields, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { uuidFromText } from '../../../domain/ids';
import { NONCE_ACCOUNTS_PER_TRANSACTION, nonceBatch, nonceTransactionCount } from '../../../domain/durable-nonce';
import {
  checkNoOnchainId,
  checkNonceAuthority,
  NONCE_ACCOUNT_SIZE,
  nonceAccountRow,
  planNonceAccounts,
} from '../../../domain/operations/durable-nonces/create-durable-nonce-accounts.rules';
import { keyLocationOf } from '../../../domain/operations/accounts/create-account.rules';
import { readNonce } from '../../../network/lifetime';
import { resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';

interface CreateNonceAccountsData {
  authority: string;
  /** The authority's account record (null: an offPlatform authority). */
  authorityAccountId: string | null;
  lamports: string;
  /** Every new nonce account of the write, in order (transaction `part` creates nonceBatch(count, part)). */
  accounts: { address: string; id: string }[];
}

export const createDurableNonceAccountsHandler: OperationHandler<CreateDurableNonceAccountsItemData, CreateNonceAccountsData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const network = deps.networks.get(request.cluster)!;
    const onchainId = item.nonceAccount.onchainId;
    checkNoOnchainId(onchainId, !!onchainId && !!(await em.findOne(Account, { ...scope, address: onchainId })));
    const authorityField = 'itemData.nonceAuthority';
    const authority = item.nonceAuthority.offPlatform
      ? { address: offPlatformAddress(item.nonceAuthority, authorityField), id: null }
      : await findAccountByLookup(em, scope, item.nonceAuthority, authorityField);
    checkNonceAuthority(authority);

    const accounts: CreateNonceAccountsData['accounts'] = [];
    for (let i = 0; i < item.numberOfNonceAccounts; i++) {
      // Keyed by the write and the index: a replayed lookup gets the same keys and record ids.
      const address = await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:nonce-account-${i}`, keyLocationOf(item.nonceAccount));
      accounts.push({ address, id: uuidFromText(`${request.transactionId}\nnonce-account\n${i}`) });
    }
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const lamports = await network.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_SIZE);
    const data: CreateNonceAccountsData = { authority: authority.address, authorityAccountId: authority.id, lamports: lamports.toString(), accounts };
    const count = nonceTransactionCount(accounts.length);
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [feePayer.address, ...accounts.map((a) => a.address)],
      debits: accounts.map((a, i) => ({
        accountId: feePayer.accountId,
        address: feePayer.address,
        asset: 'NETWORK_CURRENCY' as const,
        amount: lamports.toString(),
        destination: { address: a.address, class: 'MANAGED' as const },
        part: Math.floor(i / NONCE_ACCOUNTS_PER_TRANSACTION),
      })),
      webhooks: feePayer.webhooks,
      transactionCount: count,
      data,
    };
  },

  instructions(_request, resolved, part) {
    const data = resolved.data;
    const addresses = nonceBatch(data.accounts.length, part).map((i) => data.accounts[i].address);
    return planNonceAccounts({ feePayer: resolved.feePayer, authority: data.authority, lamports: BigInt(data.lamports), addresses });
  },

  async record(em, request, resolved, outcome, tx, at, part) {
    if (!landed(outcome)) return undefined;
    const item = request.itemData.nonceAccount;
    const data = resolved.data;
    for (const i of nonceBatch(data.accounts.length, part)) {
      const { address, id } = data.accounts[i];
      createAccountRecord(
        em,
        {
          id,
          organizationId: request.organizationId,
          cluster: request.cluster,
          address,
          type: 'NONCE',
          managed: true,
          privateKeyLocation: [keyLocationOf(item)],
          ...payloadFields(item),
          dataLength: NONCE_ACCOUNT_SIZE,
          lamportsBalance: BigInt(data.lamports),
          ...createdBy(tx, at),
        },
        at,
      );
      em.create(
        DurableNonceAccount,
        nonceAccountRow(
          scopeOf(request),
          { id, address },
          item.offchainReferences?.code ?? null,
          { address: data.authority, accountId: data.authorityAccountId, autoSign: request.itemData.nonceAuthority.autoSign },
          at,
        ),
      );
      linkRecords(tx, [id]);
    }
    return undefined;
  },

  /** The nonce values the new accounts hold, read from the chain (the transaction that initialized them landed). */
  async reconcile(em, deps, request, resolved) {
    const network = deps.networks.get(request.cluster)!;
    const rows = await em.find(DurableNonceAccount, { id: { $in: resolved.data.accounts.map((a) => a.id) }, nonceHash: null });
    for (const row of rows) row.nonceHash = (await readNonce(network, row.address))?.nonce ?? null;
    await em.flush();
  },
};
