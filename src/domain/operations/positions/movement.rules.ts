/**
 * The rules of the token movements of spec 4.3 (mint, burn, transfer), as legs of one network
 * transaction: what each leg is (JSON-safe: it lives in workflow history), how a trade's legs see
 * the balances and frozen states the earlier ones leave, the freeze options, and where a freeze
 * goes. Pure: the lookup step supplies the positions and the balances the chain holds.
 */
import { LedgerError, validationError } from '../../errors';
import { checkValueAlone, fromBaseUnits, resolveValue, type ValueInput } from '../../money';
import type { BurnOperation, MintOperation, TradeItemData, TransferOperation } from './position.inputs';

/** What every leg does around its movement: thaw before, freeze after, a memo. */
export interface AroundMovement {
  tokenProgram: string;
  mint: string;
  freezeAuthority: string | null;
  /** Token accounts thawed before the movement and frozen after it. */
  thaw: string[];
  freeze: string[];
  memo: string | null;
}

export type TransferHookAccountRole = 'readonly' | 'writable' | 'readonly_signer' | 'writable_signer';

/** JSON-safe (it travels in activity payloads); `toAccountMetas` turns it into kit's form. */
export interface TransferHookAccountMeta {
  address: string;
  role: TransferHookAccountRole;
}

interface LegBase extends AroundMovement {
  decimals: number;
  amount: string;
}
export interface MintLeg extends LegBase {
  kind: 'mint';
  positionId: string;
  position: string;
  mintAuthority: string;
}
export interface BurnLeg extends LegBase {
  kind: 'burn';
  positionId: string;
  position: string;
  /** The owner, or the permanent delegate. */
  authority: string;
}
export interface TransferLeg extends LegBase {
  kind: 'transfer';
  sourceId: string;
  source: string;
  destinationId: string;
  destination: string;
  authority: string;
  /** initializeDestinationPositionIfNeeded: the destination's associated account is created in the same transaction. */
  createDestination: { owner: string; ownerAccountId: string | null; instrumentId: string; reactivate: boolean; frozen: boolean } | null;
  /** Accounts a transfer-hook instrument's hook needs, appended to TransferChecked. */
  extraAccounts: TransferHookAccountMeta[];
}
export type Leg = MintLeg | BurnLeg | TransferLeg;

/** Trade-level defaults for the freeze options (docs/behaviour/conventions.md: an operation's own flag overrides them). */
export interface TradeDefaults {
  freeze?: boolean;
  unfreeze?: boolean;
}

export type FreezeOption = 'unfreeze' | 'freeze' | 'unfreezeSource' | 'freezeSource' | 'unfreezeDestination' | 'freezeDestination';

/** A leg's freeze option: its own flag, else the trade-level default; with the field path that set it. */
export function freezeOption(
  defaults: TradeDefaults,
  item: Partial<Record<FreezeOption, boolean>>,
  p: string,
  name: FreezeOption,
): [field: string, on: boolean | undefined] {
  const own = item[name];
  const kind = name.startsWith('unfreeze') ? 'unfreeze' : 'freeze';
  return own !== undefined ? [`${p}.${name}`, own] : [`itemData.${kind}`, defaults[kind]];
}

/** A frozen position moves only when the request thaws it in the same transaction (`option` is the field path of the unfreeze flag). Throws POSITION_FROZEN naming `field`. */
export function requireUnfrozen(position: { frozen: boolean; address: string }, unfreeze: boolean | undefined, option: string, field: string): void {
  if (position.frozen && !unfreeze)
    throw new LedgerError('POSITION_FROZEN', `the position ${position.address} is frozen; set ${option} to thaw it in the same transaction`, field);
}

/** A position as the balance book sees it: its record's offchain balance (decimal string of base units) and frozen state. */
export interface BookPosition {
  id: string;
  address: string;
  frozen: boolean;
  balance: string;
  ownerAccountId?: string | null;
}

/**
 * What the legs of one transaction have done to each position so far (units taken and given,
 * thawed, opened), so a trade's later legs are checked against the state the earlier ones leave.
 * The balances the chain holds are given to it (`knowOnchain`) before a leg asks for them.
 */
export class BalanceBook {
  private readonly chain = new Map<string, bigint>();
  private readonly delta = new Map<string, bigint>();
  private readonly frozen = new Map<string, boolean>();
  private readonly opened = new Map<string, BookPosition>();

  knowsOnchain(positionId: string): boolean {
    return this.chain.has(positionId);
  }

  /** The position's balance on the chain before this transaction (the first one given counts). */
  knowOnchain(positionId: string, amount: bigint): void {
    if (!this.chain.has(positionId)) this.chain.set(positionId, amount);
  }

  /** The onchain balance the position will hold when the next leg runs. */
  onchain(positionId: string): bigint {
    const chain = this.chain.get(positionId);
    if (chain === undefined) throw new Error(`the onchain balance of ${positionId} was not looked up`);
    return chain + (this.delta.get(positionId) ?? 0n);
  }

  offchain(position: BookPosition): bigint {
    return BigInt(position.balance) + (this.delta.get(position.id) ?? 0n);
  }

  move(positionId: string, amount: bigint): void {
    this.delta.set(positionId, (this.delta.get(positionId) ?? 0n) + amount);
  }

  /** A destination position an earlier leg opens, by address. */
  opening(address: string): BookPosition | undefined {
    return this.opened.get(address);
  }

  open(position: BookPosition): void {
    this.opened.set(position.address, position);
  }

  /**
   * A frozen position moves only when the request thaws it: the thaw is planned once (a later leg
   * finds it thawed). `unfreeze` is the option's [field, value]. Returns the accounts to thaw;
   * throws POSITION_FROZEN naming `field`.
   */
  thaw(position: BookPosition, unfreeze: [string, boolean | undefined], field: string): string[] {
    const frozen = this.frozen.get(position.id) ?? position.frozen;
    requireUnfrozen({ frozen, address: position.address }, unfreeze[1], unfreeze[0], field);
    if (!frozen) return [];
    this.frozen.set(position.id, false);
    return [position.address];
  }
}

/** How a burn or a transfer names what it moves: `value`, or everything (`entireName`: burnEntireBalance, transferEntireBalance). */
export interface AmountRequest {
  value: ValueInput | undefined;
  entire: boolean | undefined;
  entireName: string;
  verb: 'burn' | 'transfer';
  /** offchainBalanceAvailabilityPrecheck: the record's balance must cover it too. */
  precheckOffchain: boolean | undefined;
}

/**
 * The amount a burn or transfer leg moves: the value, or everything the position holds onchain when
 * this leg runs. VALIDATION_ERROR naming the field for neither/both or nothing to move;
 * INSUFFICIENT_BALANCE naming `${p}.value` when the balance (onchain, or offchain with the precheck)
 * the earlier legs leave does not cover it.
 */
export function amountToMove(book: BalanceBook, position: BookPosition, decimals: number, request: AmountRequest, p: string): bigint {
  const { value, entire, entireName, verb } = request;
  if (!value === !entire) throw validationError(`${p}.value`, `give value or ${entireName} (one of them)`);
  const onchain = book.onchain(position.id);
  const amount = entire ? onchain : resolveValue(value!, decimals, `${p}.value`);
  if (amount === 0n) throw validationError(entire ? `${p}.${entireName}` : `${p}.value`, `there is nothing to ${verb}`);
  const available = request.precheckOffchain ? book.offchain(position) : onchain;
  if (amount > available) {
    throw new LedgerError(
      'INSUFFICIENT_BALANCE',
      `the position ${position.address} holds ${fromBaseUnits(available, decimals)}; ${fromBaseUnits(amount, decimals)} cannot be ${verb === 'burn' ? 'burned' : 'transferred'}`,
      `${p}.value`,
    );
  }
  return amount;
}

/** The accounts a leg moves units of. */
const touched = (leg: Leg) => (leg.kind === 'transfer' ? [leg.source, leg.destination] : [leg.position]);

/**
 * A position a trade freezes is frozen once, after the last leg that moves it (freezing it earlier
 * would stop the later legs). Rewrites the legs' `freeze` lists in place.
 */
export function settleFreezes(legs: Leg[]): void {
  const wanted = new Map<string, string>();
  for (const leg of legs) for (const account of leg.freeze) wanted.set(account, leg.freezeAuthority!);
  for (const leg of legs) leg.freeze = [];
  for (const [account, authority] of wanted) {
    const last = legs.findLast((leg) => touched(leg).includes(account))!;
    last.freeze.push(account);
    last.freezeAuthority ??= authority;
  }
}

/** The frozen state a leg leaves an account in, from the state it had. */
export const frozenAfter = (leg: Leg, account: string) => (frozen: boolean) =>
  leg.freeze.includes(account) ? true : leg.thaw.includes(account) ? false : frozen;

/** An instrument units move in: ACTIVE and not paused (VALIDATION_ERROR naming `field`, the lookup's financialInstrument). */
export function checkInstrumentMovable(instrument: { status: string; paused?: boolean | null }, field: string): void {
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is ${instrument.status}`);
  if (instrument.paused) throw validationError(field, 'the instrument is paused');
}

/** A mint moves something (VALIDATION_ERROR naming its value). */
export function checkPositiveAmount(amount: bigint, field: string): void {
  if (amount === 0n) throw validationError(field, 'the amount must be more than zero');
}

/** signWithPermanentDelegate needs a Token-2022 instrument with a permanent delegate (VALIDATION_ERROR naming the flag). */
export function checkPermanentDelegate(instrument: { version: string; hasPermanentDelegate: boolean }, p: string): void {
  if (instrument.version !== 'TOKEN_2022' || !instrument.hasPermanentDelegate) {
    throw validationError(`${p}.signWithPermanentDelegate`, 'the instrument has no permanent delegate (a TOKEN_2022 extension)');
  }
}

/**
 * A transfer's destination as its lookup found it (null: no record): 'active' to use it, 'open' to
 * open the owner's associated position in the same transaction (initializeDestinationPositionIfNeeded);
 * VALIDATION_ERROR naming `field` (the destination) otherwise.
 */
export function transferDestinationState(
  found: { financialInstrumentId: string; status: string; associated: boolean } | null,
  sourceInstrumentId: string,
  lookup: { owner?: unknown },
  initialize: boolean | undefined,
  field: string,
): 'active' | 'open' {
  if (found && found.financialInstrumentId !== sourceInstrumentId) throw validationError(field, 'both positions must hold the same instrument');
  if (found?.status === 'ACTIVE') return 'active';
  if (!initialize)
    throw validationError(field, `the destination position is ${found?.status}; set initializeDestinationPositionIfNeeded to open it in the same transfer`);
  if (found && !found.associated) throw validationError(field, 'an inactive explicit position cannot be reopened by a transfer; use Initialize Position');
  if (!found && !lookup.owner)
    throw validationError(`${field}.owner`, 'initializeDestinationPositionIfNeeded needs the destination owner (and financialInstrument)');
  return 'open';
}

/** The instrument a destination's lookup names is the source's (VALIDATION_ERROR naming `field`). */
export function checkSameInstrument(namedId: string, instrumentId: string, field: string): void {
  if (namedId !== instrumentId) throw validationError(field, 'both positions must hold the same instrument');
}

/** A transfer moves between two positions (VALIDATION_ERROR naming its destination). */
export function checkDistinctEnds(sourceId: string, destinationId: string, p: string): void {
  if (sourceId === destinationId) throw validationError(`${p}.destination`, 'the destination is the source');
}

/** A transfer hook's extra accounts: resolvable, and the service signs none of them (VALIDATION_ERROR naming `field`). */
export function checkHookAccounts(metas: TransferHookAccountMeta[] | { unresolvable: string }, field: string): TransferHookAccountMeta[] {
  if ('unresolvable' in metas) throw validationError(field, `the transfer hook's accounts cannot be resolved: ${metas.unresolvable}`);
  const signer = metas.find((m) => m.role.endsWith('_signer'));
  if (signer) throw validationError(field, `the transfer hook asks for a signature of ${signer.address}, which the service does not give`);
  return metas;
}

/**
 * Freeze and unfreeze options work only for Token-2022 instruments with a freeze authority
 * (FREEZE_AUTHORITY_NOT_FOUND naming the first option set, spec 4.3 and its trade rule 2); returns the
 * freeze authority when an option is set, null when none is.
 */
export function freezeOptionAuthority<A>(
  instrument: { version: string; mintAddress: string; freezeAuthority: A | null | undefined },
  options: readonly [field: string, on: boolean | undefined][],
): A | null {
  const set = options.find(([, on]) => on);
  if (!set) return null;
  if (instrument.version !== 'TOKEN_2022' || !instrument.freezeAuthority) {
    throw new LedgerError(
      'FREEZE_AUTHORITY_NOT_FOUND',
      `${instrument.mintAddress}: freeze and unfreeze are supported only for TOKEN_2022 instruments with a freeze authority`,
      set[0],
    );
  }
  return instrument.freezeAuthority;
}

/** Each operation of a trade holds exactly one movement: its kind, in order (VALIDATION_ERROR naming the operation, or the empty list). */
export function tradeKinds(operations: readonly Partial<Record<'mint' | 'burn' | 'transfer', unknown>>[]): ('mint' | 'burn' | 'transfer')[] {
  if (operations.length === 0) throw validationError('itemData.operations', 'a trade needs at least one operation');
  return operations.map((operation, i) => {
    const p = `itemData.operations[${i}]`;
    const kinds = (['mint', 'burn', 'transfer'] as const).filter((kind) => operation[kind] !== undefined);
    if (kinds.length !== 1) throw validationError(p, `${p} holds exactly one of mint, burn or transfer`);
    return kinds[0];
  });
}

/**
 * A movement's rules on the request alone (the registry's validate, run before any lookup): value or
 * the entire balance (one of them), a value no instrument's decimals could make right or that moves
 * nothing. The same rules run again with the instrument's decimals in amountToMove.
 */
function validateAmount(value: ValueInput | undefined, entire: { on: boolean | undefined; name: string; verb: string } | undefined, p: string): void {
  if (entire && !value === !entire.on) throw validationError(`${p}.value`, `give value or ${entire.name} (one of them)`);
  if (value && checkValueAlone(value, `${p}.value`).zero)
    throw validationError(`${p}.value`, entire ? `there is nothing to ${entire.verb}` : 'the amount must be more than zero');
}

export function validateMint(item: MintOperation, p = 'itemData'): void {
  validateAmount(item.value, undefined, p);
}

export function validateBurn(item: BurnOperation, p = 'itemData'): void {
  validateAmount(item.value, { on: item.burnEntireBalance, name: 'burnEntireBalance', verb: 'burn' }, p);
}

export function validateTransfer(item: TransferOperation, p = 'itemData'): void {
  validateAmount(item.value, { on: item.transferEntireBalance, name: 'transferEntireBalance', verb: 'transfer' }, p);
}

/** A trade's rules on the request alone: one movement in each operation, each movement's own. */
export function validateTrade(item: TradeItemData): void {
  tradeKinds(item.operations).forEach((kind, i) => {
    const p = `itemData.operations[${i}].${kind}`;
    const operation = item.operations[i];
    if (kind === 'mint') validateMint(operation.mint!, p);
    else if (kind === 'burn') validateBurn(operation.burn!, p);
    else validateTransfer(operation.transfer!, p);
  });
}
