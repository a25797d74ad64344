/**
 * Account lookups (spec 2.1) resolved against stored records, with the tenant rules:
 * a tenant sees its own accounts, and another tenant's only when that account is shared and the
 * lookup names the other tenant (`otherTenantOrganizationExternalId`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Organization, type LedgerTransaction } from '../entities';
import { forbidden, LedgerError, notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { CreateAccountItemData } from '../../domain/operations/accounts/account.inputs';
import { signedBy } from '../../domain/signers';

export interface TenantScope {
  organizationId: string;
  cluster: string;
}

/** The tenant a write's (or a caller's) lookups search: its organization on its cluster. */
export const scopeOf = (of: TenantScope): TenantScope => ({ organizationId: of.organizationId, cluster: of.cluster });

/** The onchain address a lookup names when the account is not onboarded (offPlatform). */
export function offPlatformAddress(lookup: AccountLookupInput, field: string): string {
  if (!lookup.onchainId) throw validationError(`${field}.onchainId`, `${field}.onchainId is required for an offPlatform account`);
  return lookup.onchainId;
}

/** The organization a lookup searches: the caller's, or the one `otherTenantOrganizationExternalId` names (its shared objects only). */
export async function lookupOrganizationId(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<string> {
  if (!lookup.otherTenantOrganizationExternalId) return scope.organizationId;
  const other = await em.findOne(Organization, { externalId: lookup.otherTenantOrganizationExternalId });
  if (!other) throw notFound(`${field}.otherTenantOrganizationExternalId`, `organization "${lookup.otherTenantOrganizationExternalId}" does not exist`);
  return other.id;
}

/** Finds the one account a lookup names; NOT_FOUND, FORBIDDEN or VALIDATION_ERROR (ambiguous) otherwise. */
export async function findAccountByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<Account> {
  const organizationId = await lookupOrganizationId(em, scope, lookup, field);
  const where: Record<string, unknown> = { organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.address = lookup.onchainId;
  const refs = lookup.offchainReferences;
  if (refs) {
    if (refs.alId) where.alId = refs.alId;
    if (refs.accountNumber) where.accountNumber = refs.accountNumber;
    if (refs.code) where.code = refs.code;
    if (refs.type) where.type = refs.type;
    if (refs.name) where.name = refs.name;
    if (refs.organizationExternalId) where.referenceOrganizationExternalId = refs.organizationExternalId;
  }
  if (!lookup.offchainId && !lookup.onchainId && Object.keys(where).length === 2) {
    throw validationError(field, `${field} needs onchainId, offchainId or offchainReferences`);
  }
  const found = await em.find(Account, where, { limit: 2 });
  if (found.length === 0) throw notFound(field, `${field}: no such account`);
  if (found.length > 1) throw validationError(`${field}.offchainReferences`, `${field} matches more than one account; add onchainId or offchainId`);
  const account = found[0];
  // Another tenant's unshared account stays invisible: the same answer as no account at all.
  if (organizationId !== scope.organizationId && !account.sharedAcrossTenants) throw notFound(field, `${field}: no such account`);
  return account;
}

/** Whether the organization may sign with a managed account's key (owner, or listed in orgsAllowedToSignWithPrivateKey). */
export function maySign(
  account: Pick<Account, 'managed' | 'organizationId' | 'orgsAllowedToSignWithPrivateKey'>,
  organizationId: string,
  organizationExternalId: string,
): boolean {
  return account.managed && (account.organizationId === organizationId || account.orgsAllowedToSignWithPrivateKey.includes(organizationExternalId));
}

/** The account may sign for this organization: managed, usable by it, and not CLOSED (a closed account neither signs nor is debited). */
export function assertMaySign(account: Account, organizationId: string, organizationExternalId: string, field: string): void {
  if (account.status !== 'ACTIVE')
    throw validationError(field, `${field} (account ${account.address}) is ${account.status}: a closed account no longer signs or pays`);
  if (!account.managed) throw new LedgerError('VALIDATION_ERROR', `${field} is not managed: the service holds no key to sign with`, field);
  if (!maySign(account, organizationId, organizationExternalId)) throw forbidden(`this organization may not sign with ${field}`, field);
}

/**
 * Whether the service signs for an account the write needs a signature of, or the write waits for
 * that signature (the rule `signedBy`, docs/signatures.md): a key the service does not hold or this organization
 * may not use, or a lookup with `autoSign: false`. A closed account is still refused (VALIDATION_ERROR).
 * For a handler whose lookup may name its signer by role only (a position's `owner: {autoSign: false}`).
 */
export function signerMode(
  account: Account,
  organizationId: string,
  organizationExternalId: string,
  autoSign: boolean | undefined,
  field: string,
): 'SIGNS' | 'AWAITED' {
  if (account.status !== 'ACTIVE')
    throw validationError(field, `${field} (account ${account.address}) is ${account.status}: a closed account no longer signs or pays`);
  const usable = maySign(account, organizationId, organizationExternalId);
  const by = signedBy({ feePayer: false, autoSignOff: autoSign === false, awaitedByHandler: false, usableRecords: [usable] });
  return by === 'SERVICE' ? 'SIGNS' : 'AWAITED';
}

/** The fields every new account record needs; callers name what differs from the defaults. */
export type NewAccount = Pick<Account, 'id' | 'organizationId' | 'cluster' | 'address' | 'type' | 'managed'> & Partial<Account>;

/** The last- and creation-transaction fields of a record made by `tx` (all null when no transaction made it: an onboarding). */
export function createdBy(tx: { id: string; signature?: string | null } | null | undefined, at: Date) {
  const signature = tx?.signature ?? null;
  return {
    lastTransactionId: tx?.id ?? null,
    lastTransactionSignature: signature,
    lastTransactionAt: tx ? at : null,
    creationTransactionId: tx?.id ?? null,
    creationTransactionSignature: signature,
    creationTransactionAt: tx ? at : null,
  };
}

/** The record fields an account payload (spec 2.3) names for itself, whatever creates the account (Create Account, Create Durable Nonce Accounts). */
export function payloadFields(item: CreateAccountItemData) {
  const refs = item.offchainReferences ?? {};
  return {
    code: refs.code ?? null,
    alId: refs.alId ?? null,
    accountNumber: refs.accountNumber ?? null,
    name: refs.name ?? null,
    referenceOrganizationExternalId: refs.organizationExternalId ?? null,
    isDerived: item.isDerived ?? false,
    isGenesis: item.isGenesis ?? false,
    comments: item.comments ?? null,
    subscribeToNetworkEvents: item.subscribeToNetworkEvents ?? false,
    sharedAcrossTenants: item.shareAcrossTenants ?? false,
    orgsAllowedToSignWithPrivateKey: item.orgsAllowedToSignWithPrivateKey ?? [],
    domain: item.domain ?? null,
  };
}

/** Creates an account record with the defaults of a plain, active, unshared account. */
export function createAccountRecord(em: EntityManager, fields: NewAccount, at: Date): Account {
  return em.create(Account, {
    code: null,
    alId: null,
    accountNumber: null,
    name: null,
    referenceOrganizationExternalId: null,
    status: 'ACTIVE',
    privateKeyLocation: fields.managed ? ['DATABASE'] : [],
    isDerived: false,
    isGenesis: false,
    comments: null,
    subscribeToNetworkEvents: false,
    sharedAcrossTenants: false,
    wasOnchainAlready: false,
    canPayFees: false,
    globalFeePayerForOrgs: [],
    orgsAllowedToSignWithPrivateKey: [],
    solDebitApiKeys: [],
    tokenDebitApiKeys: [],
    networkCurrencyDebitLimits: null,
    tokenDebitLimits: null,
    missingSignatureWebhooks: [],
    preTransactionSubmitWebhooks: [],
    postTransactionSubmitWebhooks: [],
    domain: null,
    dataLength: 0,
    tokenVersion: null,
    lamportsBalance: 0n,
    tokenDecimals: 9,
    lastTransactionId: null,
    lastTransactionSignature: null,
    lastTransactionAt: null,
    creationTransactionId: null,
    creationTransactionSignature: null,
    creationTransactionAt: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  });
}

/**
 * The address of an authority whose signature the write needs: its account record must exist
 * (onboarded) and be ACTIVE (VALIDATION_ERROR naming `field`). The service signs with its key when
 * this organization may use it; otherwise the write waits for the signature (the lookup step decides
 * for every signer, docs/signatures.md).
 */
export async function requireSigner(em: EntityManager, accountId: string | null | undefined, field: string, what: string): Promise<string> {
  const account = accountId ? await em.findOne(Account, { id: accountId }) : null;
  if (!account) throw validationError(field, `the ${what} is not onboarded, so the service cannot ask for its signature`);
  if (account.status !== 'ACTIVE')
    throw validationError(field, `${field} (account ${account.address}) is ${account.status}: a closed account no longer signs or pays`);
  return account.address;
}

/**
 * The address of an owner whose signature a write needs: the service signs when it may (SIGNS), or
 * the write waits for it through Sign Transaction (AWAITED: a key it does not hold or may not use,
 * or `autoSign: false` in the request's lookup). It must be onboarded (VALIDATION_ERROR naming `field`).
 */
export async function ownerSignature(
  em: EntityManager,
  accountId: string | null | undefined,
  organizationId: string,
  organizationExternalId: string,
  autoSign: boolean | undefined,
  field: string,
  what: string,
): Promise<{ address: string; mode: 'SIGNS' | 'AWAITED' }> {
  const account = accountId ? await em.findOne(Account, { id: accountId }) : null;
  if (!account) throw validationError(field, `the ${what} is not onboarded`);
  return { address: account.address, mode: signerMode(account, organizationId, organizationExternalId, autoSign, field) };
}

/** The transaction an account's record names as its last. */
type LastTransaction = Pick<LedgerTransaction, 'id' | 'signature'>;

/**
 * Moves an account's offchain lamports by `delta` (signed base units) and marks `tx` its last
 * transaction, in one statement: concurrent record steps touching one account commute. Another
 * tenant's record (`ownRecord` false) takes the chain's facts only, the balance and the signature:
 * the transaction record is not that tenant's to see, so its offchain last transaction stays its own.
 */
export async function moveAccountLamports(em: EntityManager, accountId: string, delta: bigint, tx: LastTransaction, at: Date, ownRecord = true): Promise<void> {
  await em
    .getConnection()
    .execute(
      'update account set lamports_balance = lamports_balance + ?, last_transaction_id = coalesce(?, last_transaction_id), last_transaction_signature = ?, last_transaction_at = ?, updated_at = ? where id = ?',
      [delta.toString(), ownRecord ? tx.id : null, tx.signature, at, at, accountId],
      'run',
      em.getTransactionContext(),
    );
}

/** Marks an account CLOSED, less the `lamports` swept out of it, in one statement; `tx` (when given) becomes its last transaction. */
export async function closeAccountRecord(em: EntityManager, accountId: string, lamports: string, tx: LastTransaction | null, at: Date): Promise<void> {
  await em.getConnection().execute(
    `update account set status = 'CLOSED', lamports_balance = lamports_balance - ?, last_transaction_id = coalesce(?, last_transaction_id),
       last_transaction_signature = coalesce(?, last_transaction_signature), last_transaction_at = coalesce(?, last_transaction_at), updated_at = ? where id = ?`,
    [lamports, tx?.id ?? null, tx?.signature ?? null, tx ? at : null, at, accountId],
    'run',
    em.getTransactionContext(),
  );
}

/** What an account's record becomes when the account is made a token account. */
export interface TokenAccountFields {
  type: string;
  dataLength: number;
  tokenVersion: string;
  tokenDecimals: number;
  /** Lamports added to its balance (decimal string). */
  topUp: string;
}

/** Makes an account's record a token account and adds its top-up, in one statement; `tx` becomes its last transaction. */
export async function markTokenAccount(em: EntityManager, accountId: string, fields: TokenAccountFields, tx: LastTransaction | null, at: Date): Promise<void> {
  await em
    .getConnection()
    .execute(
      'update account set type = ?, data_length = ?, token_version = ?, token_decimals = ?, lamports_balance = lamports_balance + ?, last_transaction_id = ?, last_transaction_signature = ?, last_transaction_at = ?, updated_at = ? where id = ?',
      [fields.type, fields.dataLength, fields.tokenVersion, fields.tokenDecimals, fields.topUp, tx?.id ?? null, tx?.signature ?? null, at, at, accountId],
      'run',
      em.getTransactionContext(),
    );
}
