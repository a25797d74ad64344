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
import { checkTypeForReference, parseAlId } from '../../../domain/al-id';
import { conflict, validationError } from '../../../domain/errors';
import { finalMintSize, initialMintSize, isOnboarding, mintAccountRecordFields, onboardedMintAddress, planCreateFinancialInstrument, requestedExtensions } from '../../../domain/operations/financial-instruments/create-financial-instrument.rules';
import { readOnchainInstrument, type OnchainInstrument } from '../../../domain/mint-state';
import type { ActivityDeps } from '../../deps';
import { rentExemptMinimum } from '../../../domain/token-extensions';
import { resolveFeePayer } from '../fee-payer';
import { landed, type OperationHandler, type OperationRequest, type OperationResolved } from '../operation-handler';
import { reconcileInstrument } from './reconcile-instrument';
import { copyLogo } from './instrument-logo';

type AuthorityName = AuthorityField | 'transferHookProgram';
type Request = OperationRequest<CreateFinancialInstrumentItemData>;

interface InstrumentData {
  mint: string;
  mintAccountId: string;
  /** false when the onboarded mint already has an account record in this tenant. */
  createsMintAccount: boolean;
  instrumentId: string;
  alId: string;
  referenceType: string;
  lamports: string;
  authorities: Record<string, AuthorityRef>;
  /** A pre-created account initialized in place, and the lamports it still needs. */
  existing?: { topUp: string };
  /** The copied logo as the record keeps it. */
  logo?: Record<string, unknown>;
  /** Onboarding: the mint as the chain holds it (supply as decimal text). */
  onchain?: Omit<OnchainInstrument, 'supply'> & { supply: string };
}

/** Resolves one authority lookup: an onboarded account of this tenant (or a shared one), or an off-platform address. */
async function resolveAuthority(em: EntityManager, request: Request, lookup: AccountLookupInput, field: string): Promise<{ ref: AuthorityRef; account?: Account }> {
  if (lookup.offPlatform) return { ref: { address: offPlatformAddress(lookup, field), accountId: null } };
  const account = await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, lookup, field);
  return { ref: { address: account.address, accountId: account.id }, account };
}

/** The AL ID: given (and well formed, and free) or generated from its type, with the category rule of spec 2.4. */
async function resolveAlId(em: EntityManager, refs: Pick<OffchainReferencesInput, 'alId' | 'newAlId'> & { type?: string }): Promise<{ alId: string; referenceType: string }> {
  if (refs.alId) {
    const parsed = parseAlId(refs.alId);
    if (!parsed) throw validationError('itemData.mintAccount.offchainReferences.alId', `${refs.alId} is not an AL ID (AL + category code + type code + 8 digits)`);
    const referenceType = checkTypeForReference(refs.type, parsed.type, 'itemData.mintAccount.offchainReferences.type');
    if (await em.findOne(FinancialInstrument, { alId: refs.alId })) throw conflict('itemData.mintAccount.offchainReferences.alId', `AL ID ${refs.alId} is already taken`);
    return { alId: refs.alId, referenceType };
  }
  const type = refs.newAlId?.financialInstrumentType;
  if (!type) throw validationError('itemData.mintAccount.offchainReferences.newAlId.financialInstrumentType', 'an instrument without an alId needs newAlId.financialInstrumentType so one is generated');
  const referenceType = checkTypeForReference(refs.type, type, 'itemData.mintAccount.offchainReferences.type');
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
  const field = item.existingMintAccount?.onchainId ? 'itemData.existingMintAccount.onchainId' : 'itemData.mintAccount.onchainId';
  const mint = onboardedMintAddress(item)!;
  const scope = { organizationId: request.organizationId, cluster: request.cluster };
  if (await em.findOne(FinancialInstrument, { ...scope, mintAddress: mint })) throw conflict(field, `the mint ${mint} is already onboarded`);
  const account = await deps.networks.get(request.cluster)!.getAccount(mint);
  if (!account) throw validationError(field, `there is no account ${mint} on ${request.cluster}`);
  const onchain = readOnchainInstrument(account.owner, account.data);
  if (!onchain) throw validationError(field, `${mint} is not an initialized SPL or Token-2022 mint`);
  if (onchain.version !== item.version) throw validationError('itemData.version', `the mint on the chain is ${onchain.version}`);
  if (onchain.decimals !== item.onchainData.decimals) throw validationError('itemData.onchainData.decimals', `the mint on the chain has ${onchain.decimals} decimals`);
  const { alId, referenceType } = await resolveAlId(em, item.mintAccount?.offchainReferences ?? {});
  const known = await em.find(Account, { ...scope, address: { $in: [mint, ...Object.values(onchain.authorities)] } });
  if (known.some((a) => a.address === mint)) {
    // The mint's account record exists already and stays as it is: what only that record would keep is refused.
    const refs = item.mintAccount?.offchainReferences ?? {};
    const recordOnly = [
      ...mintAccountRecordFields.filter((name) => item.mintAccount?.[name] !== undefined),
      ...(['code', 'accountNumber', 'organizationExternalId'] as const).filter((name) => refs[name] !== undefined).map((name) => `offchainReferences.${name}`),
    ];
    if (recordOnly.length) throw validationError(`itemData.mintAccount.${recordOnly[0]}`, `the mint ${mint} already has an account record in this organization; change it with Update Account`);
  }
  const authorities = Object.fromEntries(Object.entries(onchain.authorities).map(([name, addr]) => [name, { address: addr, accountId: known.find((a) => a.address === addr)?.id ?? null }]));
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
    'Pre-create the mint with Create Account (dataLength = the Token Extensions Calculator\'s mintAccountSize for the extensions without metadata, seed = the rent of the whole) and pass existingMintAccount; or create it with fewer metadata fields and add them later with Update Financial Instrument (PATCH /api/v1/financial-instruments).',

  async lookup(em, deps, request) {
    const item = request.itemData;
    if (isOnboarding(item)) return lookupOnboarding(em, deps, request);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});

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

    const network = deps.networks.get(request.cluster)!;
    const lamports = rentExemptMinimum(finalMintSize(item));
    let mint: string;
    let existing: InstrumentData['existing'];
    let mintAccountId = request.extraRecordIds!.mintAccount;
    let preCreated: Account | undefined;
    if (item.existingMintAccount) {
      // The workaround of spec 8: a mint pre-created with Create Account (the calculator's size) is initialized in place.
      const field = 'itemData.existingMintAccount';
      const account = await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, item.existingMintAccount, field);
      assertMaySign(account, request.organizationId, request.organizationExternalId, field);
      if (await em.findOne(FinancialInstrument, { organizationId: request.organizationId, cluster: request.cluster, mintAddress: account.address })) throw conflict(field, `${account.address} is already an instrument's mint`);
      const onchain = await network.getAccount(account.address);
      if (!onchain || onchain.owner !== '11111111111111111111111111111111') throw validationError(field, `${account.address} must be a pre-created account still owned by the System Program`);
      // The token program initializes only an account of the mint's exact size; Token Metadata grows it afterwards.
      const needed = item.version === 'SPL' ? 82 : initialMintSize(item);
      if (onchain.data.length !== needed) {
        throw validationError(field, `${account.address} holds ${onchain.data.length} bytes; this mint needs exactly ${needed}: the Token Extensions Calculator's mintAccountSize for its extensions without metadata (metadata is written after, with the rent topped up)`);
      }
      mint = account.address;
      mintAccountId = account.id;
      preCreated = account;
      existing = { topUp: (lamports > onchain.lamports ? lamports - onchain.lamports : 0n).toString() };
    } else {
      mint = item.mintAccount?.privateKeyDetails?.privateKey
        ? await deps.keyStore.import(em, request.organizationId, deps.sealer.unseal(item.mintAccount.privateKeyDetails.privateKey))
        : await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:mint`);
      if (await network.accountExists(mint)) throw conflict('itemData.mintAccount', `the mint account ${mint} already exists onchain`);
    }
    // A pre-created mint account may carry its AL ID from Create Account; the request's references win.
    const { alId, referenceType } = await resolveAlId(em, item.mintAccount?.offchainReferences ?? (preCreated?.alId ? { alId: preCreated.alId, type: preCreated.type } : {}));

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
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, mint, ...signing])],
      debits: [{ accountId: feePayer.accountId, address: feePayer.address, asset: 'NETWORK_CURRENCY', amount: data.existing?.topUp ?? data.lamports, destination: { address: mint, class: 'MANAGED' } }],
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
    });
  },

  async record(em, request, resolved, outcome, tx, at) {
    const data = resolved.data;
    if (data.onchain ? outcome !== null : !landed(outcome)) return undefined;
    const item = request.itemData;
    const onboarded = data.onchain;
    const refs = item.mintAccount?.offchainReferences ?? {};
    if (data.createsMintAccount) {
      createAccountRecord(
        em,
        {
          id: data.mintAccountId,
          organizationId: request.organizationId,
          cluster: request.cluster,
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
          ...createdBy(tx, at),
        },
        at,
      );
    }
    if (data.existing) {
      const mintAccount = await em.findOneOrFail(Account, { id: data.mintAccountId });
      Object.assign(mintAccount, { type: data.referenceType, alId: data.alId, tokenVersion: item.version, tokenDecimals: item.onchainData.decimals, lastTransactionId: tx?.id ?? null, lastTransactionSignature: tx?.signature ?? null, lastTransactionAt: tx ? at : null });
      // The labels given in mintAccount.offchainReferences replace the pre-created record's.
      if (refs.code !== undefined) mintAccount.code = refs.code;
      if (refs.name !== undefined) mintAccount.name = refs.name;
      if (refs.accountNumber !== undefined) mintAccount.accountNumber = refs.accountNumber;
      if (refs.organizationExternalId !== undefined) mintAccount.referenceOrganizationExternalId = refs.organizationExternalId;
    }
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
      offchainReferenceName: refs.name ?? null,
      lastTransactionId: tx?.id ?? null,
      lastTransactionAt: tx ? at : null,
      creationTransactionId: tx?.id ?? null,
      creationTransactionAt: tx ? at : null,
      createdAt: at,
      updatedAt: at,
    });
    if (tx) tx.accountIds = [...new Set([...tx.accountIds, data.mintAccountId])];
    return { onchainId: data.mint, offchainId: data.instrumentId };
  },
};
