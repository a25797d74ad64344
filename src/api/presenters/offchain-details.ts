/** The offchain details an onchain object's record keeps beside its id, as the API shows them (null where unset). */
export interface RecordDetails {
  code?: string | null;
  name?: string | null;
  comments?: string | null;
  lastTransactionId?: string | null;
  creationTransactionId?: string | null;
}

/** What its owner wrote on the record (code, name, comments) and the writes that created and last changed it. */
export function offchainDetails(record: RecordDetails) {
  return {
    code: record.code ?? null,
    name: record.name ?? null,
    comments: record.comments ?? null,
    lastTransactionId: record.lastTransactionId ?? null,
    creationTransactionId: record.creationTransactionId ?? null,
  };
}
