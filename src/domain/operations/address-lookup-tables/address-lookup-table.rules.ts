/**
 * Address lookup tables (spec 2.9, docs/address-lookup-tables.md): how many addresses a table and each network
 * transaction hold, the table's flags as the network has them, and the rules of Extend and Update,
 * checked before anything is signed. Pure: the lookup step reads the table and the SlotHashes sysvar.
 */
import { conflict, validationError } from '../../errors';
import type { CreateAccountItemData } from '../accounts/account.inputs';
import { checkPayloadFields, type PayloadFieldRules } from '../accounts/account-payload.rules';

/** The network's limit of addresses in one table. */
export const MAX_TABLE_ADDRESSES = 256;
/**
 * Addresses appended by the creating transaction (beside create: fee payer, authority, table, two
 * programs, compute budget) and by each extending one; 32 bytes each, both well under 1232 bytes
 * (test/unit/address-lookup-table.operation.test.ts measures the worst case).
 */
export const CREATE_BATCH = 20;
export const EXTEND_BATCH = 22;
/** A deactivated table may be closed once its deactivation slot left SlotHashes (512 slots): about 513 slots, some 3.5 minutes on a public cluster. */
export const COOL_DOWN_SLOTS = 513;

/** A table as the network holds it (the program's account, decoded). */
export interface TableState {
  /** null: frozen (the authority was removed for good). */
  authority: string | null;
  /** null: never deactivated. */
  deactivationSlot: bigint | null;
  lastExtendedSlot: bigint;
  lastExtendedSlotStartIndex: number;
  addresses: string[];
}

export interface TableFlags {
  frozen: boolean;
  deactivated: boolean;
  closed: boolean;
}

/**
 * The record's flags from the chain: frozen = no authority, deactivated = a deactivation slot, closed
 * = the account is gone (which the network allows only to a deactivated, never frozen table).
 */
export function tableFlags(state: TableState | null): TableFlags {
  if (!state) return { frozen: false, deactivated: true, closed: true };
  return { frozen: state.authority === null, deactivated: state.deactivationSlot !== null, closed: false };
}

/**
 * The addresses a transaction landing after `slot` may load: the network refuses those appended in
 * the slot a transaction lands in, so an extension of the current slot is left out.
 */
export function usableAddresses(state: TableState, slot: bigint): string[] {
  if (state.deactivationSlot !== null) return [];
  return state.lastExtendedSlot >= slot ? state.addresses.slice(0, state.lastExtendedSlotStartIndex) : state.addresses;
}

/** The slots the SlotHashes sysvar lists (its account data: a u64 count, then slot u64 and hash 32 bytes each). */
export function slotHashSlots(data: Uint8Array): bigint[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 8) return [];
  const count = Number(view.getBigUint64(0, true));
  const slots: bigint[] = [];
  for (let i = 0; i < count && 8 + i * 40 + 8 <= data.length; i++) slots.push(view.getBigUint64(8 + i * 40, true));
  return slots;
}

/** The network's rule for close: the deactivation slot is in the past and no longer in SlotHashes. */
export function coolDownOver(deactivationSlot: bigint, slotHashes: bigint[]): boolean {
  const newest = slotHashes.reduce((max, s) => (s > max ? s : max), -1n);
  return deactivationSlot <= newest && !slotHashes.includes(deactivationSlot);
}

/** How many network transactions create a table holding `count` addresses (create + first batch, then extends). */
export const createTransactionCount = (count: number) => (count <= CREATE_BATCH ? 1 : 1 + Math.ceil((count - CREATE_BATCH) / EXTEND_BATCH));

/** The addresses a creating write appends in transaction `part`. */
export const createBatch = <A>(addresses: readonly A[], part: number): A[] =>
  part === 0 ? addresses.slice(0, CREATE_BATCH) : addresses.slice(CREATE_BATCH + (part - 1) * EXTEND_BATCH, CREATE_BATCH + part * EXTEND_BATCH);

export const extendTransactionCount = (count: number) => Math.ceil(count / EXTEND_BATCH);
export const extendBatch = <A>(addresses: readonly A[], part: number): A[] => addresses.slice(part * EXTEND_BATCH, (part + 1) * EXTEND_BATCH);

/** Component addresses in order, each once: a repeat is VALIDATION_ERROR naming its entry. */
export function checkDistinct(addresses: readonly string[], field: string): void {
  const seen = new Map<string, number>();
  addresses.forEach((a, i) => {
    const first = seen.get(a);
    if (first !== undefined) throw validationError(`${field}.${i}`, `${a} is listed twice (also at ${field}.${first})`);
    seen.set(a, i);
  });
}

/** A table's capacity: at most MAX_TABLE_ADDRESSES in all. */
export function checkCapacity(existing: number, adding: number, field: string): void {
  if (existing + adding > MAX_TABLE_ADDRESSES) {
    throw validationError(field, `a table holds at most ${MAX_TABLE_ADDRESSES} addresses; it has ${existing} and ${adding} would be added`);
  }
}

/** Extend: only a table that is not frozen, deactivated or closed (the network would refuse it after signing). */
export function checkExtendable(flags: TableFlags, field: string): void {
  if (flags.closed) throw validationError(field, 'the table is closed');
  if (flags.frozen) throw validationError(field, 'the table is frozen: its addresses can no longer change');
  if (flags.deactivated) throw validationError(field, 'the table is deactivated: it can no longer be extended');
}

export interface UpdateRequest {
  freeze?: true;
  deactivate?: true;
  close?: true;
  refundDestination?: unknown;
}

/** Update's rules on the request alone: one change at a time, refundDestination only with close. */
export function validateUpdateAddressLookupTable(item: UpdateRequest): void {
  const asked = (['freeze', 'deactivate', 'close'] as const).filter((f) => item[f]);
  if (asked.length === 0) throw validationError('itemData', 'send one of freeze, deactivate or close');
  if (asked.length > 1)
    throw validationError(
      `itemData.${asked[1]}`,
      `send one of freeze, deactivate or close per request (a frozen table cannot be deactivated, a deactivated one cannot be frozen, and close waits for the deactivation to cool down)`,
    );
  if (item.refundDestination && !item.close) throw validationError('itemData.refundDestination', 'refundDestination goes with close');
}

/** Update against the table's state: what the network would refuse, refused before signing. */
export function checkUpdate(item: UpdateRequest, state: TableState | null, cooledDown: boolean, field: string): void {
  const flags = tableFlags(state);
  if (flags.closed) throw validationError(field, 'the table is closed');
  if (item.freeze) {
    if (flags.frozen) throw validationError('itemData.freeze', 'the table is already frozen');
    if (flags.deactivated) throw validationError('itemData.freeze', 'a deactivated table cannot be frozen');
    if (state!.addresses.length === 0) throw validationError('itemData.freeze', 'an empty table cannot be frozen');
  }
  if (item.deactivate) {
    if (flags.deactivated) throw validationError('itemData.deactivate', 'the table is already deactivated');
    if (flags.frozen) throw validationError('itemData.deactivate', 'a frozen table cannot be deactivated');
  }
  if (item.close) {
    if (flags.frozen) throw validationError('itemData.close', 'a frozen table cannot be closed');
    if (!flags.deactivated)
      throw validationError('itemData.close', 'deactivate the table first; it can be closed once the deactivation has cooled down (about 513 slots)');
    if (!cooledDown)
      throw validationError(
        'itemData.close',
        `the deactivation has not cooled down yet: the table can be closed once slot ${state!.deactivationSlot} has left the network's SlotHashes (about ${COOL_DOWN_SLOTS} slots after it)`,
      );
  }
}

/** Create's payload: onchainId and alreadyOnchain go together (a new table's address is derived). VALIDATION_ERROR naming onchainId. */
export function checkOnboarding(payload: { alreadyOnchain?: boolean; onchainId?: string }): void {
  const field = 'itemData.addressLookupTable.onchainId';
  if (payload.onchainId && !payload.alreadyOnchain)
    throw validationError(field, "a new table's address is derived from its authority and a recent slot; onchainId goes with alreadyOnchain");
  if (payload.alreadyOnchain && !payload.onchainId) throw validationError(field, 'onchainId names the existing table to onboard');
}

const noKey = 'a table has no key of its own (its address is derived from its authority and a slot); the authority signs';
const notKept = "the table's record keeps offchainReferences code and name, and comments";
const signsNothing = 'a table signs nothing: put webhooks on the fee payer or the authority';
/**
 * What the payload's fields (spec 2.3) do to a table (docs/address-lookup-tables.md): code, name and
 * comments label it, alreadyOnchain and onchainId onboard one, `managed` says whether the service
 * holds the authority's key; the rest is refused, each a 400 naming `itemData.addressLookupTable.<field>`.
 */
const tableFields: PayloadFieldRules = {
  privateKeyDetails: noKey,
  orgsAllowedToSignWithPrivateKey: noKey,
  dataLength: "a table's size follows from the addresses it holds",
  seed: 'the fee payer pays the table exactly its rent',
  tokenVersion: 'a table is not a token account',
  isDerived: notKept,
  isGenesis: notKept,
  domain: notKept,
  subscribeToNetworkEvents: notKept,
  shareAcrossTenants: "a table is the organization's own: it compresses only its transactions",
  skipBlockchainExistenceVerification: 'an onboarded table is always read from the chain, and a new one is created by this request',
  canPayFees: 'a table cannot pay fees',
  globalFeePayerForOrgs: 'a table cannot pay fees',
  networkCurrencyDebitLimits: 'nothing is debited from a table',
  tokenDebitLimits: 'nothing is debited from a table',
  networkCurrencyDebitApiKeys: 'nothing is debited from a table',
  tokenDebitApiKeys: 'nothing is debited from a table',
  missingSignatureWebhooks: signsNothing,
  preTransactionSubmitWebhooks: signsNothing,
  postTransactionSubmitWebhooks: signsNothing,
};

/** Create's rules on the request alone; VALIDATION_ERROR naming the field. */
export function validateCreateAddressLookupTable(item: { addressLookupTable: CreateAccountItemData }): void {
  const payload = item.addressLookupTable;
  const f = 'itemData.addressLookupTable';
  checkPayloadFields(payload, tableFields, f);
  checkOnboarding(payload);
  const refs = payload.offchainReferences ?? {};
  if (refs.type !== undefined && refs.type !== 'ADDRESS_LOOKUP_TABLE')
    throw validationError(`${f}.offchainReferences.type`, `a table's offchain reference type is ADDRESS_LOOKUP_TABLE, not ${refs.type}`);
  for (const label of ['alId', 'newAlId', 'accountNumber', 'organizationExternalId'] as const) {
    if (refs[label] !== undefined) throw validationError(`${f}.offchainReferences.${label}`, `${f}.offchainReferences.${label} is not accepted: ${notKept}`);
  }
  if (payload.managed === false && !payload.alreadyOnchain)
    throw validationError(`${f}.managed`, "a new table's authority signs its creation: a managed account, so the table is managed");
}

/** An onboarded table is managed when the service holds its authority's key: a `managed` saying otherwise is VALIDATION_ERROR naming it. */
export function checkTableManaged(asked: boolean | undefined, authorityManaged: boolean): void {
  if (asked !== undefined && asked !== authorityManaged)
    throw validationError(
      'itemData.addressLookupTable.managed',
      `the table's authority is ${authorityManaged ? '' : 'not '}a managed account, so the table is ${authorityManaged ? '' : 'not '}managed`,
    );
}

/** A table onboarded once: one already on record is CONFLICT naming `field`. */
export function checkNotOnRecord(onRecord: boolean, onchainId: string, field: string): void {
  if (onRecord) throw conflict(field, `address lookup table ${onchainId} is already on record`);
}

/** The network holds a table at `onchainId`: no account, or another program's, is VALIDATION_ERROR naming `field`. */
export function requireTable(state: TableState | null | { notATable: string }, onchainId: string, cluster: string, field: string): asserts state is TableState {
  if (!state) throw validationError(field, `no address lookup table at ${onchainId} on ${cluster}`);
  if ('notATable' in state) throw validationError(field, state.notATable);
}

/**
 * An existing table onboarded as the network holds it: it exists, its authority (unless frozen) is
 * the one named, and it holds every component named. VALIDATION_ERROR naming the field at fault.
 */
export function checkOnboardedTable(
  state: TableState | null | { notATable: string },
  onchainId: string,
  cluster: string,
  authority: string,
  components: readonly { address: string }[],
  field: string,
): TableState {
  requireTable(state, onchainId, cluster, field);
  if (state.authority !== null && state.authority !== authority) throw validationError('itemData.authority', `the table's authority is ${state.authority}`);
  const missing = components.findIndex((c) => !state.addresses.includes(c.address));
  if (missing >= 0)
    throw validationError(`itemData.componentAddresses.${missing}`, `${components[missing].address} is not in the table; onboard the table, then extend it`);
  return state;
}

/** A new table needs an address no other table took: none among the recent slots is CONFLICT naming the authority. */
export function requireFreeSlot<S>(found: S | undefined): S {
  if (!found) throw conflict('itemData.authority', 'every recent slot already gave this authority a table; try again in a moment');
  return found;
}

/** Extend appends the components the table does not hold yet: none is VALIDATION_ERROR naming componentAddresses. */
export function componentsToAppend<C extends { address: string }>(components: readonly C[], inTable: readonly string[]): C[] {
  const added = components.filter((c) => !inTable.includes(c.address));
  if (added.length === 0) throw validationError('itemData.componentAddresses', 'every address is already in the table');
  return added;
}

/** What Create's lookup resolved that the table's record holds. */
export interface NewTable {
  tableId: string;
  address: string;
  /** null: onboarded (no creating transaction). */
  recentSlot: string | null;
  authority: string;
  /** null: the authority has no account record (a table onboarded with Create Account). */
  authorityAccountId: string | null;
  managed: boolean;
}

/**
 * The record of a new table, without addresses (each landed transaction appends its own): its
 * labels from the request, created by `creationTransactionId` at `at` (null: not landed yet).
 */
export function newTableRecord(
  table: NewTable,
  scope: { organizationId: string; cluster: string },
  payload: { offchainReferences?: { code?: string; name?: string }; comments?: string },
  creation: { transactionId: string | null; at: Date } | null,
) {
  return {
    id: table.tableId,
    organizationId: scope.organizationId,
    cluster: scope.cluster,
    address: table.address,
    authorityAddress: table.authority,
    authorityAccountId: table.authorityAccountId,
    managed: table.managed,
    componentAddresses: [] as string[],
    componentAccountIds: [] as string[],
    wasOnchainAlready: table.recentSlot === null,
    frozen: false,
    deactivated: false,
    closed: false,
    code: payload.offchainReferences?.code ?? null,
    name: payload.offchainReferences?.name ?? null,
    comments: payload.comments ?? null,
    creationTransactionId: creation?.transactionId ?? null,
    creationTransactionAt: creation?.at ?? null,
  };
}
