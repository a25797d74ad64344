/**
 * The SVM port: everything the service asks of a network. The JSON-RPC adapter
 * (json-rpc-network.ts) is the one implementation, used against every cluster and the local node.
 */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface Blockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

export interface SignatureStatus {
  slot: bigint;
  confirmationStatus: Commitment | null;
  confirmations: number | null;
  /** The transaction error in the network's JSON form, null when it succeeded. */
  err: unknown;
}

export interface LandedTransaction {
  slot: bigint;
  blockTime: Date | null;
  fee: bigint;
  /** Compute units the transaction consumed (meta computeUnitsConsumed), null when the network does not say. */
  computeUnitsConsumed: bigint | null;
  /** Lamports of every account the transaction loaded, before and after it. */
  balances: { address: string; pre: bigint; post: bigint }[];
  /** Base units of every token account the transaction loaded, before and after it (0 where it did not exist). */
  tokenBalances: { address: string; pre: bigint; post: bigint }[];
}

/** One transaction of a block as the chain follower reads it (src/follower). */
export interface BlockTransaction {
  signature: string;
  /** The transaction error in the network's JSON form, null when it succeeded. */
  err: unknown;
  fee: bigint;
  /** Static keys, then the lookup tables' writable and readonly addresses (the meta's order). */
  accountKeys: string[];
  /** The addresses that signed it: the message's first `numRequiredSignatures` account keys, fee payer first. */
  signers: string[];
  balances: { address: string; pre: bigint; post: bigint }[];
  /** Token accounts the transaction loaded, with their mint and owner (0 where it did not exist). */
  tokenBalances: { address: string; mint: string; owner: string | null; pre: bigint; post: bigint }[];
}

export interface Block {
  slot: bigint;
  blockTime: Date | null;
  transactions: BlockTransaction[];
}

/** One entry of an address's transaction history (getSignaturesForAddress). */
export interface AddressSignature {
  signature: string;
  slot: bigint;
  blockTime: Date | null;
  /** The transaction error in the network's JSON form, null when it succeeded. */
  err: unknown;
}

/** The network refused a transaction for good (preflight or signature failure): retrying the same bytes cannot help. */
export class TransactionRejectedError extends Error {
  override readonly name = 'TransactionRejectedError';
  constructor(
    message: string,
    readonly err: unknown,
    readonly logs: string[] = [],
  ) {
    super(message);
  }
}

export interface SvmNetwork {
  readonly cluster: string;
  getLatestBlockhash(commitment?: Commitment): Promise<Blockhash>;
  getBlockHeight(commitment?: Commitment): Promise<bigint>;
  /** Sends signed wire bytes (base64). Idempotent: a repeat of already-processed bytes returns the signature. */
  sendTransaction(wireTransactionBase64: string, signature: string): Promise<void>;
  getSignatureStatus(signature: string): Promise<SignatureStatus | null>;
  /** Statuses of up to 256 signatures in one call (searching the whole history), in order; null where the network knows none. */
  getSignatureStatuses(signatures: string[]): Promise<(SignatureStatus | null)[]>;
  getTransaction(signature: string, commitment?: Commitment): Promise<LandedTransaction | null>;
  getBalance(address: string, commitment?: Commitment): Promise<bigint>;
  accountExists(address: string): Promise<boolean>;
  /** An account's owner program, lamports and data, or null when it does not exist. */
  getAccount(address: string): Promise<{ owner: string; lamports: bigint; data: Uint8Array } | null>;
  getMinimumBalanceForRentExemption(dataLength: number): Promise<bigint>;
  /**
   * Up to 100 accounts in one read at `confirmed` (reconciliation): the read's context slot, and each
   * account's owner program, lamports and data in the order asked (null where no account exists).
   */
  getMultipleAccounts(addresses: string[]): Promise<{ slot: bigint; accounts: ({ owner: string; lamports: bigint; data: Uint8Array } | null)[] }>;
  /** An address's transactions at `confirmed`, newest first: up to `limit` (at most 1000), older than `before` when given. */
  getSignaturesForAddress(address: string, options?: { before?: string; limit?: number }): Promise<AddressSignature[]>;
  requestAirdrop(address: string, lamports: bigint): Promise<string>;
  /**
   * Simulates a message (wire bytes, signatures may be empty) on the latest `confirmed` state, with
   * the blockhash replaced and no signature check: the units it consumed and its error (null: it succeeded).
   */
  simulateTransaction(wireTransactionBase64: string): Promise<{ unitsConsumed: bigint | null; err: unknown }>;
  /** Recent prioritization fees (micro-lamports per compute unit) paid for writes to these accounts. */
  getRecentPrioritizationFees(addresses: string[]): Promise<bigint[]>;
  /** The newest slot at a commitment. */
  getSlot(commitment?: Commitment): Promise<bigint>;
  /** The slots from `start` to `end` (inclusive) that hold a block, at `confirmed` (skipped slots are left out). */
  getBlocks(start: bigint, end: bigint): Promise<bigint[]>;
  /** A block's transactions in full (json, versions up to 0) at `confirmed`, null when the slot was skipped. */
  getBlock(slot: bigint): Promise<Block | null>;
}

/** The networks by `svmCluster` name, with the default used when a request names none. */
export interface Networks {
  readonly defaultCluster: string;
  readonly names: string[];
  get(cluster: string): SvmNetwork | undefined;
}

export function createNetworks(networks: SvmNetwork[], defaultCluster?: string): Networks {
  const byName = new Map(networks.map((n) => [n.cluster, n]));
  const fallback = defaultCluster ?? networks[0]?.cluster;
  if (!fallback || !byName.has(fallback)) throw new Error(`default cluster "${fallback}" is not configured`);
  return { defaultCluster: fallback, names: [...byName.keys()], get: (name) => byName.get(name) };
}
