/**
 * Create Financial Instrument in the pipeline: resolve the new mint key and every authority,
 * allocate the AL ID, then record the mint's account and the instrument.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthorityField, CreateFinancialInstrumentItemData } from '../../api/codecs/financial-instrument.codecs';
import { authorityFields } from '../../api/codecs/financial-instrument.codecs';
import type { AccountLookupInput, SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import { Account, FinancialInstrument, type AuthorityRef } from '../../db/entities';
import { assertMaySign, findAccountByLookup, offPlatformAddress } from '../../db/repositories/accounts.repository';
import { allocateAlId } from '../../db/repositories/al-id.repository';
import { checkTypeForReference, parseAlId } from '../../domain/al-id';
import { conflict, validationError } from '../../domain/errors';
import { finalMintSize, planCreateFinancialInstrument, requestedExtensions } from '../../domain/operations/create-financial-instrument.operation';
import { rentExemptMinimum } from '../../domain/token-extensions';
import type { WriteRequest } from '../../domain/write';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';

type AuthorityName = AuthorityField | 'transferHookProgram';

interface InstrumentData {
  mint: string;
  mintAccountId: string;
  instrumentId: string;
  alId: string;
  referenceType: string;
  lamports: string;
  authorities: Record<string, AuthorityRef>;
}

/** Resolves one authority lookup: an onboarded account of this tenant (or a shared one), or an off-platform address. */
async function resolveAuthority(em: EntityManager, request: WriteRequest, lookup: AccountLookupInput, field: string): Promise<{ ref: AuthorityRef; account?: Account }> {
  if (lookup.offPlatform) return { ref: { address: offPlatformAddress(lookup, field), accountId: null } };
  const account = await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, lookup, field);
  return { ref: { address: account.address, accountId: account.id }, account };
}

export const createFinancialInstrumentHandler: OperationHandler = {
  async lookup(em, deps, request) {
    const item = request.itemData as CreateFinancialInstrumentItemData;
    const config = (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput;
    const feePayer = await resolveFeePayer(em, deps, request, config);

    // The AL ID: given (and well formed) or generated from its type, with the category rule of spec 2.4.
    const refs = item.mintAccount?.offchainReferences ?? {};
    let alId = refs.alId;
    let referenceType = refs.type ?? 'ASSET_TOKEN';
    if (alId) {
      const parsed = parseAlId(alId);
      if (!parsed) throw validationError('itemData.mintAccount.offchainReferences.alId', `${alId} is not an AL ID (AL + category code + type code + 8 digits)`);
      referenceType = checkTypeForReference(refs.type, parsed.type, 'itemData.mintAccount.offchainReferences.type');
      if (await em.findOne(FinancialInstrument, { alId })) throw conflict('itemData.mintAccount.offchainReferences.alId', `AL ID ${alId} is already taken`);
    } else {
      const type = refs.newAlId?.financialInstrumentType;
      if (!type) throw validationError('itemData.mintAccount.offchainReferences.newAlId.financialInstrumentType', 'an instrument without an alId needs newAlId.financialInstrumentType so one is generated');
      referenceType = checkTypeForReference(refs.type, type, 'itemData.mintAccount.offchainReferences.type');
      alId = await allocateAlId(em, type);
    }

    const authorities: Partial<Record<AuthorityName, AuthorityRef>> = {};
    const mustSign: { field: string; account?: Account }[] = [];
    for (const field of [...authorityFields, 'transferHookProgram'] as const) {
      const lookup = item[field];
      if (!lookup) continue;
      const resolved = await resolveAuthority(em, request, lookup, `itemData.${field}`);
      authorities[field] = resolved.ref;
      if (field === 'mintAuthority' || field === 'updateAuthority' || field === 'pausableAuthority') mustSign.push({ field: `itemData.${field}`, account: resolved.account });
    }
    authorities.updateAuthority ??= authorities.mintAuthority;

    // Token Metadata is initialized by the mint authority and written by the update authority; a paused start is signed by the pausable authority.
    const extensions = requestedExtensions(item);
    const signing = new Set<string>();
    const needs = (field: string) =>
      (extensions.includes('TOKEN_METADATA') && (field === 'itemData.mintAuthority' || field === 'itemData.updateAuthority')) || (item.paused === true && field === 'itemData.pausableAuthority');
    for (const { field, account } of mustSign) {
      if (!needs(field)) continue;
      if (!account) throw validationError(field, `${field} must sign and is not onboarded`);
      assertMaySign(account, request.organizationId, request.organizationExternalId, field);
      signing.add(account.address);
    }

    const mint = item.mintAccount?.privateKeyDetails?.privateKey
      ? await deps.keyStore.import(em, request.organizationId, deps.sealer.unseal(item.mintAccount.privateKeyDetails.privateKey))
      : await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:mint`);
    if (await deps.networks.get(request.cluster)!.accountExists(mint)) throw conflict('itemData.mintAccount', `the mint account ${mint} already exists onchain`);

    const data: InstrumentData = {
      mint,
      mintAccountId: request.extraRecordIds!.mintAccount,
      instrumentId: request.newRecordId!,
      alId,
      referenceType,
      lamports: rentExemptMinimum(finalMintSize(item)).toString(),
      authorities: authorities as Record<string, AuthorityRef>,
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, mint, ...signing])],
      debits: [{ accountId: feePayer.accountId, address: feePayer.address, asset: 'NETWORK_CURRENCY', amount: data.lamports, destination: { address: mint, class: 'MANAGED' } }],
      webhooks: feePayer.webhooks,
      reservesAddress: mint,
      data: { ...data },
    };
  },

  instructions(request, resolved) {
    const item = request.itemData as CreateFinancialInstrumentItemData;
    const data = resolved.data as unknown as InstrumentData;
    const authorities = Object.fromEntries(Object.entries(data.authorities).map(([k, v]) => [k, v.address]));
    return planCreateFinancialInstrument(item, { feePayer: resolved.feePayer, mint: data.mint, authorities, lamports: BigInt(data.lamports) });
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const item = request.itemData as CreateFinancialInstrumentItemData;
    const data = resolved.data as unknown as InstrumentData;
    const refs = item.mintAccount?.offchainReferences ?? {};
    em.create(Account, {
      id: data.mintAccountId,
      organizationId: request.organizationId,
      cluster: request.cluster,
      address: data.mint,
      type: data.referenceType,
      code: refs.code ?? null,
      alId: data.alId,
      accountNumber: refs.accountNumber ?? null,
      name: refs.name ?? null,
      referenceOrganizationExternalId: refs.organizationExternalId ?? null,
      managed: true,
      status: 'ACTIVE',
      privateKeyLocation: ['DATABASE'],
      isDerived: false,
      isGenesis: false,
      comments: item.mintAccount?.comments ?? null,
      subscribeToNetworkEvents: false,
      sharedAcrossTenants: item.shareAcrossTenants ?? false,
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
      dataLength: finalMintSize(item),
      tokenVersion: item.version,
      lamportsBalance: BigInt(data.lamports),
      tokenDecimals: item.onchainData.decimals,
      lastTransactionId: tx?.id ?? null,
      lastTransactionSignature: tx?.signature ?? null,
      lastTransactionAt: at,
      creationTransactionId: tx?.id ?? null,
      creationTransactionSignature: tx?.signature ?? null,
      creationTransactionAt: at,
      createdAt: at,
      updatedAt: at,
    });
    // The instrument references the mint's account row: write that first.
    await em.flush();
    em.create(FinancialInstrument, {
      id: data.instrumentId,
      organizationId: request.organizationId,
      cluster: request.cluster,
      mintAccountId: data.mintAccountId,
      mintAddress: data.mint,
      version: item.version,
      alId: data.alId,
      financialInstrumentType: parseAlId(data.alId)?.type ?? null,
      decimals: item.onchainData.decimals,
      symbol: item.onchainData.symbol ?? null,
      name: item.onchainData.name ?? null,
      uri: item.onchainData.uri ?? null,
      onchainCustomMetadata: item.onchainData.simpleCustomMetadata ?? {},
      offchainData: item.offchainData ?? {},
      extensions: requestedExtensions(item),
      authorities: data.authorities,
      defaultPositionState: item.defaultPositionState ?? null,
      paused: item.pausableAuthority ? (item.paused ?? false) : null,
      scaledUiAmountMultiplier: item.scaledUiAmountMultiplier !== undefined ? String(item.scaledUiAmountMultiplier) : item.scaledUiAmountAuthority ? '1' : null,
      status: 'ACTIVE',
      managed: true,
      wasOnchainAlready: false,
      sharedAcrossTenants: item.shareAcrossTenants ?? false,
      comments: item.comments ?? null,
      offchainReferenceName: refs.name ?? null,
      lastTransactionId: tx?.id ?? null,
      lastTransactionAt: at,
      creationTransactionId: tx?.id ?? null,
      creationTransactionAt: at,
      createdAt: at,
      updatedAt: at,
    });
    if (tx) tx.accountIds = [...new Set([...tx.accountIds, data.mintAccountId])];
    return { onchainId: data.mint, offchainId: data.instrumentId };
  },
};
