/**
 * The write pipeline's contract: what crosses between the API, the workflow and its activities.
 * Everything here is JSON-safe (amounts and slots as decimal strings) because it is stored in
 * Temporal's history; nothing here may ever hold a private key.
 */
// The operations are declared in ./operations/registry.ts (a type import: workflow code must not bundle the codecs).
import type { Operation } from './operations/registry';
import type { SvmTransactionConfigInput } from './inputs/common.inputs';
import type { ErrorCode } from './errors';
import { organizationSegment, type OrganizationIds } from './workflow-ids';
export type { Operation };

export const transactionStatuses = [
  /** Accepted with Prefer: respond-async, not built yet (an addition to the statuses of docs/behaviour/transactions.md). */
  'PENDING',
  'BUILT',
  'AWAITING_APPROVAL',
  'AWAITING_SIGNATURES',
  'SIGNED',
  'SUBMITTED',
  'CONFIRMED',
  'FINALIZED',
  'FAILED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface WriteRequest {
  operation: Operation;
  /** Offchain id of the transaction record this write produces. */
  transactionId: string;
  /** Offchain id for the record a create makes, chosen up front so every retry uses the same one. */
  newRecordId?: string;
  /** Offchain ids of further records a create makes, by role (e.g. the mint's account record). */
  extraRecordIds?: Record<string, string>;
  workflowId: string;
  organizationId: string;
  organizationExternalId: string;
  apiKeyId: string;
  cluster: string;
  idempotencyKey: string | null;
  /** Digest of itemData and svmTransactionConfig, for a keyed write: a reused key with another request is refused. */
  requestDigest?: string;
  commitment: Commitment;
  /** false: rest at SIGNED until Submit Transaction. */
  submit: boolean;
  /** The operation's validated itemData (secrets sealed by the API before it gets here). */
  itemData: unknown;
  /** The validated svmTransactionConfig (empty when none was sent). */
  svmTransactionConfig: SvmTransactionConfigInput;
  /**
   * How long after its start the write keeps retrying faults before anything is sent
   * (WRITE_DEADLINE_SECONDS); absent in writes started before it existed: DEFAULT_WRITE_DEADLINE_MS.
   */
  deadlineMs?: number;
}

/** WRITE_DEADLINE_SECONDS's default: a node restart or a database failover fits in it, a day-old intent does not. */
export const DEFAULT_WRITE_DEADLINE_MS = 15 * 60_000;

/**
 * The `outage` memo of a running write while a fault of a service it needs (node, database) keeps
 * it from going on before anything is sent; removed once the write goes on. A memo, not a query: the
 * server answers it from the workflow's description, with no worker needed (a query would wait for
 * the write's one workflow task to end).
 */
export interface WriteOutage {
  /** The fault, as the failing step reported it (never a secret: transport and database messages). */
  message: string;
  /** When the fault was first seen, and when the write tries again (ISO 8601). */
  since: string;
  retryAt: string;
  /** When the write gives up (nothing sent) if the fault lasts. */
  deadline: string;
}

export type DestinationClass = 'OFF_PLATFORM' | 'NON_MANAGED' | 'MANAGED';

export interface Debit {
  /** Offchain id of the debited account, when it is on the platform. */
  accountId: string | null;
  address: string;
  asset: 'NETWORK_CURRENCY' | { financialInstrumentId: string };
  /** Base units as a decimal string. */
  amount: string;
  /** What the debit is, for token limits' operationType (spec 8); absent means TRANSFER. */
  operationType?: 'TRANSFER' | 'BURN';
  /** Where the units go; null for a burn (they leave the network), which only `ANY` limits match. */
  destination: { address: string; class: DestinationClass } | null;
  /** Which of the write's network transactions moves it (default 0): held and given back with that one. */
  part?: number;
  /** The request field naming the debited account, for a refusal (debit API keys); absent: itemData. */
  field?: string;
}

/** What the lookup step found: addresses and records the later steps act on. */
export interface Resolved {
  /** false: an onboarding with nothing to send (alreadyOnchain). */
  needsTransaction: boolean;
  feePayer: string;
  /** Addresses whose signatures the transaction needs, fee payer first. */
  signers: string[];
  /**
   * Signers the service does not sign for on its own (a key it does not hold, may not use, or whose
   * lookup says `autoSign: false`): the write waits in AWAITING_SIGNATURES until Sign Transaction
   * supplies them. Absent or empty: the managed keys sign everything.
   */
  awaitedSigners?: string[];
  debits: Debit[];
  /** Whether any involved account has pre-/post-submit webhooks (skips those steps otherwise). */
  webhooks: { preSubmit: boolean; postSubmit: boolean };
  /** An address this write creates the record of: reserved from build on, so a concurrent create of it is a 409. */
  reservesAddress?: string;
  /** How many network transactions the write needs, built and recorded in turn (default 1). */
  transactionCount?: number;
  /**
   * Set by a replayed lookup: the write's record already holds a signed (possibly sent) message or its
   * offchain outcome, so this is the resolution that message was built from; limits were held and
   * webhooks asked by the earlier attempt.
   */
  resumed?: boolean;
  /**
   * Set by lookup when the write has no record yet: `prepare` hands it to build (which then inserts
   * without reading the record again) and leaves it out of its result, so it is never in a history.
   */
  recordAbsent?: boolean;
  /** Operation-specific resolution (e.g. the new account's address), typed by the operation's handler; JSON-safe. */
  data: unknown;
}

/** A message's lifetime as the transaction record keeps it (see src/network/lifetime.ts). */
export type MessageLifetime =
  | { kind: 'BLOCKHASH'; blockhash: string; lastValidBlockHeight: string }
  /**
   * A reserved durable nonce account (svmTransactionConfig.messageLifetimeStrategy DURABLE_NONCE):
   * the message's nonce value, the account holding it, its authority (a signer of the message), and
   * the transaction record holding the reservation.
   */
  | { kind: 'DURABLE_NONCE'; nonceAccount: string; nonceAuthority: string; nonce: string; reservedBy: string };

export interface BuiltTransaction {
  messageBase64: string;
  signers: string[];
  lifetime: MessageLifetime;
  size: number;
  /** The write's earlier, possibly sent message, reused because its lifetime is not proven over. */
  reused?: boolean;
}

export interface SignedTransaction {
  /** The fee payer's signature (the write's onchain id); null only while the fee payer's own signature is awaited (`autoSign: false`). */
  signature: string | null;
  wireBase64: string;
  /** Signers whose signatures the message still lacks (the write waits for Sign Transaction); absent when fully signed. */
  missing?: string[];
}

/** The signature (onchain id) of a message ready for the network: every signer, the fee payer first, has signed (deliver runs only then). */
export function sentSignature(signed: SignedTransaction): string {
  if (!signed.signature) throw new Error('the fee payer has not signed this message yet: it cannot be sent');
  return signed.signature;
}

/** A signature Sign Transaction supplies: the signer's address and its ed25519 signature of the message, base58. */
export interface SuppliedSignature {
  signer: string;
  signature: string;
}

export type Outcome =
  | { status: 'CONFIRMED' | 'FINALIZED'; slot: string; confirmations: number | null }
  /** Landed at `processed`, the commitment the caller asked for. */
  | { status: 'SUBMITTED'; slot: string; confirmations: number | null }
  | { status: 'FAILED'; errorMessage: string; slot?: string }
  | { status: 'EXPIRED' }
  | { status: 'SIGNED' };

/** The spec's transaction result (2.2), JSON-safe. */
export interface TransactionResult {
  success: boolean;
  offchainId: string;
  status: TransactionStatus;
  onchainId: string | null;
  confirmationsCount: number | null;
  serializedMessage: string | null;
  errorMessage: string | null;
  txnTimestamp: string | null;
}

export interface WriteResult {
  /** The write's transaction (the last one sent, for a write of several). */
  transaction: TransactionResult | null;
  /** Every network transaction of a write that needs several, in order. */
  transactions?: TransactionResult[];
  /** The record the write created, for creates. */
  created?: { onchainId: string; offchainId: string };
  /**
   * The write was refused (a rule, a limit, a rejection: the answer, not a fault): the workflow
   * completed with it and the API answers it as the error it is (docs/write-engine.md, "Refusals").
   */
  refusal?: Refusal;
}

/** A business refusal as a completed write carries it: the error's stable code, its message and the request field at fault. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  field: string | null;
  context: Record<string, unknown>;
}

/**
 * The `LedgerStatus` search attribute every write ends with: its transaction's status, FINALIZED for
 * a write recorded offchain only, or REFUSED for a business refusal (its record is FAILED).
 */
export type LedgerStatus = TransactionStatus | 'REFUSED';

/** Names of the updates that continue or end a waiting write's own workflow (docs/signatures.md). */
export const writeUpdates = { sign: 'sign', submit: 'submit', cancel: 'cancel' } as const;
/** The write's query answering whether a Cancel was taken (the write ends CANCELLED). */
export const cancellingQueryName = 'cancelling';
/** The memo key of a running write's WriteOutage. */
export const writeOutageMemo = 'outage';
/** The signal Approve/Reject send once an approval is settled (APPROVED or REJECTED). */
export const approvalDecidedSignal = 'approvalDecided';

/**
 * Readable workflow ids from business keys, `<operation>-<organization's external id>-<key>` (e.g.
 * `transfer_network_currency-acme-7f3a…`): the same key never starts a second run. Neither the
 * operation (`_` between its words) nor the escaped organization holds a `-`, so the first two `-`
 * delimit them and no two organizations or operations share an id. Writes started before this
 * release keep `<operation with ->-<internal id>-<key>` (their records hold it).
 */
export function writeWorkflowId(operation: Operation, organization: OrganizationIds, key: string): string {
  return `${operation.toLowerCase()}-${organizationSegment(organization)}-${key}`;
}

export const searchAttributeNames = {
  organization: 'LedgerOrganization',
  operation: 'LedgerOperation',
  transaction: 'LedgerTransactionOffchainId',
  signature: 'LedgerSignature',
  status: 'LedgerStatus',
} as const;

/** The signers of a transaction, each once, in the order first named (the fee payer first). */
export const signerSet = (...signers: (string | readonly string[])[]): string[] => [...new Set(signers.flat())];
