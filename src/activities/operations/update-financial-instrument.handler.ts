/**
 * Update Financial Instrument (patch semantics): Token Metadata fields changed or added after
 * creation (with the rent top-up the bigger account needs), the Scaled UI multiplier, offchain data.
 * A request that changes nothing onchain is recorded without a network transaction.
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
import type { UpdateFinancialInstrumentItemData } from '../../domain/inputs/financial-instrument.inputs';
import { FinancialInstrument, type AuthorityRef } from '../../db/entities';
import { findAccountByLookup, offPlatformAddress, requireSigner } from '../../db/repositories/accounts.repository';
import { authorityFields, type AuthorityField } from '../../domain/instrument-authorities';
import { findInstrumentByLookup } from '../../db/repositories/financial-instruments.repository';
import { validationError } from '../../domain/errors';
import { mintAccountSize, rentExemptMinimum, type MintExtension } from '../../domain/token-extensions';
import { readOnchainInstrument } from '../../domain/mint-state';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';
import { reconcileInstrument } from './reconcile-instrument';
import { copyLogo } from './instrument-logo';
import { uuidFromText } from '../../domain/ids';

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

interface Rotation {
  field: AuthorityField;
  type: number;
  current: string;
  next: AuthorityRef;
}

interface UpdateData {
  instrumentId: string;
  mint: string;
  /** Metadata fields to write: name/symbol/uri or a custom key. */
  fields: { kind: 'Name' | 'Symbol' | 'Uri' | 'Key'; key?: string; value: string }[];
  updateAuthority: string | null;
  multiplier: number | null;
  scaledUiAuthority: string | null;
  topUp: string;
  rotations: Rotation[];
  version: string;
  /** The logo as the record keeps it from now on (copied, or the stored one when its bytes are the same). */
  logo?: Record<string, unknown>;
}

/** The logo the record keeps, when it keeps one (offchainData is free-form JSON). */
const storedLogo = (offchainData: Record<string, unknown>): Record<string, unknown> | undefined => {
  const logo = offchainData.logo;
  return logo !== null && typeof logo === 'object' && !Array.isArray(logo) ? { ...logo } : undefined;
};

export const updateFinancialInstrumentHandler: OperationHandler<UpdateFinancialInstrumentItemData, UpdateData> = {
  async lookup(em, deps, request) {
    const f = 'itemData';
    const item = request.itemData;
    const instrument = await findInstrumentByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, item.financialInstrument, `${f}.financialInstrument`);
    if (instrument.status !== 'ACTIVE') throw validationError(`${f}.financialInstrument`, `the instrument is ${instrument.status}`);
    const on = item.onchainData ?? {};
    if (on.decimals !== undefined && on.decimals !== instrument.decimals) throw validationError(`${f}.onchainData.decimals`, 'decimals cannot change after creation');

    const fields: UpdateData['fields'] = [];
    if (on.name !== undefined && on.name !== instrument.name) fields.push({ kind: 'Name', value: on.name });
    if (on.symbol !== undefined && on.symbol !== instrument.symbol) fields.push({ kind: 'Symbol', value: on.symbol });
    if (on.uri !== undefined && on.uri !== instrument.uri) fields.push({ kind: 'Uri', value: on.uri });
    for (const [key, value] of Object.entries(on.simpleCustomMetadata ?? {})) if (instrument.onchainCustomMetadata[key] !== value) fields.push({ kind: 'Key', key, value });
    if (fields.length && !instrument.extensions.includes('TOKEN_METADATA')) throw validationError(`${f}.onchainData`, 'onchain metadata needs a TOKEN_2022 instrument created with Token Metadata');
    const multiplierChanges = item.scaledUiAmountMultiplier !== undefined && String(item.scaledUiAmountMultiplier) !== instrument.scaledUiAmountMultiplier;
    if (multiplierChanges && !instrument.extensions.includes('SCALED_UI_AMOUNT')) throw validationError(`${f}.scaledUiAmountMultiplier`, 'the instrument has no Scaled UI Amount extension');
    if (multiplierChanges && !(item.scaledUiAmountMultiplier! > 0 && Number.isFinite(item.scaledUiAmountMultiplier))) throw validationError(`${f}.scaledUiAmountMultiplier`, 'scaledUiAmountMultiplier must be a positive number');

    const data: UpdateData = { instrumentId: instrument.id, mint: instrument.mintAddress, fields, updateAuthority: null, multiplier: null, scaledUiAuthority: null, topUp: '0', rotations: [], version: instrument.version };
    const signers: string[] = [];
    for (const field of authorityFields) {
      const lookup = item[field];
      if (!lookup) continue;
      const at = `${f}.${field}`;
      const rotation = rotations[field];
      if (!rotation) throw validationError(at, `${field} cannot be rotated`);
      if (instrument.version === 'SPL' && rotation.type > 1) throw validationError(at, `${field} needs a TOKEN_2022 instrument`);
      if (rotation.extension && !instrument.extensions.includes(rotation.extension)) throw validationError(at, `the instrument has no ${rotation.extension} extension`);
      const current = instrument.authorities[field];
      if (!current) throw validationError(at, `the instrument has no ${field} to rotate`);
      const holder = await requireSigner(em, current.accountId, request.organizationId, request.organizationExternalId, at, `current ${field}`);
      const next = lookup.offPlatform
        ? { address: offPlatformAddress(lookup, at), accountId: null }
        : await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, lookup, at).then((a) => ({ address: a.address, accountId: a.id }));
      if (next.address === current.address) continue;
      data.rotations.push({ field, type: rotation.type, current: holder, next });
      signers.push(holder);
    }
    if (fields.length) {
      data.updateAuthority = await requireSigner(em, instrument.authorities.updateAuthority?.accountId, request.organizationId, request.organizationExternalId, `${f}.updateAuthority`, 'update authority');
      signers.push(data.updateAuthority);
      // The program grows the account for longer metadata; the lamports for its new size must be there first.
      // Sized from the mint as the chain holds it, not from the record.
      const account = await deps.networks.get(request.cluster)!.getAccount(instrument.mintAddress);
      const chain = account && readOnchainInstrument(account.owner, account.data);
      if (!account || !chain?.metadata) throw validationError(`${f}.financialInstrument`, `the mint ${instrument.mintAddress} has no Token Metadata on ${request.cluster}`);
      const merged = { ...chain.metadata.additional, ...Object.fromEntries(fields.filter((x) => x.kind === 'Key').map((x) => [x.key!, x.value])) };
      const metadata = {
        name: fields.find((x) => x.kind === 'Name')?.value ?? chain.metadata.name,
        symbol: fields.find((x) => x.kind === 'Symbol')?.value ?? chain.metadata.symbol,
        uri: fields.find((x) => x.kind === 'Uri')?.value ?? chain.metadata.uri,
        additionalMetadata: merged,
      };
      const needed = rentExemptMinimum(mintAccountSize(chain.extensions, metadata));
      data.topUp = (needed > account.lamports ? needed - account.lamports : 0n).toString();
    }
    if (multiplierChanges) {
      data.multiplier = item.scaledUiAmountMultiplier!;
      data.scaledUiAuthority = await requireSigner(em, instrument.authorities.scaledUiAmountAuthority?.accountId, request.organizationId, request.organizationExternalId, `${f}.scaledUiAmountAuthority`, 'scaled UI amount authority');
      signers.push(data.scaledUiAuthority);
    }
    const logo = item.offchainData?.logo;
    // Copied as at create; the file id derives from the write's, so a retried step stores one file.
    if (logo) data.logo = await copyLogo(em, deps, request.organizationId, logo, uuidFromText(`${request.transactionId}\nlogo`), storedLogo(instrument.offchainData));
    const needsTransaction = fields.length > 0 || multiplierChanges || data.rotations.length > 0;
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    return {
      needsTransaction,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, ...signers])],
      debits: BigInt(data.topUp) > 0n ? [{ accountId: feePayer.accountId, address: feePayer.address, asset: 'NETWORK_CURRENCY', amount: data.topUp, destination: { address: data.mint, class: 'MANAGED' } }] : [],
      webhooks: feePayer.webhooks,
      data,
    };
  },

  reconcile: (em, deps, request, resolved) => reconcileInstrument(em, deps.networks.get(request.cluster)!, resolved.data.instrumentId),

  instructions(_request, resolved) {
    const data = resolved.data;
    const mint = address(data.mint);
    const out: Instruction[] = [];
    if (BigInt(data.topUp) > 0n) out.push(getTransferSolInstruction({ source: createNoopSigner(address(resolved.feePayer)), destination: mint, amount: BigInt(data.topUp) }));
    for (const field of data.fields) {
      out.push(
        getUpdateTokenMetadataFieldInstruction({
          metadata: mint,
          updateAuthority: createNoopSigner(address(data.updateAuthority!)),
          field: field.kind === 'Key' ? tokenMetadataField('Key', [field.key!]) : { __kind: field.kind },
          value: field.value,
        }),
      );
    }
    if (data.multiplier !== null) out.push(getUpdateMultiplierScaledUiMintInstruction({ mint, authority: createNoopSigner(address(data.scaledUiAuthority!)), multiplier: data.multiplier, effectiveTimestamp: 0n }));
    // Rotations come last: earlier instructions are signed by the authorities as they were.
    for (const r of data.rotations) {
      const owner = createNoopSigner(address(r.current));
      const newAuthority = address(r.next.address);
      if (data.version === 'SPL') {
        out.push(getSplSetAuthorityInstruction({ owned: mint, owner, authorityType: r.type, newAuthority }));
        continue;
      }
      if (r.field === 'updateAuthority') out.push(getUpdateTokenMetadataUpdateAuthorityInstruction({ metadata: mint, updateAuthority: owner, newUpdateAuthority: newAuthority }));
      out.push(getSetAuthorityInstruction({ owned: mint, owner, authorityType: r.type, newAuthority }));
    }
    return out;
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (outcome && !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const item = request.itemData;
    const data = resolved.data;
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: data.instrumentId });
    const on = item.onchainData ?? {};
    if (on.name !== undefined) instrument.name = on.name;
    if (on.symbol !== undefined) instrument.symbol = on.symbol;
    if (on.uri !== undefined) instrument.uri = on.uri;
    if (on.simpleCustomMetadata) instrument.onchainCustomMetadata = { ...instrument.onchainCustomMetadata, ...on.simpleCustomMetadata };
    if (data.multiplier !== null) instrument.scaledUiAmountMultiplier = String(data.multiplier);
    if (data.rotations.length) instrument.authorities = { ...instrument.authorities, ...Object.fromEntries(data.rotations.map((r) => [r.field, r.next])) };
    // Patch semantics: fields sent replace the stored ones (a logo by its copy), the rest (the stored logo too) stay.
    if (item.offchainData) instrument.offchainData = { ...instrument.offchainData, ...item.offchainData, ...(data.logo ? { logo: data.logo } : {}) };
    if (item.comments !== undefined) instrument.comments = item.comments;
    if (tx) Object.assign(instrument, { lastTransactionId: tx.id, lastTransactionAt: at });
    return { onchainId: instrument.mintAddress, offchainId: instrument.id };
  },
};
