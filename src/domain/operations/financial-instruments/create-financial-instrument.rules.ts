/**
 * Create Financial Instrument (spec 2.4): which Token-2022 extensions the request switches on, the
 * rules checked before anything is written, and the instructions of the one network transaction
 * (create the mint account, pre-initialize extensions, initialize the mint, then metadata and pause).
 */
import { getAssignInstruction, getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, getInitializeMint2Instruction as getSplInitializeMint2Instruction } from '@solana-program/token';
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  extension,
  getInitializeMint2Instruction,
  getPauseInstruction,
  getPostInitializeInstructionsForMintExtensions,
  getPreInitializeInstructionsForMintExtensions,
  getUpdateTokenMetadataFieldInstruction,
  tokenMetadataField,
  type ExtensionArgs,
} from '@solana-program/token-2022';
import { address, createNoopSigner, none, some, type Instruction } from '@solana/kit';
import type { CreateAccountItemData } from '../accounts/account.inputs';
import type { CreateFinancialInstrumentItemData } from './financial-instrument.inputs';
import { authorityFields, type AuthorityField } from '../../instrument-authorities';
import { checkTypeForReference, parseAlId, type FinancialInstrumentType, type InstrumentReferenceType } from '../../al-id';
import { conflict, validationError } from '../../errors';
import { readOnchainInstrument, type OnchainInstrument } from '../../mint-state';
import { mintAccountSize, type ConfidentialSupplyKeys, type MintExtension } from '../../token-extensions';

/** Fields only Token-2022 mints have; an SPL request naming one is refused. */
const token2022Only = [
  'permanentDelegateAuthority',
  'closingAuthority',
  'pausableAuthority',
  'scaledUiAmountAuthority',
  'transferHookAuthority',
  'transferHookProgram',
  'confidentialTransferAuthority',
  'confidentialMintBurnAuthority',
  'defaultPositionState',
  'paused',
  'scaledUiAmountMultiplier',
] as const;

export const mintAccountTypes = ['ASSET_TOKEN', 'FUNDS_TOKEN', 'CURRENCY_TOKEN'] as const;

/** The extensions a Token-2022 request switches on by the fields that configure them. */
export function requestedExtensions(item: CreateFinancialInstrumentItemData): MintExtension[] {
  if (item.version === 'SPL') return [];
  const on: MintExtension[] = [];
  const meta = item.onchainData;
  if (meta.name || meta.symbol || meta.uri || meta.simpleCustomMetadata) on.push('METADATA_POINTER', 'TOKEN_METADATA');
  if (item.defaultPositionState) on.push('DEFAULT_ACCOUNT_STATE');
  if (item.permanentDelegateAuthority) on.push('PERMANENT_DELEGATE');
  if (item.closingAuthority) on.push('CLOSE_MINT');
  if (item.pausableAuthority) on.push('PAUSABLE');
  if (item.scaledUiAmountAuthority) on.push('SCALED_UI_AMOUNT');
  if (item.transferHookAuthority) on.push('TRANSFER_HOOK');
  if (item.confidentialTransferAuthority) on.push('CONFIDENTIAL_TRANSFER');
  if (item.confidentialMintBurnAuthority) on.push('CONFIDENTIAL_MINT_BURN');
  return on;
}

/** Checks the rules of spec 2.4 that need no stored records; VALIDATION_ERROR naming the field. */
export const isOnboarding = (item: CreateFinancialInstrumentItemData) => item.alreadyOnChain === true || item.alreadyOnchain === true;

/** The address of a mint to onboard: existingMintAccount.onchainId or mintAccount.onchainId. */
export function onboardedMintAddress(item: CreateFinancialInstrumentItemData): string | undefined {
  return item.existingMintAccount?.onchainId ?? item.mintAccount?.onchainId;
}

/**
 * `mintAccount` is a Create Account payload (spec 2.3), but a mint is not a wallet: what its account
 * record keeps (offchainReferences, comments, domain, isDerived, isGenesis, subscribeToNetworkEvents,
 * orgsAllowedToSignWithPrivateKey, tokenVersion equal to `version`) and what makes the mint
 * (managed, onchainId, privateKeyDetails with location DATABASE) act; these are refused, naming the field.
 */
export const notForAMintAccount: Partial<Record<keyof CreateAccountItemData, string>> = {
  seed: 'a new mint receives exactly the rent-exempt minimum of its size from the fee payer; it holds no other network currency',
  dataLength:
    "a mint's size follows from its extensions and metadata (the Token Extensions Calculator gives it); to reserve the space yourself, pre-create the account with Create Account and pass existingMintAccount",
  skipBlockchainExistenceVerification: 'a new mint is created by this request, and an onboarded one (alreadyOnChain) is always read from the chain',
  networkCurrencyDebitLimits: 'debit limits apply only to wallets; a mint account is not a wallet',
  tokenDebitLimits: 'debit limits apply only to wallets; a mint account is not a wallet',
  networkCurrencyDebitApiKeys: 'a mint account is not a wallet: nothing is debited from it',
  tokenDebitApiKeys: 'a mint account is not a wallet: nothing is debited from it',
  canPayFees: 'a mint account is owned by the token program and cannot pay fees',
  globalFeePayerForOrgs: 'a mint account is owned by the token program and cannot pay fees',
  missingSignatureWebhooks: 'a mint account is not a wallet: it signs only its own creation; put webhooks on the fee payer or the authorities',
  preTransactionSubmitWebhooks: 'a mint account is not a wallet: it signs only its own creation; put webhooks on the fee payer or the authorities',
  postTransactionSubmitWebhooks: 'a mint account is not a wallet: it signs only its own creation; put webhooks on the fee payer or the authorities',
  shareAcrossTenants: 'the mint account is shared with its instrument: set itemData.shareAcrossTenants',
};

/** The mintAccount fields that only its account record keeps (refused when the onboarded mint already has a record). */
export const mintAccountRecordFields = [
  'comments',
  'domain',
  'isDerived',
  'isGenesis',
  'subscribeToNetworkEvents',
  'orgsAllowedToSignWithPrivateKey',
  'tokenVersion',
] as const;

function validateMintAccount(item: CreateFinancialInstrumentItemData): void {
  const m = item.mintAccount;
  if (!m) return;
  const at = 'itemData.mintAccount';
  for (const [field, reason] of Object.entries(notForAMintAccount)) {
    if (m[field as keyof CreateAccountItemData] !== undefined) throw validationError(`${at}.${field}`, `${field} is not for a mint account: ${reason}`);
  }
  if (item.existingMintAccount && !isOnboarding(item)) {
    const other = Object.keys(m).find((key) => key !== 'offchainReferences');
    if (other)
      throw validationError(
        `${at}.${other}`,
        'with existingMintAccount, mintAccount may carry only offchainReferences (the AL ID, type and labels); the pre-created account keeps its own record',
      );
  }
  if (m.tokenVersion !== undefined && m.tokenVersion !== item.version)
    throw validationError(`${at}.tokenVersion`, `the mint account's token version is the instrument's version (${item.version})`);
  if (isOnboarding(item)) {
    // An onboarded mint is recorded as non-managed: its key signs nothing once it is a mint.
    if (m.managed === true) throw validationError(`${at}.managed`, 'an onboarded mint is recorded as non-managed; the service does not take its key');
    if (m.privateKeyDetails !== undefined)
      throw validationError(`${at}.privateKeyDetails`, 'an onboarded mint is recorded as non-managed; the service does not take its key');
    if (m.orgsAllowedToSignWithPrivateKey !== undefined)
      throw validationError(`${at}.orgsAllowedToSignWithPrivateKey`, 'an onboarded mint is recorded as non-managed: there is no key to share');
    if (m.alreadyOnchain === false) throw validationError(`${at}.alreadyOnchain`, 'contradicts itemData.alreadyOnChain');
    if (m.onchainId && item.existingMintAccount?.onchainId && m.onchainId !== item.existingMintAccount.onchainId)
      throw validationError(`${at}.onchainId`, 'names another mint than existingMintAccount.onchainId');
    return;
  }
  if (m.managed === false) throw validationError(`${at}.managed`, 'a new mint needs its key to sign its creation: it is always managed');
  if (m.alreadyOnchain !== undefined)
    throw validationError(
      `${at}.alreadyOnchain`,
      'to onboard a mint that is already onchain, set itemData.alreadyOnChain (and give its address in mintAccount.onchainId or existingMintAccount.onchainId)',
    );
  const key = m.privateKeyDetails;
  if (key?.location && !(key.location.length === 1 && key.location[0] === 'DATABASE')) {
    throw validationError(
      `${at}.privateKeyDetails.location`,
      key.location.includes('SECRETS')
        ? 'private key location SECRETS is not available yet; use DATABASE (the default)'
        : "a new mint's key is kept in DATABASE (the default)",
    );
  }
  if (key?.dkgKeys !== undefined) throw validationError(`${at}.privateKeyDetails.dkgKeys`, 'distributed key generation (dkgKeys) is not available yet');
  if (key?.privateKey === undefined) {
    if (key?.publickKey !== undefined)
      throw validationError(`${at}.privateKeyDetails.publickKey`, 'publickKey is checked against an imported privateKey; a new mint gets a new key');
    if (m.onchainId !== undefined)
      throw validationError(
        `${at}.onchainId`,
        'a new mint gets a new key and address; omit onchainId, import the key with privateKeyDetails.privateKey, or onboard an existing mint with itemData.alreadyOnChain',
      );
  }
}

export function validateCreateFinancialInstrument(item: CreateFinancialInstrumentItemData): void {
  const f = 'itemData';
  validateMintAccount(item);
  if (isOnboarding(item)) {
    // Onboarding reads the mint from the chain: authorities and extensions come from there, not from the request.
    if (!onboardedMintAddress(item))
      throw validationError(
        `${f}.existingMintAccount.onchainId`,
        'onboarding an existing mint needs its address in existingMintAccount.onchainId or mintAccount.onchainId',
      );
    const given = [...authorityFields, 'transferHookProgram', 'defaultPositionState', 'paused', 'scaledUiAmountMultiplier'].find(
      (field) => item[field as keyof CreateFinancialInstrumentItemData] !== undefined,
    );
    if (given) throw validationError(`${f}.${given}`, `${given} is read from the chain when onboarding an existing mint`);
    validateAlId(item);
    return;
  }
  if (!item.mintAuthority) throw validationError(`${f}.mintAuthority`, 'mintAuthority is required');
  if (item.version === 'SPL') {
    for (const field of token2022Only) if (item[field] !== undefined) throw validationError(`${f}.${field}`, `${field} needs a TOKEN_2022 instrument`);
    for (const field of ['symbol', 'name', 'uri', 'simpleCustomMetadata'] as const) {
      if (item.onchainData[field] !== undefined)
        throw validationError(`${f}.onchainData.${field}`, `onchain ${field} is Token Metadata, which needs a TOKEN_2022 instrument`);
    }
  }
  if (item.confidentialMintBurnAuthority && !item.confidentialTransferAuthority)
    throw validationError(
      `${f}.confidentialMintBurnAuthority`,
      'Confidential Mint and Burn needs Confidential Transfer: give a confidentialTransferAuthority too',
    );
  if (item.paused !== undefined && !item.pausableAuthority) throw validationError(`${f}.paused`, 'paused needs a pausableAuthority (the Pausable extension)');
  if (item.scaledUiAmountMultiplier !== undefined && !item.scaledUiAmountAuthority)
    throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier needs a scaledUiAmountAuthority (the Scaled UI Amount extension)');
  if (item.scaledUiAmountMultiplier !== undefined && !(item.scaledUiAmountMultiplier > 0 && Number.isFinite(item.scaledUiAmountMultiplier)))
    throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier must be a positive number');
  if (!!item.transferHookAuthority !== !!item.transferHookProgram)
    throw validationError(
      item.transferHookAuthority ? `${f}.transferHookProgram` : `${f}.transferHookAuthority`,
      'a transfer hook needs both transferHookAuthority and transferHookProgram',
    );
  if (item.defaultPositionState === 'FROZEN' && !item.freezeAuthority)
    throw validationError(`${f}.defaultPositionState`, 'positions frozen by default need a freezeAuthority to thaw them');
  const type = item.mintAccount?.offchainReferences?.type ?? 'ASSET_TOKEN';
  if (!(mintAccountTypes as readonly string[]).includes(type))
    throw validationError(`${f}.mintAccount.offchainReferences.type`, `a mint account is of type ${mintAccountTypes.join(', ')}`);
  validateAlId(item);
}

export interface InstrumentPlanInput {
  feePayer: string;
  mint: string;
  authorities: Partial<Record<AuthorityField | 'transferHookProgram', string>>;
  /** Lamports for the mint: the rent-exempt minimum of its final size (metadata included). */
  lamports: bigint;
  /** A pre-created, system-owned account becomes the mint: it is topped up to `lamports` and assigned to the token program. */
  existing?: { topUp: bigint };
  /** Confidential Mint and Burn's supply keys, derived from its authority's key. */
  confidentialSupply?: ConfidentialSupplyKeys;
}

/** `[major, minor, patch]` of a release name such as `program@v11.0.0` or `v8.1.2`, or undefined. */
export function releaseVersion(release: string | undefined): [number, number, number] | undefined {
  const match = release?.match(/(\d+)\.(\d+)\.(\d+)/);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** The first Token-2022 release whose ConfidentialMintBurn has the layout this service writes (with `pendingBurn`, added in 8.0.0). */
export const CONFIDENTIAL_MINT_BURN_RELEASE = [8, 0, 0] as const;

/**
 * Confidential Mint and Burn only where the network's Token-2022 program initializes it: its
 * release (read from the program's security.txt) is 8.0.0 or later. VALIDATION_ERROR naming
 * itemData.confidentialMintBurnAuthority, with the release found.
 */
export function checkConfidentialMintBurnRelease(release: string | undefined): void {
  const version = releaseVersion(release);
  const [major, minor, patch] = CONFIDENTIAL_MINT_BURN_RELEASE;
  const supported = version && (version[0] !== major ? version[0] > major : version[1] !== minor ? version[1] > minor : version[2] >= patch);
  if (!supported)
    throw validationError(
      'itemData.confidentialMintBurnAuthority',
      `Confidential Mint and Burn needs the Token-2022 program ${CONFIDENTIAL_MINT_BURN_RELEASE.join('.')} or later; this network's is ${release ?? 'of an unknown release (its build carries no security.txt)'}`,
    );
}

/**
 * The supply keys are derived from the confidentialMintBurnAuthority's key, so the service must
 * hold it and be allowed to use it. VALIDATION_ERROR naming the field.
 */
export function checkSupplyKeyHolder(authority: { held: boolean; autoSign?: boolean }): void {
  const field = 'itemData.confidentialMintBurnAuthority';
  if (!authority.held)
    throw validationError(field, `the mint's confidential supply keys are derived from this authority's key, which the service does not hold`);
  if (authority.autoSign === false)
    throw validationError(
      field,
      `the mint's confidential supply keys are derived from this authority's key, which autoSign: false keeps the service from using`,
    );
}

/** The extension values the mint is created with, from the request and its resolved authorities. */
export function mintExtensionArgs(item: CreateFinancialInstrumentItemData, plan: InstrumentPlanInput): ExtensionArgs[] {
  const a = (field: AuthorityField | 'transferHookProgram') => address(plan.authorities[field]!);
  const mint = address(plan.mint);
  const args: ExtensionArgs[] = [];
  for (const kind of requestedExtensions(item)) {
    switch (kind) {
      case 'METADATA_POINTER':
        args.push(extension('MetadataPointer', { authority: some(a('updateAuthority')), metadataAddress: some(mint) }));
        break;
      case 'TOKEN_METADATA':
        args.push(
          extension('TokenMetadata', {
            updateAuthority: some(a('updateAuthority')),
            mint,
            name: item.onchainData.name ?? '',
            symbol: item.onchainData.symbol ?? '',
            uri: item.onchainData.uri ?? '',
            additionalMetadata: new Map(Object.entries(item.onchainData.simpleCustomMetadata ?? {})),
          }),
        );
        break;
      case 'DEFAULT_ACCOUNT_STATE':
        args.push(extension('DefaultAccountState', { state: item.defaultPositionState === 'FROZEN' ? 2 : 1 }));
        break;
      case 'PERMANENT_DELEGATE':
        args.push(extension('PermanentDelegate', { delegate: a('permanentDelegateAuthority') }));
        break;
      case 'CLOSE_MINT':
        args.push(extension('MintCloseAuthority', { closeAuthority: a('closingAuthority') }));
        break;
      case 'PAUSABLE':
        args.push(extension('PausableConfig', { authority: some(a('pausableAuthority')), paused: false }));
        break;
      case 'SCALED_UI_AMOUNT': {
        const multiplier = item.scaledUiAmountMultiplier ?? 1;
        args.push(
          extension('ScaledUiAmountConfig', {
            authority: a('scaledUiAmountAuthority'),
            multiplier,
            newMultiplierEffectiveTimestamp: 0n,
            newMultiplier: multiplier,
          }),
        );
        break;
      }
      case 'TRANSFER_HOOK':
        args.push(extension('TransferHook', { authority: a('transferHookAuthority'), programId: a('transferHookProgram') }));
        break;
      case 'CONFIDENTIAL_TRANSFER':
        args.push(
          extension('ConfidentialTransferMint', {
            authority: some(a('confidentialTransferAuthority')),
            autoApproveNewAccounts: false,
            auditorElgamalPubkey: none(),
          }),
        );
        break;
      case 'CONFIDENTIAL_MINT_BURN': {
        const keys = plan.confidentialSupply!;
        args.push(
          extension('ConfidentialMintBurn', {
            // A new mint's supply is zero: an all-zero ElGamal ciphertext encrypts 0 under any key.
            confidentialSupply: new Uint8Array(64),
            decryptableSupply: Buffer.from(keys.decryptableSupply, 'base64'),
            supplyElgamalPubkey: address(keys.supplyElgamalPubkey),
            pendingBurn: new Uint8Array(64),
          }),
        );
        break;
      }
      default:
        break;
    }
  }
  return args;
}

/** The mint's size without its Token Metadata: the program reallocates for metadata itself, paid by the lamports sent up front. */
export function initialMintSize(item: CreateFinancialInstrumentItemData): number {
  return mintAccountSize(requestedExtensions(item).filter((e) => e !== 'TOKEN_METADATA'));
}

export function finalMintSize(item: CreateFinancialInstrumentItemData): number {
  const meta = item.onchainData;
  const extensions = requestedExtensions(item);
  return mintAccountSize(
    extensions,
    extensions.includes('TOKEN_METADATA') ? { name: meta.name, symbol: meta.symbol, uri: meta.uri, additionalMetadata: meta.simpleCustomMetadata } : undefined,
  );
}

/** The instructions of the creation transaction. */
export function planCreateFinancialInstrument(item: CreateFinancialInstrumentItemData, plan: InstrumentPlanInput): Instruction[] {
  const payer = createNoopSigner(address(plan.feePayer));
  const mint = address(plan.mint);
  const signer = (field: AuthorityField) => createNoopSigner(address(plan.authorities[field]!));
  const freezeAuthority = plan.authorities.freezeAuthority ? address(plan.authorities.freezeAuthority) : null;
  const create = (space: number, programAddress: typeof TOKEN_PROGRAM_ADDRESS | typeof TOKEN_2022_PROGRAM_ADDRESS): Instruction[] =>
    plan.existing
      ? [
          ...(plan.existing.topUp > 0n ? [getTransferSolInstruction({ source: payer, destination: mint, amount: plan.existing.topUp })] : []),
          getAssignInstruction({ account: createNoopSigner(mint), programAddress }),
        ]
      : [getCreateAccountInstruction({ payer, newAccount: createNoopSigner(mint), lamports: plan.lamports, space, programAddress })];
  if (item.version === 'SPL') {
    return [
      ...create(82, TOKEN_PROGRAM_ADDRESS),
      getSplInitializeMint2Instruction({ mint, decimals: item.onchainData.decimals, mintAuthority: address(plan.authorities.mintAuthority!), freezeAuthority }),
    ];
  }
  const extensions = mintExtensionArgs(item, plan);
  const instructions: Instruction[] = [
    ...create(initialMintSize(item), TOKEN_2022_PROGRAM_ADDRESS),
    ...getPreInitializeInstructionsForMintExtensions(mint, extensions),
    getInitializeMint2Instruction({ mint, decimals: item.onchainData.decimals, mintAuthority: address(plan.authorities.mintAuthority!), freezeAuthority }),
    ...getPostInitializeInstructionsForMintExtensions(mint, signer('mintAuthority'), extensions),
  ];
  // The program initializes metadata with name, symbol and uri; each custom field is one more write by the update authority.
  for (const [key, value] of Object.entries(item.onchainData.simpleCustomMetadata ?? {})) {
    instructions.push(
      getUpdateTokenMetadataFieldInstruction({ metadata: mint, updateAuthority: signer('updateAuthority'), field: tokenMetadataField('Key', [key]), value }),
    );
  }
  if (item.paused) instructions.push(getPauseInstruction({ mint, authority: signer('pausableAuthority') }));
  return instructions;
}

/*
 * Rules over looked-up state: the handler looks up (records, the chain), these decide and map.
 */

const referencesField = 'itemData.mintAccount.offchainReferences';

/** A given AL ID, well formed and of a type the reference type goes with. VALIDATION_ERROR naming the field. */
export function givenAlId(alId: string, referenceType: string | undefined): { alId: string; referenceType: InstrumentReferenceType } {
  const parsed = parseAlId(alId);
  if (!parsed) throw validationError(`${referencesField}.alId`, `${alId} is not an AL ID (AL + category code + type code + 8 digits)`);
  return { alId, referenceType: checkTypeForReference(referenceType, parsed.type, `${referencesField}.type`) };
}

/**
 * The AL ID's rules on the request alone: the references name a well-formed AL ID, or the type one is
 * generated for. Without references, only a pre-created mint account (existingMintAccount) may bring
 * its own (its lookup tells).
 */
function validateAlId(item: CreateFinancialInstrumentItemData): void {
  const refs = item.mintAccount?.offchainReferences;
  if (!refs && item.existingMintAccount && !isOnboarding(item)) return;
  if (refs?.alId) givenAlId(refs.alId, refs.type);
  else newAlIdType(refs ?? {});
}

/** A given AL ID no instrument holds yet. CONFLICT naming the field. */
export function checkAlIdFree(alId: string, taken: boolean): void {
  if (taken) throw conflict(`${referencesField}.alId`, `AL ID ${alId} is already taken`);
}

/** Without an AL ID, the type one is generated for (and the reference type it goes with). VALIDATION_ERROR naming the field. */
export function newAlIdType(references: { newAlId?: { financialInstrumentType: FinancialInstrumentType }; type?: string }): {
  type: FinancialInstrumentType;
  referenceType: InstrumentReferenceType;
} {
  const type = references.newAlId?.financialInstrumentType;
  if (!type)
    throw validationError(
      `${referencesField}.newAlId.financialInstrumentType`,
      'an instrument without an alId needs newAlId.financialInstrumentType so one is generated',
    );
  return { type, referenceType: checkTypeForReference(references.type, type, `${referencesField}.type`) };
}

/** The field an onboarding request names its mint by. */
export const onboardedMintField = (item: CreateFinancialInstrumentItemData) =>
  item.existingMintAccount?.onchainId ? 'itemData.existingMintAccount.onchainId' : 'itemData.mintAccount.onchainId';

/** A mint is onboarded once per tenant. CONFLICT naming the mint's field. */
export function checkMintNotOnboarded(item: CreateFinancialInstrumentItemData, mint: string, onboarded: boolean): void {
  if (onboarded) throw conflict(onboardedMintField(item), `the mint ${mint} is already onboarded`);
}

/**
 * The mint to onboard as the chain holds it (`account`: null when there is none): an initialized SPL
 * or Token-2022 mint of the request's version and decimals. VALIDATION_ERROR naming the field.
 */
export function onboardedMint<A extends { owner: string; data: Uint8Array }>(
  item: CreateFinancialInstrumentItemData,
  mint: string,
  cluster: string,
  account: A | null,
): { account: A; onchain: OnchainInstrument } {
  const field = onboardedMintField(item);
  if (!account) throw validationError(field, `there is no account ${mint} on ${cluster}`);
  const onchain = readOnchainInstrument(account.owner, account.data);
  if (!onchain) throw validationError(field, `${mint} is not an initialized SPL or Token-2022 mint`);
  if (onchain.version !== item.version) throw validationError('itemData.version', `the mint on the chain is ${onchain.version}`);
  if (onchain.decimals !== item.onchainData.decimals)
    throw validationError('itemData.onchainData.decimals', `the mint on the chain has ${onchain.decimals} decimals`);
  return { account, onchain };
}

/**
 * An onboarded mint whose account record exists already keeps that record as it is: what only that
 * record would keep is refused (VALIDATION_ERROR naming the first such field).
 */
export function checkMintRecordUnchanged(item: CreateFinancialInstrumentItemData, mint: string, hasRecord: boolean): void {
  if (!hasRecord) return;
  const refs = item.mintAccount?.offchainReferences ?? {};
  const recordOnly = [
    ...mintAccountRecordFields.filter((name) => item.mintAccount?.[name] !== undefined),
    ...(['code', 'accountNumber', 'organizationExternalId'] as const).filter((name) => refs[name] !== undefined).map((name) => `offchainReferences.${name}`),
  ];
  if (recordOnly.length)
    throw validationError(
      `itemData.mintAccount.${recordOnly[0]}`,
      `the mint ${mint} already has an account record in this organization; change it with Update Account`,
    );
}

/** An authority as an instrument record keeps it: its address, and its account record when onboarded. */
export interface AuthorityReference {
  address: string;
  accountId: string | null;
}

/** The onchain authorities of an onboarded mint, each with its account record when the tenant has one. */
export function authorityReferences(
  authorities: Record<string, string>,
  known: readonly { address: string; id: string }[],
): Record<string, AuthorityReference> {
  return Object.fromEntries(
    Object.entries(authorities).map(([name, addr]) => [name, { address: addr, accountId: known.find((a) => a.address === addr)?.id ?? null }]),
  );
}

/**
 * Whether an authority signs the create: Token Metadata is initialized by the mint authority and
 * written by the update authority; a paused start is signed by the pausable authority.
 */
export function signsCreation(item: CreateFinancialInstrumentItemData, field: AuthorityField | 'transferHookProgram'): boolean {
  if (field === 'mintAuthority' || field === 'updateAuthority') return requestedExtensions(item).includes('TOKEN_METADATA');
  return field === 'pausableAuthority' && item.paused === true;
}

/** An authority that signs must be onboarded (an off-platform one has no key here). VALIDATION_ERROR naming it. */
export function signingAuthority<A>(field: string, account: A | undefined): A {
  if (!account) throw validationError(field, `${field} must sign and is not onboarded`);
  return account;
}

/** A pre-created account is the mint of no instrument yet. CONFLICT naming itemData.existingMintAccount. */
export function checkNotAMint(address: string, isMint: boolean): void {
  if (isMint) throw conflict('itemData.existingMintAccount', `${address} is already an instrument's mint`);
}

/**
 * A mint pre-created with Create Account (the workaround of spec 8), as the chain holds it: still
 * owned by the System Program and of the mint's exact size (the token program initializes only that;
 * Token Metadata grows it afterwards). Returns the lamports it still needs for `lamports`.
 * VALIDATION_ERROR naming itemData.existingMintAccount.
 */
export function preCreatedMintTopUp(
  item: CreateFinancialInstrumentItemData,
  address: string,
  onchain: { owner: string; lamports: bigint; dataLength: number } | null,
  lamports: bigint,
): bigint {
  const field = 'itemData.existingMintAccount';
  if (!onchain || onchain.owner !== '11111111111111111111111111111111')
    throw validationError(field, `${address} must be a pre-created account still owned by the System Program`);
  const needed = item.version === 'SPL' ? 82 : initialMintSize(item);
  if (onchain.dataLength !== needed) {
    throw validationError(
      field,
      `${address} holds ${onchain.dataLength} bytes; this mint needs exactly ${needed}: the Token Extensions Calculator's mintAccountSize for its extensions without metadata (metadata is written after, with the rent topped up)`,
    );
  }
  return lamports > onchain.lamports ? lamports - onchain.lamports : 0n;
}

/** A new mint's address is not taken onchain. CONFLICT naming itemData.mintAccount. */
export function checkNewMint(mint: string, exists: boolean): void {
  if (exists) throw conflict('itemData.mintAccount', `the mint account ${mint} already exists onchain`);
}

/** What the lookup step resolved for the records (JSON-safe: lamports and supply as decimal text). */
export interface CreatedInstrument {
  mint: string;
  mintAccountId: string;
  instrumentId: string;
  alId: string;
  referenceType: string;
  lamports: string;
  authorities: Record<string, AuthorityReference>;
  /** The copied logo as the record keeps it. */
  logo?: Record<string, unknown>;
  /** Onboarding: the mint as the chain holds it. */
  onchain?: Omit<OnchainInstrument, 'supply'> & { supply: string };
}

interface Tenant {
  organizationId: string;
  cluster: string;
}

/** The account record of a mint the write creates (new, or onboarded without a record); the caller adds the transaction's fields. */
export function mintAccountRecord(item: CreateFinancialInstrumentItemData, tenant: Tenant, data: CreatedInstrument) {
  const onboarded = data.onchain;
  const refs = item.mintAccount?.offchainReferences ?? {};
  return {
    id: data.mintAccountId,
    organizationId: tenant.organizationId,
    cluster: tenant.cluster,
    address: data.mint,
    type: data.referenceType,
    managed: !onboarded,
    code: refs.code ?? null,
    alId: data.alId,
    accountNumber: refs.accountNumber ?? null,
    name: refs.name ?? null,
    referenceOrganizationExternalId: refs.organizationExternalId ?? null,
    comments: item.mintAccount?.comments ?? null,
    domain: item.mintAccount?.domain ?? null,
    isDerived: item.mintAccount?.isDerived ?? false,
    isGenesis: item.mintAccount?.isGenesis ?? false,
    subscribeToNetworkEvents: item.mintAccount?.subscribeToNetworkEvents ?? false,
    orgsAllowedToSignWithPrivateKey: onboarded ? [] : (item.mintAccount?.orgsAllowedToSignWithPrivateKey ?? []),
    sharedAcrossTenants: item.shareAcrossTenants ?? false,
    wasOnchainAlready: !!onboarded,
    dataLength: onboarded ? 0 : finalMintSize(item),
    tokenVersion: item.version,
    lamportsBalance: BigInt(data.lamports),
    tokenDecimals: item.onchainData.decimals,
  };
}

/**
 * What a pre-created mint's account record takes: the AL ID, type and token fields, the write's
 * transaction, and the labels given in mintAccount.offchainReferences (they replace its own).
 */
export function preCreatedMintChanges(
  item: CreateFinancialInstrumentItemData,
  data: CreatedInstrument,
  tx: { id: string; signature: string | null } | null,
  at: Date,
) {
  const refs = item.mintAccount?.offchainReferences ?? {};
  return {
    type: data.referenceType,
    alId: data.alId,
    tokenVersion: item.version,
    tokenDecimals: item.onchainData.decimals,
    lastTransactionId: tx?.id ?? null,
    lastTransactionSignature: tx?.signature ?? null,
    lastTransactionAt: tx ? at : null,
    ...(refs.code !== undefined ? { code: refs.code } : {}),
    ...(refs.name !== undefined ? { name: refs.name } : {}),
    ...(refs.accountNumber !== undefined ? { accountNumber: refs.accountNumber } : {}),
    ...(refs.organizationExternalId !== undefined ? { referenceOrganizationExternalId: refs.organizationExternalId } : {}),
  };
}

/** The instrument record: an onboarded mint's onchain fields from the chain, a new one's from the request. */
export function instrumentRecord(item: CreateFinancialInstrumentItemData, tenant: Tenant, data: CreatedInstrument, txId: string | null, at: Date) {
  const onboarded = data.onchain;
  return {
    id: data.instrumentId,
    organizationId: tenant.organizationId,
    cluster: tenant.cluster,
    mintAccountId: data.mintAccountId,
    mintAddress: data.mint,
    version: item.version,
    alId: data.alId,
    financialInstrumentType: parseAlId(data.alId)?.type ?? null,
    decimals: item.onchainData.decimals,
    symbol: onboarded ? (onboarded.metadata?.symbol ?? null) : (item.onchainData.symbol ?? null),
    name: onboarded ? (onboarded.metadata?.name ?? null) : (item.onchainData.name ?? null),
    uri: onboarded ? (onboarded.metadata?.uri ?? null) : (item.onchainData.uri ?? null),
    onchainCustomMetadata: onboarded ? (onboarded.metadata?.additional ?? {}) : (item.onchainData.simpleCustomMetadata ?? {}),
    offchainData: { ...(item.offchainData ?? {}), ...(data.logo ? { logo: data.logo } : {}) },
    extensions: onboarded ? onboarded.extensions : requestedExtensions(item),
    authorities: data.authorities,
    defaultPositionState: onboarded ? onboarded.defaultPositionState : (item.defaultPositionState ?? null),
    paused: onboarded ? onboarded.paused : item.pausableAuthority ? (item.paused ?? false) : null,
    scaledUiAmountMultiplier: onboarded
      ? onboarded.scaledUiAmountMultiplier === null
        ? null
        : String(onboarded.scaledUiAmountMultiplier)
      : item.scaledUiAmountMultiplier !== undefined
        ? String(item.scaledUiAmountMultiplier)
        : item.scaledUiAmountAuthority
          ? '1'
          : null,
    status: 'ACTIVE',
    managed: !onboarded,
    wasOnchainAlready: !!onboarded,
    sharedAcrossTenants: item.shareAcrossTenants ?? false,
    comments: item.comments ?? null,
    offchainReferenceName: item.mintAccount?.offchainReferences?.name ?? null,
    lastTransactionId: txId,
    lastTransactionAt: txId ? at : null,
    creationTransactionId: txId,
    creationTransactionAt: txId ? at : null,
    createdAt: at,
    updatedAt: at,
  };
}
