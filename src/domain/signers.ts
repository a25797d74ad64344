/**
 * Who signs a write's message (docs/signatures.md, "Who signs"; API.md section 10): for each signer,
 * the service with a key it holds, or someone outside through Sign Transaction while the write waits
 * in AWAITING_SIGNATURES. One rule for every signer, whatever its part (fee payer, owner or source,
 * mint, freeze, permanent-delegate, instrument, lookup-table, nonce or oracle authority): a lookup
 * of it saying `autoSign: false` is a key the service does not sign with, even when it holds it.
 */
import type { AccountLookupInput } from './inputs/common.inputs';

/** An account lookup of the request that says `autoSign: false`, and where it is. */
export interface AutoSignOff {
  field: string;
  lookup: AccountLookupInput;
}

/**
 * Every lookup in the request's itemData and svmTransactionConfig that says `autoSign: false`,
 * however deep (a position lookup's authorities, a Trade's legs); pure. Only account lookups carry
 * `autoSign` (a debit limit's `mintAuthority` refuses it), so no other object is taken for one.
 */
export function autoSignOffLookups(request: { itemData: unknown; svmTransactionConfig?: unknown }): AutoSignOff[] {
  const found: AutoSignOff[] = [];
  const visit = (value: unknown, field: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${field}[${i}]`));
    if (typeof value !== 'object' || value === null) return;
    if ((value as AccountLookupInput).autoSign === false) found.push({ field, lookup: value as AccountLookupInput });
    for (const [key, v] of Object.entries(value)) visit(v, `${field}.${key}`);
  };
  visit(request.itemData, 'itemData');
  visit(request.svmTransactionConfig, 'svmTransactionConfig');
  return found;
}

/** What the lookup step knows of one signer of the message. */
export interface SignerFacts {
  /** The write's fee payer: the handler already refused one the service may not sign with. */
  feePayer: boolean;
  /** A lookup of this signer in the request says `autoSign: false`. */
  autoSignOff: boolean;
  /** The handler awaits it for a reason only it knows (an off-platform source). */
  awaitedByHandler: boolean;
  /** Per account record of its address on the cluster: whether that record holds a key this organization may use (ACTIVE, managed, its own or shared with it). */
  usableRecords: boolean[];
}

export type SignedBy = 'SERVICE' | 'EXTERNAL';

/**
 * The service signs unless the caller said `autoSign: false`, the handler awaits it, or it is
 * onboarded and none of its records holds a key this organization may use. A signer with no record
 * is a key the write itself makes (a new account's, a new mint's); the fee payer is one the handler
 * checked (or the organization's or the service's own). Pure.
 */
export function signedBy(signer: SignerFacts): SignedBy {
  if (signer.autoSignOff || signer.awaitedByHandler) return 'EXTERNAL';
  if (signer.feePayer || signer.usableRecords.length === 0) return 'SERVICE';
  return signer.usableRecords.some(Boolean) ? 'SERVICE' : 'EXTERNAL';
}
