/**
 * The lookups and records of the token movements of spec 4.3 (mint, burn, transfer) as legs of one
 * network transaction: the positions, instruments and signers a leg needs, the balances the network
 * holds, the records a landed leg writes. The rules (balance book, freeze options and settlement,
 * amounts) and the instructions are pure: src/domain/operations/movement.operation.ts and
 * movement-instructions.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token-2022';
import { address, type Instruction } from '@solana/kit';
import { legInstructions } from '../../../domain/operations/positions/movement-instructions';
import type { AccountLookupInput } from '../../../domain/inputs/common.inputs';
import type { BurnOperation, MintOperation, PositionLookupInput, TransferOperation } from '../../../domain/operations/positions/position.inputs';
import { Account, FinancialInstrument, Position, type LedgerTransaction } from '../../../db/entities';
import { findAccountByLookup, offPlatformAddress, ownerSignature, requireSigner } from '../../../db/repositories/accounts.repository';
import { checkNamedAuthority, checkPositionLookupAuthorities, findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { findPositionByLookup, insertPosition } from '../../../db/repositories/positions.repository';
import { LedgerError } from '../../../domain/errors';
import { checkOwnerActive, checkPositionActive } from '../../../domain/operations/positions/position.rules';
import { resolveValue } from '../../../domain/money';
import {
  amountToMove,
  BalanceBook,
  checkDistinctEnds,
  checkHookAccounts,
  checkInstrumentMovable,
  checkPermanentDelegate,
  checkPositiveAmount,
  checkSameInstrument,
  freezeOption,
  frozenAfter,
  transferDestinationState,
  type AmountRequest,
  type BookPosition,
  type BurnLeg,
  type Leg,
  type MintLeg,
  type TradeDefaults,
  type TransferLeg,
} from '../../../domain/operations/positions/movement.rules';
import { signerSet, type Debit, type DestinationClass, type WriteRequest } from '../../../domain/write';
import type { ActivityDeps } from '../../deps';
import { scopeOf, type OperationResolved } from '../operation-handler';
import type { FeePayer } from '../fee-payer';
import { resolveTransferHookAccounts, TransferHookResolutionError } from '../../../network/transfer-hook';
import { freezeOptionSigner, moveBalance, tokenProgramOf } from './token-movement';

export interface PlannedLeg {
  leg: Leg;
  signers: string[];
  debits: Debit[];
}

export interface PlanContext {
  em: EntityManager;
  deps: ActivityDeps;
  request: WriteRequest;
  book: BalanceBook;
  defaults: TradeDefaults;
  /** Owners whose signatures the write waits for (Sign Transaction) instead of the service signing. */
  awaited: Set<string>;
}

/** A new book for the legs of one transaction. */
export const newPlanContext = (em: EntityManager, deps: ActivityDeps, request: WriteRequest, defaults: TradeDefaults): PlanContext => ({
  em,
  deps,
  request,
  book: new BalanceBook(),
  defaults,
  awaited: new Set(),
});

/** One network transaction of the planned legs paid by `feePayer` (signing first, then `alsoSigning`, then the legs' owners); pure. */
export function legsResolution<Data>(
  ctx: PlanContext,
  feePayer: FeePayer,
  planned: readonly PlannedLeg[],
  data: Data,
  alsoSigning: readonly string[] = [],
): OperationResolved<Data> {
  return {
    needsTransaction: true,
    feePayer: feePayer.address,
    signers: signerSet(
      feePayer.address,
      alsoSigning,
      planned.flatMap((x) => x.signers),
    ),
    // An owner the write waits for waits also when it pays the fees (signedBy, docs/signatures.md).
    awaitedSigners: [...ctx.awaited],
    debits: planned.flatMap((x) => x.debits),
    webhooks: feePayer.webhooks,
    data,
  };
}

/** A movement write's instructions: its legs' in order, the fee payer paying for positions they open. */
export const legsInstructions = (_request: unknown, resolved: { feePayer: string; data: { legs: readonly Leg[] } }): Instruction[] =>
  resolved.data.legs.flatMap((leg) => legInstructions(leg, resolved.feePayer));

/** The position's onchain balance when the next leg runs: the network's (read once per transaction) moved by the earlier legs. */
export async function onchainBalance(ctx: PlanContext, position: BookPosition): Promise<bigint> {
  if (!ctx.book.knowsOnchain(position.id)) {
    const account = await ctx.deps.networks.get(ctx.request.cluster)!.getAccount(position.address);
    ctx.book.knowOnchain(position.id, account ? getTokenDecoder().decode(account.data).amount : 0n);
  }
  return ctx.book.onchain(position.id);
}

const option = (ctx: PlanContext, item: Parameters<typeof freezeOption>[1], p: string, name: Parameters<typeof freezeOption>[3]) =>
  freezeOption(ctx.defaults, item, p, name);

async function movableInstrument(em: EntityManager, position: Position, field: string): Promise<FinancialInstrument> {
  checkPositionActive(position, field);
  const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
  checkInstrumentMovable(instrument, `${field}.financialInstrument`);
  return instrument;
}

/** The owner moving units out of its position: the service signs, or the write waits for the owner's signature. */
async function ownerSigner(
  ctx: PlanContext,
  accountId: string | null | undefined,
  autoSign: boolean | undefined,
  field: string,
  what: string,
): Promise<string> {
  const owner = await ownerSignature(ctx.em, accountId, ctx.request.organizationId, ctx.request.organizationExternalId, autoSign, field, what);
  if (owner.mode === 'AWAITED') ctx.awaited.add(owner.address);
  return owner.address;
}

/** An authority named in a lookup must be the instrument's own; the service signs for it. */
async function instrumentAuthority(
  ctx: PlanContext,
  instrument: FinancialInstrument,
  name: 'mintAuthority' | 'permanentDelegateAuthority',
  given: AccountLookupInput | undefined,
  field: string,
  what: string,
): Promise<string> {
  const ref = instrument.authorities[name];
  if (given) await checkNamedAuthority(ctx.em, scopeOf(ctx.request), instrument, name, given, field);
  return requireSigner(ctx.em, ref?.accountId, field, what);
}

/** signWithPermanentDelegate: a Token-2022 instrument's permanent delegate moves the units instead of the owner. */
async function permanentDelegate(ctx: PlanContext, instrument: FinancialInstrument, given: AccountLookupInput | undefined, p: string): Promise<string> {
  checkPermanentDelegate({ version: instrument.version, hasPermanentDelegate: !!instrument.authorities.permanentDelegateAuthority }, p);
  return instrumentAuthority(ctx, instrument, 'permanentDelegateAuthority', given, `${p}.permanentDelegateAuthority`, 'permanent delegate');
}

/** The amount to move: the value, or everything the position will hold when this leg runs (the rule: amountToMove). */
async function amountOf(ctx: PlanContext, position: Position, decimals: number, request: AmountRequest, p: string): Promise<bigint> {
  // Read only when the request names one of value and the entire balance: its refusal comes first, as in the rule.
  if (!request.value !== !request.entire) await onchainBalance(ctx, position);
  return amountToMove(ctx.book, position, decimals, request, p);
}

/** The debit limits class of a position's owner as a destination (spec 8). */
async function destinationClass(em: EntityManager, ownerAccountId: string | null | undefined): Promise<DestinationClass> {
  const owner = ownerAccountId ? await em.findOne(Account, { id: ownerAccountId }) : null;
  return !owner ? 'OFF_PLATFORM' : owner.managed ? 'MANAGED' : 'NON_MANAGED';
}

/** What every movement leg of `kind` carries of its instrument, freeze authority and memo. */
const movement = <K extends Leg['kind']>(kind: K, instrument: FinancialInstrument, freezeAuthority: string | null, memo: string | undefined) => ({
  kind,
  tokenProgram: tokenProgramOf(instrument),
  mint: instrument.mintAddress,
  decimals: instrument.decimals,
  freezeAuthority,
  memo: memo ?? null,
});

/** A mint's or a burn's fields on its one position: thawed first as `thaw` says, frozen after when the freeze option is on. */
const onPosition = (position: Position, amount: bigint, thaw: string[], freeze: ReturnType<typeof option>) => ({
  positionId: position.id,
  position: position.address,
  amount: amount.toString(),
  thaw,
  freeze: freeze[1] ? [position.address] : [],
});

/** What a burn or a transfer debits from its position's owner, for the limit check (a burn has no destination). */
const ownerDebit = (
  position: Position,
  leg: BurnLeg | TransferLeg,
  operationType: 'TRANSFER' | 'BURN',
  destination: Debit['destination'],
  field: string,
): Debit => ({
  accountId: position.ownerAccountId ?? null,
  address: position.ownerAddress,
  asset: { financialInstrumentId: position.financialInstrumentId },
  amount: leg.amount,
  operationType,
  destination,
  field,
});

export async function planMint(ctx: PlanContext, item: MintOperation, p: string): Promise<PlannedLeg> {
  const position = await findPositionByLookup(ctx.em, scopeOf(ctx.request), item.mintTo, `${p}.mintTo`);
  const instrument = await movableInstrument(ctx.em, position, `${p}.mintTo`);
  const amount = resolveValue(item.value, instrument.decimals, `${p}.value`);
  checkPositiveAmount(amount, `${p}.value`);
  const unfreeze = option(ctx, item, p, 'unfreeze');
  const freeze = option(ctx, item, p, 'freeze');
  // The lookup's named authorities were checked against the instrument by findPositionByLookup.
  const freezeAuthority = await freezeOptionSigner(ctx.em, ctx.request, instrument, [unfreeze, freeze], undefined, `${p}.mintTo.freezeAuthority`);
  const thaw = ctx.book.thaw(position, unfreeze, `${p}.mintTo`);
  const mintAuthority = await instrumentAuthority(ctx, instrument, 'mintAuthority', undefined, `${p}.mintTo.mintAuthority`, 'mint authority');
  ctx.book.move(position.id, amount);
  const leg: MintLeg = {
    ...movement('mint', instrument, freezeAuthority, item.memo),
    ...onPosition(position, amount, thaw, freeze),
    mintAuthority,
  };
  return { leg, signers: [mintAuthority, ...(freezeAuthority ? [freezeAuthority] : [])], debits: [] };
}

export async function planBurn(ctx: PlanContext, item: BurnOperation, p: string): Promise<PlannedLeg> {
  const position = await findPositionByLookup(ctx.em, scopeOf(ctx.request), item.burnFrom, `${p}.burnFrom`);
  const instrument = await movableInstrument(ctx.em, position, `${p}.burnFrom`);
  const authority = item.signWithPermanentDelegate
    ? await permanentDelegate(ctx, instrument, item.permanentDelegateAuthority, p)
    : await ownerSigner(ctx, position.ownerAccountId, item.burnFrom.owner?.autoSign, `${p}.burnFrom.owner`, 'owner');
  const unfreeze = option(ctx, item, p, 'unfreeze');
  const freeze = option(ctx, item, p, 'freeze');
  // The lookup's named authorities were checked against the instrument by findPositionByLookup.
  const freezeAuthority = await freezeOptionSigner(ctx.em, ctx.request, instrument, [unfreeze, freeze], undefined, `${p}.burnFrom.freezeAuthority`);
  const thaw = ctx.book.thaw(position, unfreeze, `${p}.burnFrom`);
  const amount = await amountOf(
    ctx,
    position,
    instrument.decimals,
    {
      value: item.value,
      entire: item.burnEntireBalance,
      entireName: 'burnEntireBalance',
      verb: 'burn',
      precheckOffchain: item.offchainBalanceAvailabilityPrecheck,
    },
    p,
  );
  ctx.book.move(position.id, -amount);
  const leg: BurnLeg = {
    ...movement('burn', instrument, freezeAuthority, item.memo),
    ...onPosition(position, amount, thaw, freeze),
    authority,
  };
  const debit = ownerDebit(position, leg, 'BURN', null, `${p}.burnFrom`);
  return { leg, signers: [authority, ...(freezeAuthority ? [freezeAuthority] : [])], debits: [debit] };
}

/** The destination of a transfer: an existing active position, or (initializeDestinationPositionIfNeeded) the owner's associated one, made in the same transaction. */
async function transferDestination(
  ctx: PlanContext,
  lookup: PositionLookupInput,
  source: Position,
  instrument: FinancialInstrument,
  initialize: boolean | undefined,
  p: string,
): Promise<{ position: BookPosition; create: TransferLeg['createDestination'] }> {
  const field = `${p}.destination`;
  let found: Position | null = null;
  try {
    found = await findPositionByLookup(ctx.em, scopeOf(ctx.request), lookup, field);
  } catch (error) {
    // Only an owner's associated account is opened on the way; a named account must exist.
    if (!(initialize && !lookup.position && error instanceof LedgerError && error.code === 'NOT_FOUND')) throw error;
  }
  if (transferDestinationState(found, source.financialInstrumentId, lookup, initialize, field) === 'active') return { position: found!, create: null };
  // A found position's lookup was checked by findPositionByLookup; one opened here is checked the same way.
  if (!found) await checkPositionLookupAuthorities(ctx.em, scopeOf(ctx.request), instrument, lookup, field);
  if (lookup.financialInstrument) {
    const named = await findInstrumentByLookup(ctx.em, scopeOf(ctx.request), lookup.financialInstrument, `${field}.financialInstrument`);
    checkSameInstrument(named.id, instrument.id, `${field}.financialInstrument`);
  }
  let owner = found?.ownerAddress ?? '';
  let ownerAccountId: string | null = found?.ownerAccountId ?? null;
  if (!found) {
    if (lookup.owner!.offPlatform) owner = offPlatformAddress(lookup.owner!, `${field}.owner`);
    else {
      const account = await findAccountByLookup(ctx.em, scopeOf(ctx.request), lookup.owner!, `${field}.owner`);
      checkOwnerActive(account, `${field}.owner`);
      owner = account.address;
      ownerAccountId = account.id;
    }
  }
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(instrument.mintAddress),
    tokenProgram: address(tokenProgramOf(instrument)),
  });
  // A record under this address that the lookup did not match (another owner lookup form) is the same position.
  const existing = found ?? (await ctx.em.findOne(Position, { ...scopeOf(ctx.request), address: ata }));
  if (existing?.status === 'ACTIVE') return { position: existing, create: null };
  // An earlier leg of this transaction opens it already.
  const opening = ctx.book.opening(ata);
  if (opening) return { position: opening, create: null };
  const frozen = instrument.defaultPositionState === 'FROZEN';
  const position: BookPosition = { id: existing?.id ?? randomUUID(), address: ata, ownerAccountId, frozen, balance: '0' };
  ctx.book.open(position);
  return { position, create: { owner, ownerAccountId, instrumentId: instrument.id, reactivate: !!existing, frozen } };
}

export async function planTransfer(ctx: PlanContext, item: TransferOperation, p: string): Promise<PlannedLeg> {
  const source = await findPositionByLookup(ctx.em, scopeOf(ctx.request), item.source, `${p}.source`);
  const instrument = await movableInstrument(ctx.em, source, `${p}.source`);
  const { position: destination, create } = await transferDestination(ctx, item.destination, source, instrument, item.initializeDestinationPositionIfNeeded, p);
  checkDistinctEnds(source.id, destination.id, p);

  const unfreezeSource = option(ctx, item, p, 'unfreezeSource');
  const freezeSource = option(ctx, item, p, 'freezeSource');
  const unfreezeDestination = option(ctx, item, p, 'unfreezeDestination');
  const freezeDestination = option(ctx, item, p, 'freezeDestination');
  // The lookup's named authorities were checked against the instrument by findPositionByLookup.
  const freezeAuthority = await freezeOptionSigner(
    ctx.em,
    ctx.request,
    instrument,
    [unfreezeSource, freezeSource, unfreezeDestination, freezeDestination],
    undefined,
    `${p}.source.freezeAuthority`,
  );
  const thaw = [...ctx.book.thaw(source, unfreezeSource, `${p}.source`), ...ctx.book.thaw(destination, unfreezeDestination, `${p}.destination`)];

  const amount = await amountOf(
    ctx,
    source,
    instrument.decimals,
    {
      value: item.value,
      entire: item.transferEntireBalance,
      entireName: 'transferEntireBalance',
      verb: 'transfer',
      precheckOffchain: item.offchainBalanceAvailabilityPrecheck,
    },
    p,
  );
  const authority = item.signWithPermanentDelegate
    ? await permanentDelegate(ctx, instrument, item.permanentDelegateAuthority, p)
    : await ownerSigner(ctx, source.ownerAccountId, item.source.owner?.autoSign, `${p}.source.owner`, 'source owner');
  const extraAccounts = await hookAccounts(ctx, instrument, { source: source.address, destination: destination.address, authority, amount }, p);
  ctx.book.move(source.id, -amount);
  ctx.book.move(destination.id, amount);
  const leg: TransferLeg = {
    ...movement('transfer', instrument, freezeAuthority, item.memo),
    sourceId: source.id,
    source: source.address,
    destinationId: destination.id,
    destination: destination.address,
    amount: amount.toString(),
    authority,
    createDestination: create,
    extraAccounts,
    thaw,
    freeze: [...(freezeSource[1] ? [source.address] : []), ...(freezeDestination[1] ? [destination.address] : [])],
  };
  const to = { address: destination.address, class: await destinationClass(ctx.em, destination.ownerAccountId) };
  const debit = ownerDebit(source, leg, 'TRANSFER', to, `${p}.source`);
  return { leg, signers: [authority, ...(freezeAuthority ? [freezeAuthority] : [])], debits: [debit] };
}

/** A transfer-hook instrument's hook needs its program and the accounts its validation account lists. */
async function hookAccounts(
  ctx: PlanContext,
  instrument: FinancialInstrument,
  transfer: { source: string; destination: string; authority: string; amount: bigint },
  p: string,
): Promise<TransferLeg['extraAccounts']> {
  const hookProgram = instrument.authorities.transferHookProgram?.address;
  if (!instrument.extensions.includes('TRANSFER_HOOK') || !hookProgram) return [];
  const field = `${p}.source.financialInstrument`;
  const network = ctx.deps.networks.get(ctx.request.cluster)!;
  const resolved = await resolveTransferHookAccounts(network, { hookProgram, mint: instrument.mintAddress, ...transfer }).catch((error: unknown) => {
    if (error instanceof TransferHookResolutionError) return { unresolvable: error.message };
    throw error;
  });
  return checkHookAccounts(resolved, field);
}

/** The offchain side of every leg of a landed transaction, in order. */
export async function recordLegs(em: EntityManager, request: WriteRequest, legs: readonly Leg[], tx: LedgerTransaction | null, at: Date): Promise<void> {
  for (const leg of legs) await recordLeg(em, request, leg, tx, at);
}

/** The offchain side of a landed leg: balances moved by the planned amounts, frozen states, new destinations. */
export async function recordLeg(em: EntityManager, request: WriteRequest, leg: Leg, tx: LedgerTransaction | null, at: Date): Promise<void> {
  const amount = BigInt(leg.amount);
  if (leg.kind === 'mint' || leg.kind === 'burn') {
    await moveBalance(em, leg.positionId, leg.kind === 'mint' ? amount : -amount, frozenAfter(leg, leg.position), tx, at);
    return;
  }
  // By address: a destination opened by an earlier leg, or by a racing write, may hold another id than planned.
  const destination = leg.createDestination ? await openDestination(em, request, leg, tx, at) : { address: leg.destination, scope: scopeOf(request) };
  await moveBalance(em, leg.sourceId, -amount, frozenAfter(leg, leg.source), tx, at);
  await moveBalance(em, destination, amount, frozenAfter(leg, leg.destination), tx, at);
}

/** Opens (or reopens) the destination's record; returns its id (a racing write may have opened it first). */
async function openDestination(em: EntityManager, request: WriteRequest, leg: TransferLeg, tx: LedgerTransaction | null, at: Date): Promise<string> {
  const c = leg.createDestination!;
  const id = await insertPosition(em, {
    id: leg.destinationId,
    organizationId: request.organizationId,
    cluster: request.cluster,
    address: leg.destination,
    ownerAddress: c.owner,
    ownerAccountId: c.ownerAccountId,
    financialInstrumentId: c.instrumentId,
    mintAddress: leg.mint,
    associated: true,
    status: 'ACTIVE',
    frozen: c.frozen,
    balance: '0',
    lastTransactionId: tx?.id ?? null,
    creationTransactionId: tx?.id ?? null,
    at,
  });
  const position = await em.findOneOrFail(Position, { id });
  if (position.status !== 'ACTIVE') Object.assign(position, { status: 'ACTIVE', frozen: c.frozen, balance: '0', updatedAt: at });
  return id;
}
