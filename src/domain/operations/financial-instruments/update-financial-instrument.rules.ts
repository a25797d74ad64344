/**
 * Update Financial Instrument (patch semantics): what may change on an instrument, what the change
 * writes onchain (metadata fields, the Scaled UI multiplier, authority rotations, the rent top-up the
 * longer metadata needs), and the instructions that do it. Pure: the lookup step supplies the
 * instrument record, the mint as the chain holds it, and the authorities' addresses.
 */
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetAuthorityInstruction as getSplSetAuthorityInstruction } from '@solana-program/token';
import {
  getSetAuthorityInstruction,
  getUpdateMultiplierScaledUiMintInstruction,
  getUpdateTokenMetadataFieldInstruction,
  getUpdateTokenMetadataUpdateAuthorityInstruction,
  tokenMetadataField,
} from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { UpdateFinancialInstrumentItemData } from './financial-instrument.inputs';
import { authorityFields, type AuthorityField } from '../../instrument-authorities';
import { forbidden, validationError } from '../../errors';
import type { OnchainInstrument } from '../../mint-state';
import { mintAccountSize, rentExemptMinimum, type MintExtension } from '../../token-extensions';

const f = 'itemData';

/** Which SetAuthority type rotates each authority, and the extension it needs (spec 2.4 names). */
const rotations: Partial<Record<AuthorityField, { type: number; extension?: MintExtension }>> = {
  mintAuthority: { type: 0 },
  freezeAuthority: { type: 1 },
  closingAuthority: { type: 6, extension: 'CLOSE_MINT' },
  permanentDelegateAuthority: { type: 8, extension: 'PERMANENT_DELEGATE' },
  confidentialTransferAuthority: { type: 9, extension: 'CONFIDENTIAL_TRANSFER' },
  transferHookAuthority: { type: 10, extension: 'TRANSFER_HOOK' },
  scaledUiAmountAuthority: { type: 15, extension: 'SCALED_UI_AMOUNT' },
  pausableAuthority: { type: 16, extension: 'PAUSABLE' },
  // updateAuthority: the Token Metadata update authority and the Metadata Pointer's authority (type 12) move together.
  updateAuthority: { type: 12, extension: 'METADATA_POINTER' },
};

/** The instrument record as these rules read it. */
export interface StoredInstrument {
  version: string;
  decimals: number;
  extensions: readonly string[];
  name?: string | null;
  symbol?: string | null;
  uri?: string | null;
  onchainCustomMetadata: Record<string, string>;
  scaledUiAmountMultiplier?: string | null;
}

/** A Token Metadata field to write: name/symbol/uri or a custom key. */
export interface MetadataFieldChange {
  kind: 'Name' | 'Symbol' | 'Uri' | 'Key';
  key?: string;
  value: string;
}

export interface AuthorityRotation {
  field: AuthorityField;
  type: number;
  /** The current authority's address (it signs). */
  current: string;
  next: { address: string; accountId: string | null };
}

/** What an update writes onchain (JSON-safe: the top-up as decimal text). */
export interface UpdateFinancialInstrumentPlan {
  mint: string;
  version: string;
  fields: MetadataFieldChange[];
  updateAuthority: string | null;
  multiplier: number | null;
  scaledUiAuthority: string | null;
  topUp: string;
  rotations: AuthorityRotation[];
}

/**
 * The rules on the request alone (run by the API before any lookup): an authority that can be
 * rotated, a positive multiplier. Throws VALIDATION_ERROR naming the field.
 */
export function validateUpdateFinancialInstrument(item: UpdateFinancialInstrumentItemData): void {
  for (const field of authorityFields) if (item[field] && !rotations[field]) throw validationError(`${f}.${field}`, `${field} cannot be rotated`);
  const multiplier = item.scaledUiAmountMultiplier;
  if (multiplier !== undefined && !(multiplier > 0 && Number.isFinite(multiplier)))
    throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier must be a positive number');
}

/**
 * The stored instrument may be changed: this organization's (a shared instrument is usable by other
 * tenants, not theirs to change, as Update Account; offchain fields need no signature) and ACTIVE.
 * Throws FORBIDDEN or VALIDATION_ERROR naming itemData.financialInstrument.
 */
export function checkUpdatable(instrument: { organizationId: string; status: string }, organizationId: string): void {
  if (instrument.organizationId !== organizationId)
    throw forbidden('only the organization that owns a financial instrument may change it', `${f}.financialInstrument`);
  if (instrument.status !== 'ACTIVE') throw validationError(`${f}.financialInstrument`, `the instrument is ${instrument.status}`);
}

/** The authority a rotation replaces, as the record holds it. VALIDATION_ERROR naming itemData.<field> when the instrument has none. */
export function currentAuthority<R>(authorities: Partial<Record<string, R>>, field: AuthorityField): R {
  const current = authorities[field];
  if (!current) throw validationError(`${f}.${field}`, `the instrument has no ${field} to rotate`);
  return current;
}

/**
 * The mint's Token Metadata as the chain holds it, which sizes the rent top-up (`onchain`: null when
 * the account is not there; its instrument undefined when it is no mint). VALIDATION_ERROR naming
 * itemData.financialInstrument when there is none.
 */
export function chainMetadata(
  mint: string,
  cluster: string,
  onchain: { lamports: bigint; instrument: OnchainInstrument | undefined } | null,
): Parameters<typeof metadataTopUp>[0] {
  const chain = onchain?.instrument;
  if (!onchain || !chain?.metadata) throw validationError(`${f}.financialInstrument`, `the mint ${mint} has no Token Metadata on ${cluster}`);
  return { extensions: chain.extensions, metadata: chain.metadata, lamports: onchain.lamports };
}

/**
 * The metadata fields the request changes (those equal to the record's are not written again).
 * Throws VALIDATION_ERROR naming the field: decimals never change; metadata needs Token Metadata.
 */
export function metadataChanges(item: UpdateFinancialInstrumentItemData, instrument: StoredInstrument): MetadataFieldChange[] {
  const on = item.onchainData ?? {};
  if (on.decimals !== undefined && on.decimals !== instrument.decimals)
    throw validationError(`${f}.onchainData.decimals`, 'decimals cannot change after creation');
  const fields: MetadataFieldChange[] = [];
  if (on.name !== undefined && on.name !== instrument.name) fields.push({ kind: 'Name', value: on.name });
  if (on.symbol !== undefined && on.symbol !== instrument.symbol) fields.push({ kind: 'Symbol', value: on.symbol });
  if (on.uri !== undefined && on.uri !== instrument.uri) fields.push({ kind: 'Uri', value: on.uri });
  for (const [key, value] of Object.entries(on.simpleCustomMetadata ?? {}))
    if (instrument.onchainCustomMetadata[key] !== value) fields.push({ kind: 'Key', key, value });
  if (fields.length && !instrument.extensions.includes('TOKEN_METADATA'))
    throw validationError(`${f}.onchainData`, 'onchain metadata needs a TOKEN_2022 instrument created with Token Metadata');
  return fields;
}

/** The new Scaled UI multiplier, or null when the request leaves it as it is. VALIDATION_ERROR naming the field. */
export function multiplierChange(item: UpdateFinancialInstrumentItemData, instrument: StoredInstrument): number | null {
  const multiplier = item.scaledUiAmountMultiplier;
  if (multiplier === undefined || String(multiplier) === instrument.scaledUiAmountMultiplier) return null;
  if (!instrument.extensions.includes('SCALED_UI_AMOUNT'))
    throw validationError(`${f}.scaledUiAmountMultiplier`, 'the instrument has no Scaled UI Amount extension');
  if (!(multiplier > 0 && Number.isFinite(multiplier)))
    throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier must be a positive number');
  return multiplier;
}

/** The SetAuthority type that rotates `field` on this instrument. VALIDATION_ERROR naming itemData.<field>. */
export function rotationType(field: AuthorityField, instrument: Pick<StoredInstrument, 'version' | 'extensions'>): number {
  const at = `${f}.${field}`;
  const rotation = rotations[field];
  if (!rotation) throw validationError(at, `${field} cannot be rotated`);
  if (instrument.version === 'SPL' && rotation.type > 1) throw validationError(at, `${field} needs a TOKEN_2022 instrument`);
  if (rotation.extension && !instrument.extensions.includes(rotation.extension))
    throw validationError(at, `the instrument has no ${rotation.extension} extension`);
  return rotation.type;
}

/**
 * The lamports the mint needs before its metadata grows: the rent of its size with the changed fields
 * over what it holds (0n when enough). `chain` is the mint as the network holds it, not the record.
 */
export function metadataTopUp(
  chain: {
    extensions: readonly MintExtension[];
    metadata: { name: string; symbol: string; uri: string; additional: Record<string, string> };
    lamports: bigint;
  },
  fields: readonly MetadataFieldChange[],
): bigint {
  const additionalMetadata = { ...chain.metadata.additional, ...Object.fromEntries(fields.filter((x) => x.kind === 'Key').map((x) => [x.key!, x.value])) };
  const metadata = {
    name: fields.find((x) => x.kind === 'Name')?.value ?? chain.metadata.name,
    symbol: fields.find((x) => x.kind === 'Symbol')?.value ?? chain.metadata.symbol,
    uri: fields.find((x) => x.kind === 'Uri')?.value ?? chain.metadata.uri,
    additionalMetadata,
  };
  const needed = rentExemptMinimum(mintAccountSize(chain.extensions, metadata));
  return needed > chain.lamports ? needed - chain.lamports : 0n;
}

/** The instructions of an update, in order: rent top-up, metadata fields, multiplier, then the rotations. */
export function planUpdateFinancialInstrument(plan: UpdateFinancialInstrumentPlan, feePayer: string): Instruction[] {
  const mint = address(plan.mint);
  const out: Instruction[] = [];
  if (BigInt(plan.topUp) > 0n)
    out.push(getTransferSolInstruction({ source: createNoopSigner(address(feePayer)), destination: mint, amount: BigInt(plan.topUp) }));
  for (const field of plan.fields) {
    out.push(
      getUpdateTokenMetadataFieldInstruction({
        metadata: mint,
        updateAuthority: createNoopSigner(address(plan.updateAuthority!)),
        field: field.kind === 'Key' ? tokenMetadataField('Key', [field.key!]) : { __kind: field.kind },
        value: field.value,
      }),
    );
  }
  if (plan.multiplier !== null)
    out.push(
      getUpdateMultiplierScaledUiMintInstruction({
        mint,
        authority: createNoopSigner(address(plan.scaledUiAuthority!)),
        multiplier: plan.multiplier,
        effectiveTimestamp: 0n,
      }),
    );
  // Rotations come last: earlier instructions are signed by the authorities as they were.
  for (const r of plan.rotations) {
    const owner = createNoopSigner(address(r.current));
    const newAuthority = address(r.next.address);
    if (plan.version === 'SPL') {
      out.push(getSplSetAuthorityInstruction({ owned: mint, owner, authorityType: r.type, newAuthority }));
      continue;
    }
    if (r.field === 'updateAuthority')
      out.push(getUpdateTokenMetadataUpdateAuthorityInstruction({ metadata: mint, updateAuthority: owner, newUpdateAuthority: newAuthority }));
    out.push(getSetAuthorityInstruction({ owned: mint, owner, authorityType: r.type, newAuthority }));
  }
  return out;
}
