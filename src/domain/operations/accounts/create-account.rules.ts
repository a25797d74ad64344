/**
 * Create Account (spec 2.3): the rules checked before anything is written, and the plan of the
 * network transaction. Pure: the lookup step supplies addresses and the rent-exempt minimum.
 */
import { getCreateAccountInstruction, getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { CreateAccountItemData } from './account.inputs';
import { createdByOwnOperation, walletTypes, type AccountType } from '../../account-types';
import { conflict, forbidden, validationError } from '../../errors';
import { NETWORK_CURRENCY_DECIMALS, resolveValue } from '../../money';
import { checkDebitLimitFields } from './debit-limit.rules';
import { checkWebhookFields } from './webhook-config.rules';
import { validateChainVerifiedKind } from './onboarded-kinds.rules';

export interface CreateAccountPermissions {
  updateDebitApiKeys: boolean;
}

/** Where a managed account's key is kept: the one location asked for, DATABASE by default. */
export const keyLocationOf = (item: CreateAccountItemData): 'DATABASE' | 'SECRETS' => item.privateKeyDetails?.location?.[0] ?? 'DATABASE';

export const accountTypeOf = (item: CreateAccountItemData): AccountType => item.offchainReferences?.type ?? 'WALLET';

/**
 * What a threshold key is used for. An account is one address, i.e. one Ed25519 key, and the only
 * thing the service does with it is sign the account's transactions: so one usage, SIGNING (the
 * default), and the one key is always the default one (docs/threshold-keys.md).
 */
export const dkgKeyUsages = ['SIGNING'] as const;

/** dkgKeys (a threshold key among backend players): one entry, a new managed account, threshold at least 2. */
function validateDkgKeys(item: CreateAccountItemData): void {
  const dkgKeys = item.privateKeyDetails?.dkgKeys;
  if (!dkgKeys?.length) return;
  const f = 'itemData.privateKeyDetails.dkgKeys';
  if (dkgKeys.length > 1) throw validationError(f, 'an account is one address, i.e. one key: give one dkgKeys entry (keyUsage SIGNING, the default key)');
  if (item.managed === false) throw validationError(f, 'dkgKeys generates a key the service holds (in shares): the account must be managed');
  if (item.privateKeyDetails?.privateKey !== undefined) throw validationError(f, 'give either privateKey (import) or dkgKeys (a new threshold key), not both');
  if (item.alreadyOnchain) throw validationError(f, 'dkgKeys generates a new key, so the account cannot already be onchain');
  const entry = dkgKeys[0]!;
  if (entry.keyUsage !== undefined && !(dkgKeyUsages as readonly string[]).includes(entry.keyUsage)) {
    throw validationError(
      `${f}[0].keyUsage`,
      `keyUsage must be one of ${dkgKeyUsages.join(', ')}: the key is the account's address and signs its transactions`,
    );
  }
  if (entry.isDefault === false)
    throw validationError(
      `${f}[0].isDefault`,
      "the account's one key is its default key (it signs the account's transactions): omit isDefault or set it to true",
    );
  const threshold = entry.session?.threshold;
  if (threshold === undefined) throw validationError(`${f}[0].session.threshold`, 'session.threshold (how many players must sign) is required');
  if (threshold < 2) throw validationError(`${f}[0].session.threshold`, 'a threshold key needs at least 2 signing players');
  const players = entry.useBackendPlayersCodes;
  if (players && new Set(players).size !== players.length) throw validationError(`${f}[0].useBackendPlayersCodes`, 'backend player codes must be distinct');
  if (players && threshold > players.length)
    throw validationError(`${f}[0].session.threshold`, `threshold ${threshold} exceeds the ${players.length} players in useBackendPlayersCodes`);
}

/** Checks spec 2.3's rules; throws VALIDATION_ERROR or FORBIDDEN naming the field. */
export function validateCreateAccount(item: CreateAccountItemData, can: CreateAccountPermissions): void {
  const f = 'itemData';
  const type = accountTypeOf(item);
  const managed = item.managed ?? true;
  const pointer = createdByOwnOperation[type];
  if (pointer && !item.alreadyOnchain) throw validationError(`${f}.offchainReferences.type`, `accounts of type ${type} ${pointer}`);
  if ((item.privateKeyDetails?.location?.length ?? 0) > 1)
    throw validationError(`${f}.privateKeyDetails.location`, 'a key is kept in one location: DATABASE or SECRETS');
  if (item.privateKeyDetails?.location?.length && !managed)
    throw validationError(`${f}.privateKeyDetails.location`, 'a non-managed account has no private key in the service');
  validateDkgKeys(item);
  const importsKey = item.privateKeyDetails?.privateKey !== undefined;
  if (!managed && importsKey)
    throw validationError(`${f}.privateKeyDetails.privateKey`, 'a non-managed account has no private key in the service; set managed to true to import one');
  if (managed && item.alreadyOnchain && !importsKey)
    throw validationError(`${f}.privateKeyDetails.privateKey`, 'onboarding a managed account that is already onchain needs its private key');
  if (!importsKey && item.privateKeyDetails?.publickKey)
    throw validationError(`${f}.privateKeyDetails.publickKey`, 'publickKey is checked against an imported privateKey; a new managed account gets a new key');
  if (managed && !importsKey && item.onchainId)
    throw validationError(
      `${f}.onchainId`,
      'a new managed account gets a new key and address; omit onchainId or import the key with privateKeyDetails.privateKey',
    );
  if (!managed && !item.onchainId) throw validationError(`${f}.onchainId`, 'a non-managed account is onboarded by address: onchainId is required');
  if (!managed && !item.alreadyOnchain && (item.dataLength ?? 0) > 0)
    throw validationError(`${f}.dataLength`, 'reserving space needs the account to sign; a non-managed account can only be created with dataLength 0');
  if (item.alreadyOnchain && item.seed) throw validationError(`${f}.seed`, 'seed applies to accounts created by this request, not to accounts already onchain');
  if (item.alreadyOnchain && item.dataLength)
    throw validationError(`${f}.dataLength`, 'dataLength applies to accounts created by this request, not to accounts already onchain');
  if (item.seed) resolveValue(item.seed, NETWORK_CURRENCY_DECIMALS, `${f}.seed`);
  if ((item.networkCurrencyDebitApiKeys?.length || item.tokenDebitApiKeys?.length) && !can.updateDebitApiKeys) {
    throw forbidden(
      'setting networkCurrencyDebitApiKeys or tokenDebitApiKeys needs the UPDATE_DEBIT_API_KEYS role',
      item.networkCurrencyDebitApiKeys?.length ? `${f}.networkCurrencyDebitApiKeys` : `${f}.tokenDebitApiKeys`,
    );
  }
  checkDebitLimitsApply(item, type);
  checkDebitLimitFields(item);
  checkWebhookFields(item);
  validateChainVerifiedKind(item);
}

type DebitLimitFields = Pick<CreateAccountItemData, 'networkCurrencyDebitLimits' | 'tokenDebitLimits'>;

/** Spec 8: debit limits apply only to wallet kinds (`type`: the request's, or a stored record's). VALIDATION_ERROR naming the list. */
export function checkDebitLimitsApply(item: DebitLimitFields, type: string, f = 'itemData'): void {
  if ((item.networkCurrencyDebitLimits?.length || item.tokenDebitLimits?.length) && !walletTypes.some((wallet) => wallet === type)) {
    throw validationError(
      item.networkCurrencyDebitLimits?.length ? `${f}.networkCurrencyDebitLimits` : `${f}.tokenDebitLimits`,
      `debit limits apply only to ${walletTypes.join(', ')} accounts`,
    );
  }
}

/**
 * Lamports the new account receives: the seed, raised to the rent-exempt minimum for its size so
 * the account can exist (spec 2.3 rule 2: with dataLength > 0 that balance stays locked in it).
 */
export function lamportsForNewAccount(item: CreateAccountItemData, rentExemptMinimum: bigint): bigint {
  const seed = item.seed ? resolveValue(item.seed, NETWORK_CURRENCY_DECIMALS, 'itemData.seed') : 0n;
  return seed > rentExemptMinimum ? seed : rentExemptMinimum;
}

export interface CreateAccountPlanInput {
  feePayer: string;
  newAddress: string;
  lamports: bigint;
  dataLength: number;
  /** true: the service holds the new account's key and creates it (allocating space); false: funds it by transfer. */
  createWithKey: boolean;
}

/** The instructions: System CreateAccount when the new key signs, a plain transfer otherwise. */
export function planCreateAccount(plan: CreateAccountPlanInput): Instruction[] {
  const payer = createNoopSigner(address(plan.feePayer));
  if (plan.createWithKey) {
    return [
      getCreateAccountInstruction({
        payer,
        newAccount: createNoopSigner(address(plan.newAddress)),
        lamports: plan.lamports,
        space: plan.dataLength,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
      }),
    ];
  }
  return [getTransferSolInstruction({ source: payer, destination: address(plan.newAddress), amount: plan.lamports })];
}

/** An address is onboarded once per organization and cluster. CONFLICT naming itemData.onchainId. */
export function checkNotOnboarded(address: string, onboarded: boolean): void {
  if (onboarded) throw conflict('itemData.onchainId', `account ${address} is already onboarded`);
}

/**
 * What the chain must say of the new address: an account onboarded as `alreadyOnchain` exists
 * there (unless the check is skipped); a new one does not yet. `existsOnchain` undefined: not asked.
 */
export function checkOnchainExistence(
  item: Pick<CreateAccountItemData, 'alreadyOnchain' | 'skipBlockchainExistenceVerification'>,
  address: string,
  cluster: string,
  existsOnchain: boolean,
): void {
  if (item.alreadyOnchain) {
    if (!item.skipBlockchainExistenceVerification && !existsOnchain)
      throw validationError(
        'itemData.onchainId',
        `account ${address} does not exist on ${cluster}; set skipBlockchainExistenceVerification to onboard it anyway`,
      );
  } else if (existsOnchain) {
    throw conflict('itemData.onchainId', `account ${address} already exists onchain; onboard it with alreadyOnchain`);
  }
}

type DkgKey = NonNullable<NonNullable<CreateAccountItemData['privateKeyDetails']>['dkgKeys']>[number];

/** The backend players of a threshold key: configured ones, enough for its threshold (validation checked the rest). */
export function thresholdPlayers(dkgKey: DkgKey, configured: readonly string[]): { players: string[]; threshold: number } {
  const field = 'itemData.privateKeyDetails.dkgKeys[0]';
  const players = dkgKey.useBackendPlayersCodes ?? [...configured];
  const unknown = players.filter((p) => !configured.includes(p));
  if (unknown.length)
    throw validationError(
      `${field}.useBackendPlayersCodes`,
      `unknown backend players ${unknown.join(', ')}; the configured players are ${configured.join(', ')}`,
    );
  const threshold = dkgKey.session!.threshold!;
  if (threshold > players.length) throw validationError(`${field}.session.threshold`, `threshold ${threshold} exceeds the ${players.length} backend players`);
  return { players, threshold };
}

/** Only the organization that owns an account changes it. FORBIDDEN naming the field. */
export function checkOwnAccount(account: { organizationId: string }, organizationId: string, field: string, action: string): void {
  if (account.organizationId !== organizationId) throw forbidden(`only the organization that owns an account may ${action}`, field);
}
