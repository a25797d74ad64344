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
import { validationError } from '../../errors';
import { mintAccountSize, type MintExtension } from '../../token-extensions';

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
  dataLength: "a mint's size follows from its extensions and metadata (the Token Extensions Calculator gives it); to reserve the space yourself, pre-create the account with Create Account and pass existingMintAccount",
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
export const mintAccountRecordFields = ['comments', 'domain', 'isDerived', 'isGenesis', 'subscribeToNetworkEvents', 'orgsAllowedToSignWithPrivateKey', 'tokenVersion'] as const;

function validateMintAccount(item: CreateFinancialInstrumentItemData): void {
  const m = item.mintAccount;
  if (!m) return;
  const at = 'itemData.mintAccount';
  for (const [field, reason] of Object.entries(notForAMintAccount)) {
    if (m[field as keyof CreateAccountItemData] !== undefined) throw validationError(`${at}.${field}`, `${field} is not for a mint account: ${reason}`);
  }
  if (item.existingMintAccount && !isOnboarding(item)) {
    const other = Object.keys(m).find((key) => key !== 'offchainReferences');
    if (other) throw validationError(`${at}.${other}`, 'with existingMintAccount, mintAccount may carry only offchainReferences (the AL ID, type and labels); the pre-created account keeps its own record');
  }
  if (m.tokenVersion !== undefined && m.tokenVersion !== item.version) throw validationError(`${at}.tokenVersion`, `the mint account's token version is the instrument's version (${item.version})`);
  if (isOnboarding(item)) {
    // An onboarded mint is recorded as non-managed: its key signs nothing once it is a mint.
    if (m.managed === true) throw validationError(`${at}.managed`, 'an onboarded mint is recorded as non-managed; the service does not take its key');
    if (m.privateKeyDetails !== undefined) throw validationError(`${at}.privateKeyDetails`, 'an onboarded mint is recorded as non-managed; the service does not take its key');
    if (m.orgsAllowedToSignWithPrivateKey !== undefined) throw validationError(`${at}.orgsAllowedToSignWithPrivateKey`, 'an onboarded mint is recorded as non-managed: there is no key to share');
    if (m.alreadyOnchain === false) throw validationError(`${at}.alreadyOnchain`, 'contradicts itemData.alreadyOnChain');
    if (m.onchainId && item.existingMintAccount?.onchainId && m.onchainId !== item.existingMintAccount.onchainId) throw validationError(`${at}.onchainId`, 'names another mint than existingMintAccount.onchainId');
    return;
  }
  if (m.managed === false) throw validationError(`${at}.managed`, 'a new mint needs its key to sign its creation: it is always managed');
  if (m.alreadyOnchain !== undefined) throw validationError(`${at}.alreadyOnchain`, 'to onboard a mint that is already onchain, set itemData.alreadyOnChain (and give its address in mintAccount.onchainId or existingMintAccount.onchainId)');
  const key = m.privateKeyDetails;
  if (key?.location && !(key.location.length === 1 && key.location[0] === 'DATABASE')) {
    throw validationError(`${at}.privateKeyDetails.location`, key.location.includes('SECRETS') ? 'private key location SECRETS is not available yet; use DATABASE (the default)' : "a new mint's key is kept in DATABASE (the default)");
  }
  if (key?.dkgKeys !== undefined) throw validationError(`${at}.privateKeyDetails.dkgKeys`, 'distributed key generation (dkgKeys) is not available yet');
  if (key?.privateKey === undefined) {
    if (key?.publickKey !== undefined) throw validationError(`${at}.privateKeyDetails.publickKey`, 'publickKey is checked against an imported privateKey; a new mint gets a new key');
    if (m.onchainId !== undefined) throw validationError(`${at}.onchainId`, 'a new mint gets a new key and address; omit onchainId, import the key with privateKeyDetails.privateKey, or onboard an existing mint with itemData.alreadyOnChain');
  }
}

export function validateCreateFinancialInstrument(item: CreateFinancialInstrumentItemData): void {
  const f = 'itemData';
  validateMintAccount(item);
  if (isOnboarding(item)) {
    // Onboarding reads the mint from the chain: authorities and extensions come from there, not from the request.
    if (!onboardedMintAddress(item)) throw validationError(`${f}.existingMintAccount.onchainId`, 'onboarding an existing mint needs its address in existingMintAccount.onchainId or mintAccount.onchainId');
    const given = [...authorityFields, 'transferHookProgram', 'defaultPositionState', 'paused', 'scaledUiAmountMultiplier'].find((field) => item[field as keyof CreateFinancialInstrumentItemData] !== undefined);
    if (given) throw validationError(`${f}.${given}`, `${given} is read from the chain when onboarding an existing mint`);
    return;
  }
  if (!item.mintAuthority) throw validationError(`${f}.mintAuthority`, 'mintAuthority is required');
  if (item.version === 'SPL') {
    for (const field of token2022Only) if (item[field] !== undefined) throw validationError(`${f}.${field}`, `${field} needs a TOKEN_2022 instrument`);
    for (const field of ['symbol', 'name', 'uri', 'simpleCustomMetadata'] as const) {
      if (item.onchainData[field] !== undefined) throw validationError(`${f}.onchainData.${field}`, `onchain ${field} is Token Metadata, which needs a TOKEN_2022 instrument`);
    }
  }
  if (item.confidentialMintBurnAuthority) throw validationError(`${f}.confidentialMintBurnAuthority`, 'Confidential Mint and Burn is not available yet');
  if (item.paused !== undefined && !item.pausableAuthority) throw validationError(`${f}.paused`, 'paused needs a pausableAuthority (the Pausable extension)');
  if (item.scaledUiAmountMultiplier !== undefined && !item.scaledUiAmountAuthority) throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier needs a scaledUiAmountAuthority (the Scaled UI Amount extension)');
  if (item.scaledUiAmountMultiplier !== undefined && !(item.scaledUiAmountMultiplier > 0 && Number.isFinite(item.scaledUiAmountMultiplier))) throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier must be a positive number');
  if (!!item.transferHookAuthority !== !!item.transferHookProgram) throw validationError(item.transferHookAuthority ? `${f}.transferHookProgram` : `${f}.transferHookAuthority`, 'a transfer hook needs both transferHookAuthority and transferHookProgram');
  if (item.defaultPositionState === 'FROZEN' && !item.freezeAuthority) throw validationError(`${f}.defaultPositionState`, 'positions frozen by default need a freezeAuthority to thaw them');
  const type = item.mintAccount?.offchainReferences?.type ?? 'ASSET_TOKEN';
  if (!(mintAccountTypes as readonly string[]).includes(type)) throw validationError(`${f}.mintAccount.offchainReferences.type`, `a mint account is of type ${mintAccountTypes.join(', ')}`);
}

export interface InstrumentPlanInput {
  feePayer: string;
  mint: string;
  authorities: Partial<Record<AuthorityField | 'transferHookProgram', string>>;
  /** Lamports for the mint: the rent-exempt minimum of its final size (metadata included). */
  lamports: bigint;
  /** A pre-created, system-owned account becomes the mint: it is topped up to `lamports` and assigned to the token program. */
  existing?: { topUp: bigint };
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
        args.push(extension('ScaledUiAmountConfig', { authority: a('scaledUiAmountAuthority'), multiplier, newMultiplierEffectiveTimestamp: 0n, newMultiplier: multiplier }));
        break;
      }
      case 'TRANSFER_HOOK':
        args.push(extension('TransferHook', { authority: a('transferHookAuthority'), programId: a('transferHookProgram') }));
        break;
      case 'CONFIDENTIAL_TRANSFER':
        args.push(extension('ConfidentialTransferMint', { authority: some(a('confidentialTransferAuthority')), autoApproveNewAccounts: false, auditorElgamalPubkey: none() }));
        break;
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
    return [...create(82, TOKEN_PROGRAM_ADDRESS), getSplInitializeMint2Instruction({ mint, decimals: item.onchainData.decimals, mintAuthority: address(plan.authorities.mintAuthority!), freezeAuthority })];
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
    instructions.push(getUpdateTokenMetadataFieldInstruction({ metadata: mint, updateAuthority: signer('updateAuthority'), field: tokenMetadataField('Key', [key]), value }));
  }
  if (item.paused) instructions.push(getPauseInstruction({ mint, authority: signer('pausableAuthority') }));
  return instructions;
}
