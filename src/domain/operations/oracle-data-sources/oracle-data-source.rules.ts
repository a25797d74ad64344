/**
 * Oracle data sources, `LEDGER_FEED` (docs/oracle-data-sources.md): the feed is a Token-2022 mint whose Token Metadata
 * (the Metadata Pointer names the mint itself) carries the value in its additional fields, written
 * only by the data source's authority (update authority and mint authority). Built with the same
 * planners as a financial instrument's mint and its metadata updates. Pure.
 */
import type { Instruction } from '@solana/kit';
import type { CreateFinancialInstrumentItemData } from '../financial-instruments/financial-instrument.inputs';
import type { CreateOnchainDataSourceItemData, UpdateOracleDataSourceItemData } from './oracle-data-source.inputs';
import { MIN_REFRESH_SECONDS } from './oracle-data-source.inputs';
import { conflict, validationError } from '../../errors';
import { checkGeneratedKeyDetails, checkPayloadFields, generatedKey, type PayloadFieldRules } from '../accounts/account-payload.rules';
import { feedHash } from '../../oracle-job';
import type { MintExtension } from '../../token-extensions';
import { finalMintSize, planCreateFinancialInstrument } from '../financial-instruments/create-financial-instrument.rules';
import {
  metadataTopUp,
  planUpdateFinancialInstrument,
  rotationType,
  type AuthorityRotation,
  type MetadataFieldChange,
} from '../financial-instruments/update-financial-instrument.rules';
import { mintAccountSize, rentExemptMinimum } from '../../token-extensions';

/** The metadata fields of a feed, in the order they are written (docs/oracle-data-sources.md). */
export const feedFieldNames = ['kind', 'value', 'decimals', 'updatedAt', 'slot', 'feedHash', 'ratingProvider'] as const;
export type FeedFields = Record<(typeof feedFieldNames)[number], string>;

/** A value the job gave, as the feed keeps it. */
export interface FeedValue {
  /** Exact decimal text. */
  value: string;
  /** Fractional digits of `value`. */
  decimals: number;
  /** ISO 8601, when the job ran. */
  updatedAt: string;
  /** The network's slot when the job ran (the write lands in a later one). */
  slot: string;
}

export interface FeedDefinition {
  kind: string;
  ratingProvider: string | null;
  feedHash: string;
}

/** Every field of a feed; a field with nothing to say is the empty string (ratingProvider of a PRICE feed). */
export function feedFields(definition: FeedDefinition, value: FeedValue): FeedFields {
  return {
    kind: definition.kind,
    value: value.value,
    decimals: String(value.decimals),
    updatedAt: value.updatedAt,
    slot: value.slot,
    feedHash: definition.feedHash,
    ratingProvider: definition.ratingProvider ?? '',
  };
}

/** What a feed says, read back from a mint's metadata fields (null when it is no feed). A reader needs nothing else. */
export function readFeed(additional: Record<string, string>): (FeedDefinition & FeedValue) | null {
  if (!additional.kind || additional.value === undefined || !additional.feedHash) return null;
  return {
    kind: additional.kind,
    ratingProvider: additional.ratingProvider || null,
    feedHash: additional.feedHash,
    value: additional.value,
    decimals: Number(additional.decimals ?? 0),
    updatedAt: additional.updatedAt ?? '',
    slot: additional.slot ?? '',
  };
}

const SYMBOL = 'FEED';
/** The feed mint's metadata name: the data source's name, else its kind and instrument (the program stores it as given). */
export function feedName(name: string | undefined, kind: string, instrumentSymbol: string | null): string {
  return (name ?? `${instrumentSymbol ?? 'LEDGER'} ${kind}`).slice(0, 32);
}

/** The feed mint as a Token-2022 instrument with metadata, so the instrument planners build and size it. */
function feedMint(name: string, fields: FeedFields): CreateFinancialInstrumentItemData {
  return {
    version: 'TOKEN_2022',
    onchainData: { decimals: 0, name, symbol: SYMBOL, uri: '', simpleCustomMetadata: fields },
  } as CreateFinancialInstrumentItemData;
}

/** Lamports the feed mint is created with: rent-exempt with its first value. */
export const feedMintLamports = (name: string, fields: FeedFields): bigint => rentExemptMinimum(finalMintSize(feedMint(name, fields)));

/** The creating transaction: the mint, its self-pointing metadata and every feed field, signed by the authority. */
export function planCreateFeed(plan: { feePayer: string; mint: string; authority: string; name: string; fields: FeedFields }): Instruction[] {
  return planCreateFinancialInstrument(feedMint(plan.name, plan.fields), {
    feePayer: plan.feePayer,
    mint: plan.mint,
    authorities: { mintAuthority: plan.authority, updateAuthority: plan.authority },
    lamports: feedMintLamports(plan.name, plan.fields),
  });
}

/** The feed mint as the network holds it, for a write's rent top-up. */
export interface FeedMintState {
  extensions: readonly MintExtension[];
  metadata: { name: string; symbol: string; uri: string; additional: Record<string, string> };
  lamports: bigint;
}

/** The fields among `next` that differ from what the mint holds. */
export function changedFields(chain: FeedMintState, next: Partial<FeedFields>): MetadataFieldChange[] {
  return Object.entries(next)
    .filter(([key, value]) => value !== undefined && chain.metadata.additional[key] !== value)
    .map(([key, value]) => ({ kind: 'Key' as const, key, value: value! }));
}

/** The lamports the mint needs before `fields` are written (decimal text; "0" when it holds enough). */
export const feedTopUp = (chain: FeedMintState, fields: readonly MetadataFieldChange[]): string => metadataTopUp(chain, fields).toString();

/**
 * A write to a feed: the rent top-up its grown metadata needs, the changed fields (signed by the
 * current authority), then, when the authority changes, the metadata's update authority, the
 * Metadata Pointer's and the mint authority handed to the new one.
 */
export function planFeedWrite(plan: {
  feePayer: string;
  mint: string;
  authority: string;
  extensions: readonly string[];
  topUp: string;
  fields: MetadataFieldChange[];
  newAuthority?: { address: string; accountId: string | null } | null;
}): Instruction[] {
  const instrument = { version: 'TOKEN_2022', extensions: plan.extensions };
  const rotations: AuthorityRotation[] = plan.newAuthority
    ? (['updateAuthority', 'mintAuthority'] as const).map((field) => ({
        field,
        type: rotationType(field, instrument),
        current: plan.authority,
        next: plan.newAuthority!,
      }))
    : [];
  return planUpdateFinancialInstrument(
    {
      mint: plan.mint,
      version: 'TOKEN_2022',
      fields: plan.fields,
      updateAuthority: plan.authority,
      multiplier: null,
      scaledUiAuthority: null,
      topUp: plan.topUp,
      rotations,
    },
    plan.feePayer,
  );
}

/** RATING needs its provider; a PRICE has none. VALIDATION_ERROR naming the field. */
function checkKind(kind: string | undefined, ratingProvider: string | undefined, field: string, storedProvider?: string | null): void {
  if (kind === 'RATING' && !(ratingProvider ?? storedProvider))
    throw validationError(`${field}.ratingProvider`, 'a RATING data source names its ratingProvider');
  if (kind === 'PRICE' && ratingProvider) throw validationError(`${field}.ratingProvider`, 'ratingProvider goes with kind RATING');
}

function checkCadence(seconds: number | undefined, field: string): void {
  if (seconds !== undefined && seconds !== 0 && seconds < MIN_REFRESH_SECONDS)
    throw validationError(field, `refreshEverySeconds is 0 (no schedule) or at least ${MIN_REFRESH_SECONDS}`);
}

const signsNothing = 'the feed mint signs only its creation: put webhooks on the fee payer or the authority';
/**
 * What the feed mint's account payload (spec 2.3) does (docs/oracle-data-sources.md): its labels
 * and flags go on the mint's account record, privateKeyDetails.location says where its generated
 * key is kept, and `managed: true`, `alreadyOnchain: false`, `tokenVersion: TOKEN_2022` say what
 * happens anyway; the rest is refused, each a 400 naming `itemData.onchainDataSource.<field>`.
 */
const feedMintFields: PayloadFieldRules = {
  managed: generatedKey("the feed mint's key is generated and held by the service (it signs the mint's creation)"),
  alreadyOnchain: 'the feed mint is created by this request',
  onchainId: { why: "the feed mint's key and address are generated by this request", honours: () => false },
  skipBlockchainExistenceVerification: 'the feed mint is created by this request',
  dataLength: "the feed mint's size follows from its metadata",
  seed: 'the feed mint gets exactly the rent-exempt minimum of its metadata (each write tops it up as the metadata grows)',
  tokenVersion: { why: 'the feed mint is a Token-2022 mint (its value is in its metadata)', honours: (value) => value === 'TOKEN_2022' },
  canPayFees: 'a mint is owned by the token program and cannot pay fees',
  globalFeePayerForOrgs: 'a mint is owned by the token program and cannot pay fees',
  networkCurrencyDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  tokenDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  networkCurrencyDebitApiKeys: 'nothing is debited from the feed mint',
  tokenDebitApiKeys: 'nothing is debited from the feed mint',
  missingSignatureWebhooks: signsNothing,
  preTransactionSubmitWebhooks: signsNothing,
  postTransactionSubmitWebhooks: signsNothing,
};

export function validateCreateOnchainDataSource(item: CreateOnchainDataSourceItemData): void {
  const f = 'itemData.onchainDataSource';
  checkPayloadFields(item.onchainDataSource, feedMintFields, f);
  checkGeneratedKeyDetails(item.onchainDataSource.privateKeyDetails, f, "the feed mint's key is always generated by the service");
  if (item.onchainDataSource.offchainReferences?.newAlId)
    throw validationError(`${f}.offchainReferences.newAlId`, 'AL IDs are generated for financial instruments only');
  checkKind(item.dataDetails.kind, item.dataDetails.ratingProvider, 'itemData.dataDetails');
  checkCadence(item.refreshEverySeconds, 'itemData.refreshEverySeconds');
}

export function validateUpdateOracleDataSource(item: UpdateOracleDataSourceItemData): void {
  const fields = ['defiProtocol', 'providerDetails', 'financialInstrument', 'onchainDataSourceAuthority', 'dataDetails', 'refreshEverySeconds'] as const;
  if (!fields.some((f) => item[f] !== undefined)) throw validationError('itemData', `send at least one of ${fields.join(', ')} to change`);
  if (item.dataDetails?.kind === 'PRICE' && item.dataDetails.ratingProvider) checkKind('PRICE', item.dataDetails.ratingProvider, 'itemData.dataDetails');
  checkCadence(item.refreshEverySeconds, 'itemData.refreshEverySeconds');
}

/** The kind and provider after an update's patch, checked against each other. */
export function patchedKind(
  item: UpdateOracleDataSourceItemData,
  stored: { kind: string; ratingProvider: string | null },
): { kind: string; ratingProvider: string | null } {
  const kind = item.dataDetails?.kind ?? stored.kind;
  const ratingProvider = kind === 'PRICE' ? (item.dataDetails?.ratingProvider ?? null) : (item.dataDetails?.ratingProvider ?? stored.ratingProvider);
  checkKind(kind, ratingProvider ?? undefined, 'itemData.dataDetails');
  return { kind, ratingProvider };
}

/** A Create's feed account is new: a generated key whose account already exists onchain is refused (409), never taken over. */
export function requireNewFeedAccount(exists: boolean, mint: string): void {
  if (exists) throw conflict('itemData.onchainDataSource', `the feed account ${mint} already exists onchain`);
}

/** What Create Onchain Data Source looked up and planned: its records are built from this. */
export interface CreatedFeed {
  dataSourceId: string;
  mintAccountId: string;
  mint: string;
  name: string;
  authority: string;
  authorityAccountId: string;
  instrumentId: string;
  instrumentAddress: string;
  fields: FeedFields;
  lamports: string;
}

/** The feed mint's account record (besides its id, tenant and creating transaction). */
export function feedAccountFields(item: CreateOnchainDataSourceItemData, feed: CreatedFeed) {
  const refs = item.onchainDataSource.offchainReferences ?? {};
  return {
    address: feed.mint,
    type: refs.type ?? 'ASSET_TOKEN',
    managed: true,
    code: refs.code ?? null,
    accountNumber: refs.accountNumber ?? null,
    name: refs.name ?? null,
    referenceOrganizationExternalId: refs.organizationExternalId ?? null,
    comments: item.onchainDataSource.comments ?? null,
    dataLength: mintAccountSize(['METADATA_POINTER', 'TOKEN_METADATA'], { name: feed.name, symbol: 'FEED', uri: '', additionalMetadata: feed.fields }),
    tokenVersion: 'TOKEN_2022' as const,
    tokenDecimals: 0,
    lamportsBalance: BigInt(feed.lamports),
  };
}

/** The data source's record at creation (besides its tenant, transaction links and timestamps). */
export function createdDataSourceFields(item: CreateOnchainDataSourceItemData, feed: CreatedFeed) {
  const refs = item.onchainDataSource.offchainReferences ?? {};
  return {
    id: feed.dataSourceId,
    defiProtocol: item.defiProtocol,
    address: feed.mint,
    accountId: feed.mintAccountId,
    financialInstrumentId: feed.instrumentId,
    financialInstrumentAddress: feed.instrumentAddress,
    authorityAddress: feed.authority,
    authorityAccountId: feed.authorityAccountId,
    kind: item.dataDetails.kind,
    ratingProvider: item.dataDetails.ratingProvider ?? null,
    providerKind: item.providerDetails.kind,
    jobDefinition: item.providerDetails.jobDefinition,
    feedHash: feed.fields.feedHash,
    refreshEverySeconds: item.refreshEverySeconds || null,
    latestValue: feed.fields.value,
    latestValueAt: new Date(feed.fields.updatedAt),
    latestSlot: feed.fields.slot,
    lastRefreshError: null,
    lastRefreshErrorAt: null,
    code: refs.code ?? null,
    name: refs.name ?? null,
    comments: item.onchainDataSource.comments ?? null,
  };
}

/** The data source's record after a refresh landed: the new value, and no failure. */
export const refreshedDataSourceFields = (value: FeedValue) => ({
  latestValue: value.value,
  latestValueAt: new Date(value.updatedAt),
  latestSlot: value.slot,
  lastRefreshError: null,
  lastRefreshErrorAt: null,
});

/** The authority an update hands the feed to: null when it names the current one. */
export function newAuthorityOf(named: { address: string; id: string }, current: string): { address: string; accountId: string } | null {
  return named.address === current ? null : { address: named.address, accountId: named.id };
}

/** An update's patch of the record: what the request sends, the kind and provider already patched (patchedKind). */
export interface DataSourcePatch {
  kind: string;
  ratingProvider: string | null;
  jobDefinition?: string;
  feedHash?: string;
  providerKind?: string;
  instrument?: { id: string; address: string };
  refreshEverySeconds?: number | null;
}

export function dataSourcePatch(
  item: UpdateOracleDataSourceItemData,
  kind: { kind: string; ratingProvider: string | null },
  instrument?: { id: string; mintAddress: string },
): DataSourcePatch {
  const definition = item.providerDetails?.jobDefinition;
  return {
    ...kind,
    ...(definition !== undefined ? { jobDefinition: definition, feedHash: feedHash(definition) } : {}),
    ...(item.providerDetails?.kind ? { providerKind: item.providerDetails.kind } : {}),
    ...(instrument ? { instrument: { id: instrument.id, address: instrument.mintAddress } } : {}),
    ...(item.refreshEverySeconds !== undefined ? { refreshEverySeconds: item.refreshEverySeconds || null } : {}),
  };
}

/** The record fields an update's patch and authority change set (the fields it leaves out stay). */
export function patchedDataSourceFields(patch: DataSourcePatch, newAuthority: { address: string; accountId: string } | null) {
  return {
    kind: patch.kind,
    ratingProvider: patch.ratingProvider,
    ...(patch.jobDefinition !== undefined ? { jobDefinition: patch.jobDefinition, feedHash: patch.feedHash } : {}),
    ...(patch.providerKind ? { providerKind: patch.providerKind } : {}),
    ...(patch.instrument ? { financialInstrumentId: patch.instrument.id, financialInstrumentAddress: patch.instrument.address } : {}),
    ...(patch.refreshEverySeconds !== undefined ? { refreshEverySeconds: patch.refreshEverySeconds } : {}),
    ...(newAuthority ? { authorityAddress: newAuthority.address, authorityAccountId: newAuthority.accountId } : {}),
  };
}
