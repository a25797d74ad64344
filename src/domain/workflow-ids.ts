/**
 * The organization's part of a workflow id (docs/write-engine.md, "Workflow ids"): its external id,
 * the name operators and clients know it by, escaped so that ids stay unambiguous. Pure: workflow
 * code derives child ids with it.
 */

/** An organization as workflow ids name it: the external id, and the internal id for an external id too long to use. */
export interface OrganizationIds {
  id: string;
  externalId: string;
}

/** Longest escaped external id used as it is; a longer one would crowd Temporal's 1,000-byte id limit. */
const MAX_SEGMENT_LENGTH = 100;

/**
 * The external id made safe and unambiguous in an id: `-` (the separator of an id's parts) becomes
 * `_`, and every other character but `A–Z a–z 0–9 .` is percent-encoded (UTF-8; `_` as `%5F`). The
 * segment never holds a `-`, and different external ids give different segments, so two
 * organizations never share a workflow id (`acme` + key `x-1` and `acme-x` + key `1` stay apart).
 * External ids are free text (the CLI takes any string); one whose segment is longer than
 * MAX_SEGMENT_LENGTH is named by `~` and its internal id without dashes (`~` never appears in an
 * escaped external id). Same input, same segment; never throws.
 */
export function organizationSegment(organization: OrganizationIds): string {
  const escaped = encodeURIComponent(organization.externalId)
    .replace(/[^A-Za-z0-9.%-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .replace(/-/g, '_');
  return escaped.length <= MAX_SEGMENT_LENGTH ? escaped : `~${organization.id.replace(/-/g, '')}`;
}
