/**
 * Whose webhooks hear about a write (docs/webhooks.md "Whose webhooks", docs/tenancy.md): the writing
 * organization's own accounts, and the owner of another organization's account that signs the
 * transaction or pays its fees when that account is shared with the writer. Pure.
 */
/** What the rule reads of an account record. */
export interface RecipientRecord {
  organizationId: string;
  sharedAcrossTenants: boolean;
  orgsAllowedToSignWithPrivateKey: readonly string[];
  globalFeePayerForOrgs: readonly string[];
}

export interface Writer {
  organizationId: string;
  organizationExternalId: string;
}

/**
 * Whether a record's own webhooks are called for a write of `writer` that the record's address signs
 * (fee payer included): the writer's record, or another organization's that the writer could use
 * through a sharing rule (sharedAcrossTenants, orgsAllowedToSignWithPrivateKey or
 * globalFeePayerForOrgs naming it). Another organization's record of the same public address that
 * shares nothing with the writer hears nothing: the write is none of its owner's business.
 */
export function hearsWrite(record: RecipientRecord, writer: Writer): boolean {
  return (
    record.organizationId === writer.organizationId ||
    record.sharedAcrossTenants ||
    record.orgsAllowedToSignWithPrivateKey.includes(writer.organizationExternalId) ||
    record.globalFeePayerForOrgs.includes(writer.organizationExternalId)
  );
}
