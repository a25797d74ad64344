/**
 * Update Financial Instrument (patch semantics): Token Metadata fields changed or added after
 * creation (with the rent top-up the bigger account needs), the Scaled UI multiplier, offchain data.
 * A request that changes nothing onchain is recorded without a network transaction.
 */
import type { UpdateFinancialInstrumentItemData } from '../../../domain/operations/financial-instruments/financial-instrument.inputs';
import { FinancialInstrument } from '../../../db/entities';
import { findAccountByLookup, offPlatformAddress, requireSigner } from '../../../db/repositories/accounts.repository';
import { authorityFields } from '../../../domain/instrument-authorities';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { readOnchainInstrument } from '../../../domain/mint-state';
import {
  chainMetadata,
  checkUpdatable,
  currentAuthority,
  metadataChanges,
  metadataTopUp,
  multiplierChange,
  planUpdateFinancialInstrument,
  rotationType,
  type UpdateFinancialInstrumentPlan,
} from '../../../domain/operations/financial-instruments/update-financial-instrument.rules';
import { resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { signerSet } from '../../../domain/write';
import { reconcileInstrument } from './reconcile-instrument';
import { copyLogo } from './instrument-logo';
import { uuidFromText } from '../../../domain/ids';

interface UpdateData extends UpdateFinancialInstrumentPlan {
  instrumentId: string;
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
    const scope = scopeOf(request);
    const instrument = await findInstrumentByLookup(em, scope, item.financialInstrument, `${f}.financialInstrument`);
    checkUpdatable(instrument, request.organizationId);
    const fields = metadataChanges(item, instrument);
    const multiplier = multiplierChange(item, instrument);

    const data: UpdateData = {
      instrumentId: instrument.id,
      mint: instrument.mintAddress,
      fields,
      updateAuthority: null,
      multiplier: null,
      scaledUiAuthority: null,
      topUp: '0',
      rotations: [],
      version: instrument.version,
    };
    const signers: string[] = [];
    for (const field of authorityFields) {
      const lookup = item[field];
      if (!lookup) continue;
      const at = `${f}.${field}`;
      const type = rotationType(field, instrument);
      const current = currentAuthority(instrument.authorities, field);
      const holder = await requireSigner(em, current.accountId, at, `current ${field}`);
      const next = lookup.offPlatform
        ? { address: offPlatformAddress(lookup, at), accountId: null }
        : await findAccountByLookup(em, scope, lookup, at).then((a) => ({ address: a.address, accountId: a.id }));
      if (next.address === current.address) continue;
      data.rotations.push({ field, type, current: holder, next });
      signers.push(holder);
    }
    if (fields.length) {
      data.updateAuthority = await requireSigner(em, instrument.authorities.updateAuthority?.accountId, `${f}.updateAuthority`, 'update authority');
      signers.push(data.updateAuthority);
      // The program grows the account for longer metadata; the lamports for its new size must be there first.
      // Sized from the mint as the chain holds it, not from the record.
      const account = await deps.networks.get(request.cluster)!.getAccount(instrument.mintAddress);
      const chain = chainMetadata(
        instrument.mintAddress,
        request.cluster,
        account && { lamports: account.lamports, instrument: readOnchainInstrument(account.owner, account.data) },
      );
      data.topUp = metadataTopUp(chain, fields).toString();
    }
    if (multiplier !== null) {
      data.multiplier = multiplier;
      data.scaledUiAuthority = await requireSigner(
        em,
        instrument.authorities.scaledUiAmountAuthority?.accountId,
        `${f}.scaledUiAmountAuthority`,
        'scaled UI amount authority',
      );
      signers.push(data.scaledUiAuthority);
    }
    const logo = item.offchainData?.logo;
    // Copied as at create; the file id derives from the write's, so a retried step stores one file.
    if (logo)
      data.logo = await copyLogo(em, deps, request.organizationId, logo, uuidFromText(`${request.transactionId}\nlogo`), storedLogo(instrument.offchainData));
    const needsTransaction = fields.length > 0 || multiplier !== null || data.rotations.length > 0;
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    return {
      needsTransaction,
      feePayer: feePayer.address,
      signers: signerSet(feePayer.address, signers),
      debits:
        BigInt(data.topUp) > 0n
          ? [
              {
                accountId: feePayer.accountId,
                address: feePayer.address,
                asset: 'NETWORK_CURRENCY',
                amount: data.topUp,
                destination: { address: data.mint, class: 'MANAGED' },
              },
            ]
          : [],
      webhooks: feePayer.webhooks,
      data,
    };
  },

  reconcile: (em, deps, request, resolved) => reconcileInstrument(em, deps.networks.get(request.cluster)!, resolved.data.instrumentId),

  instructions: (_request, resolved) => planUpdateFinancialInstrument(resolved.data, resolved.feePayer),

  async record(em, request, resolved, outcome, tx, at) {
    if (outcome && !landed(outcome)) return undefined;
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
