/**
 * Create Financial Instrument in the pipeline: resolve the new mint key and every authority,
 * allocate the AL ID, then record the mint's account and the instrument.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { authorityFields, type AuthorityField } from '../../../domain/instrument-authorities';
import type { CreateFinancialInstrumentItemData } from '../../../domain/operations/financial-instruments/financial-instrument.inputs';
import type { AccountLookupInput, OffchainReferencesInput } from '../../../domain/inputs/common.inputs';
import { Account, FinancialInstrument, type AuthorityRef } from '../../../db/entities';
import { assertMaySign, createAccountRecord, createdBy, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { allocateAlId } from '../../../db/repositories/al-id.repository';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import {
  authorityReferences,
  checkAlIdFree,
  checkMintNotOnboarded,
  checkMintRecordUnchanged,
  checkNewMint,
  checkConfidentialMintBurnRelease,
  checkNotAMint,
  checkSupplyKeyHolder,
  finalMintSize,
  givenAlId,
  instrumentRecord,
  isOnboarding,
  mintAccountRecord,
  newAlIdType,
  onboardedMint,
  onboardedMintAddress,
  planCreateFinancialInstrument,
  preCreatedMintChanges,
  preCreatedMintTopUp,
  signingAuthority,
  signsCreation,
  type CreatedInstrument,
} from '../../../domain/operations/financial-instruments/create-financial-instrument.rules';
import type { ActivityDeps } from '../../deps';
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { signBytes } from '@solana/kit';
import { confidentialSupplyKeys } from '../../../custody/confidential-supply-keys';
import { programRelease } from '../../../network/program-release';
import { rentExemptMinimum, type ConfidentialSupplyKeys } from '../../../domain/token-extensions';
import { signerSet } from '../../../domain/write';
import { resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler, type OperationRequest, type OperationResolved } from '../operation-handler';
import { reconcileInstrument } from './reconcile-instrument';
import { copyLogo } from './instrument-logo';

type AuthorityName = AuthorityField | 'transferHookProgram';
type Request = OperationRequest<CreateFinancialInstrumentItemData>;

interface InstrumentData extends CreatedInstrument {
  /** Confidential Mint and Burn's supply keys (public values only). */
  confidentialSupply?: ConfidentialSupplyKeys;
  /** false when the onboarded mint already has an account record in this tenant. */
  createsMintAccount: boolean;
  /** A pre-created account initialized in place, and the lamports it still needs. */
  existing?: { topUp: string };
}

/** Resolves one authority lookup: an onboarded account of this tenant (or a shared one), or an off-platform address. */
async function resolveAuthority(
  em: EntityManager,
  request: Request,
  lookup: AccountLookupInput,
  field: string,
): Promise<{ ref: AuthorityRef; account?: Account }> {
  if (lookup.offPlatform) return { ref: { address: offPlatformAddress(lookup, field), accountId: null } };
  const account = await findAccountByLookup(em, scopeOf(request), lookup, field);
  return { ref: { address: account.address, accountId: account.id }, account };
}

/**
 * Confidential Mint and Burn's supply keys, where the network's Token-2022 program initializes the
 * extension: derived from the authority's key (the service signs the derivation messages with it),
 * so the same keys come back on a retry and its owner can derive them again.
 */
async function supplyKeys(em: EntityManager, deps: ActivityDeps, request: Request, authority: Account | undefined, mint: string) {
  const field = 'itemData.confidentialMintBurnAuthority';
  checkConfidentialMintBurnRelease(await programRelease(deps.networks.get(request.cluster)!, TOKEN_2022_PROGRAM_ADDRESS));
  const account = signingAuthority(field, authority);
  assertMaySign(account, request.organizationId, request.organizationExternalId, field);
  const keyPair = (await deps.keyStore.keyPairs(em, [account.address])).get(account.address);
  checkSupplyKeyHolder({ held: !!keyPair, autoSign: request.itemData.confidentialMintBurnAuthority?.autoSign });
  return confidentialSupplyKeys((message) => signBytes(keyPair!.privateKey, message), mint);
}

/** The AL ID: given (and well formed, and free) or generated from its type, with the category rule of spec 2.4. */
async function resolveAlId(
  em: EntityManager,
  refs: Pick<OffchainReferencesInput, 'alId' | 'newAlId'> & { type?: string },
): Promise<{ alId: string; referenceType: string }> {
  if (refs.alId) {
    const given = givenAlId(refs.alId, refs.type);
    checkAlIdFree(refs.alId, !!(await em.findOne(FinancialInstrument, { alId: refs.alId })));
    return given;
  }
  const { type, referenceType } = newAlIdType(refs);
  return { alId: await allocateAlId(em, type), referenceType };
}

/** Copies the logo into the service's storage; idempotent (the file id comes with the request). */
async function copyRequestLogo(em: EntityManager, deps: ActivityDeps, request: Request): Promise<Record<string, unknown> | undefined> {
  const logo = request.itemData.offchainData?.logo;
  return logo ? copyLogo(em, deps, request.organizationId, logo, request.extraRecordIds!.logo) : undefined;
}

/** Onboards a mint that is already onchain: everything but the offchain fields is read from the chain. */
async function lookupOnboarding(em: EntityManager, deps: ActivityDeps, request: Request): Promise<OperationResolved<InstrumentData>> {
  const item = request.itemData;
  const mint = onboardedMintAddress(item)!;
  const scope = scopeOf(request);
  checkMintNotOnboarded(item, mint, !!(await em.findOne(FinancialInstrument, { ...scope, mintAddress: mint })));
  const { account, onchain } = onboardedMint(item, mint, request.cluster, await deps.networks.get(request.cluster)!.getAccount(mint));
  const { alId, referenceType } = await resolveAlId(em, item.mintAccount?.offchainReferences ?? {});
  const known = await em.find(Account, { ...scope, address: { $in: [mint, ...Object.values(onchain.authorities)] } });
  checkMintRecordUnchanged(
    item,
    mint,
    known.some((a) => a.address === mint),
  );
  const authorities = authorityReferences(onchain.authorities, known);
  const data: InstrumentData = {
    mint,
    mintAccountId: known.find((a) => a.address === mint)?.id ?? request.extraRecordIds!.mintAccount,
    createsMintAccount: !known.some((a) => a.address === mint),
    instrumentId: request.newRecordId!,
    alId,
    referenceType,
    lamports: account.lamports.toString(),
    authorities,
    onchain: { ...onchain, supply: onchain.supply.toString() },
    logo: await copyRequestLogo(em, deps, request),
  };
  return { needsTransaction: false, feePayer: deps.feePayerAddress, signers: [], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data };
}

export const createFinancialInstrumentHandler: OperationHandler<CreateFinancialInstrumentItemData, InstrumentData> = {
  tooLargeHint:
    "Pre-create the mint with Create Account (dataLength = the Token Extensions Calculator's mintAccountSize for the extensions without metadata, seed = the rent of the whole) and pass existingMintAccount; or create it with fewer metadata fields and add them later with Update Financial Instrument (PATCH /api/v1/financial-instruments).",

  async lookup(em, deps, request) {
    const item = request.itemData;
    if (isOnboarding(item)) return lookupOnboarding(em, deps, request);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});

    const authorities: Partial<Record<AuthorityName, AuthorityRef>> = {};
    const mustSign: { field: string; account?: Account }[] = [];
    let supplyAuthority: Account | undefined;
    for (const field of [...authorityFields, 'transferHookProgram'] as const) {
      const lookup = item[field];
      if (!lookup) continue;
      const resolved = await resolveAuthority(em, request, lookup, `itemData.${field}`);
      authorities[field] = resolved.ref;
      if (field === 'confidentialMintBurnAuthority') supplyAuthority = resolved.account;
      if (signsCreation(item, field)) mustSign.push({ field: `itemData.${field}`, account: resolved.account });
    }
    authorities.updateAuthority ??= authorities.mintAuthority;

    const signing: string[] = [];
    for (const { field, account } of mustSign) {
      const authority = signingAuthority(field, account);
      assertMaySign(authority, request.organizationId, request.organizationExternalId, field);
      signing.push(authority.address);
    }

    const network = deps.networks.get(request.cluster)!;
    const lamports = rentExemptMinimum(finalMintSize(item));
    let mint: string;
    let existing: InstrumentData['existing'];
    let mintAccountId = request.extraRecordIds!.mintAccount;
    let preCreated: Account | undefined;
    if (item.existingMintAccount) {
      // The workaround of spec 8: a mint pre-created with Create Account (the calculator's size) is initialized in place.
      const field = 'itemData.existingMintAccount';
      const account = await findAccountByLookup(em, scopeOf(request), item.existingMintAccount, field);
      assertMaySign(account, request.organizationId, request.organizationExternalId, field);
      checkNotAMint(account.address, !!(await em.findOne(FinancialInstrument, { ...scopeOf(request), mintAddress: account.address })));
      const onchain = await network.getAccount(account.address);
      const topUp = preCreatedMintTopUp(
        item,
        account.address,
        onchain && { owner: onchain.owner, lamports: onchain.lamports, dataLength: onchain.data.length },
        lamports,
      );
      mint = account.address;
      mintAccountId = account.id;
      preCreated = account;
      existing = { topUp: topUp.toString() };
    } else {
      mint = item.mintAccount?.privateKeyDetails?.privateKey
        ? await deps.keyStore.import(em, request.organizationId, deps.sealer.unseal(item.mintAccount.privateKeyDetails.privateKey))
        : await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:mint`);
      checkNewMint(mint, await network.accountExists(mint));
    }
    const confidentialSupply = item.confidentialMintBurnAuthority && (await supplyKeys(em, deps, request, supplyAuthority, mint));
    // A pre-created mint account may carry its AL ID from Create Account; the request's references win.
    const { alId, referenceType } = await resolveAlId(
      em,
      item.mintAccount?.offchainReferences ?? (preCreated?.alId ? { alId: preCreated.alId, type: preCreated.type } : {}),
    );

    const data: InstrumentData = {
      mint,
      mintAccountId,
      createsMintAccount: !existing,
      existing,
      instrumentId: request.newRecordId!,
      alId,
      referenceType,
      lamports: lamports.toString(),
      authorities: Object.fromEntries(Object.entries(authorities).filter((entry): entry is [string, AuthorityRef] => entry[1] !== undefined)),
      logo: await copyRequestLogo(em, deps, request),
      ...(confidentialSupply && { confidentialSupply }),
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: signerSet(feePayer.address, mint, signing),
      debits: [
        {
          accountId: feePayer.accountId,
          address: feePayer.address,
          asset: 'NETWORK_CURRENCY',
          amount: data.existing?.topUp ?? data.lamports,
          destination: { address: mint, class: 'MANAGED' },
        },
      ],
      webhooks: feePayer.webhooks,
      reservesAddress: mint,
      data,
    };
  },

  reconcile: (em, deps, request, resolved) => reconcileInstrument(em, deps.networks.get(request.cluster)!, resolved.data.instrumentId),

  instructions(request, resolved) {
    const item = request.itemData;
    const data = resolved.data;
    const authorities = Object.fromEntries(Object.entries(data.authorities).map(([k, v]) => [k, v.address]));
    return planCreateFinancialInstrument(item, {
      feePayer: resolved.feePayer,
      mint: data.mint,
      authorities,
      lamports: BigInt(data.lamports),
      existing: data.existing && { topUp: BigInt(data.existing.topUp) },
      confidentialSupply: data.confidentialSupply,
    });
  },

  async record(em, request, resolved, outcome, tx, at) {
    const data = resolved.data;
    if (data.onchain ? outcome !== null : !landed(outcome)) return undefined;
    const item = request.itemData;
    const tenant = scopeOf(request);
    if (data.createsMintAccount) createAccountRecord(em, { ...mintAccountRecord(item, tenant, data), ...createdBy(tx, at) }, at);
    if (data.existing)
      Object.assign(
        await em.findOneOrFail(Account, { id: data.mintAccountId }),
        preCreatedMintChanges(item, data, tx && { id: tx.id, signature: tx.signature ?? null }, at),
      );
    // The instrument references the mint's account row: write that first.
    await em.flush();
    em.create(FinancialInstrument, instrumentRecord(item, tenant, data, tx?.id ?? null, at));
    linkRecords(tx, [data.mintAccountId]);
    return { onchainId: data.mint, offchainId: data.instrumentId };
  },
};
