/**
 * The rules of the token movements of spec 4.3 (mint, burn, transfer), as legs of one network
 * transaction: what each leg is (JSON-safe: it lives in workflow history), how a trade's legs see
 * the balances and frozen states the earlier ones leave, the freeze options, and where a freeze
 * goes. Pure: the lookup step supplies the positions and the balances the chain holds.
 */
import { LedgerError, validationError } from '../../errors';
import { fromBaseUnits, resolveValue, type ValueInput } from '../../money';

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
export function freezeOption(defaults: TradeDefaults, item: Partial<Record<FreezeOption, boolean>>, p: string, name: FreezeOption): [field: string, on: boolean | undefined] {
  const own = item[name];
  const kind = name.startsWith('unfreeze') ? 'unfreeze' : 'freeze';
  return own !== undefined ? [`${p}.${name}`, own] : [`itemData.${kind}`, defaults[kind]];
}

/** A frozen position moves only when the request thaws it in the same transaction (`option` is the field path of the unfreeze flag). Throws POSITION_FROZEN naming `field`. */
export function requireUnfrozen(position: { frozen: boolean; address: string }, unfreeze: boolean | undefined, option: string, field: string): void {
  if (position.frozen && !unfreeze) throw new LedgerError('POSITION_FROZEN', `the position ${position.address} is frozen; set ${option} to thaw it in the same transaction`, field);
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
    throw new LedgerError('INSUFFICIENT_BALANCE', `the position ${position.address} holds ${fromBaseUnits(available, decimals)}; ${fromBaseUnits(amount, decimals)} cannot be ${verb === 'burn' ? 'burned' : 'transferred'}`, `${p}.value`);
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
export const frozenAfter = (leg: Leg, account: string) => (frozen: boolean) => (leg.freeze.includes(account) ? true : leg.thaw.includes(account) ? false : frozen);
