/** What Refresh and Update Oracle Data Source write onchain alike: changed metadata fields of the feed's mint, under its authority. */
import type { MetadataFieldChange } from '../../../domain/operations/financial-instruments/update-financial-instrument.rules';
import { planFeedWrite } from '../../../domain/operations/oracle-data-sources/oracle-data-source.rules';

export interface FeedWriteData {
  dataSourceId: string;
  mint: string;
  authority: string;
  extensions: string[];
  topUp: string;
  fields: MetadataFieldChange[];
  /** Update only: the authority that takes over the metadata and the mint. */
  newAuthority?: { address: string; accountId: string } | null;
}

/** The feed write's instructions, paid by the resolved fee payer; pure, so every retry builds the same ones. */
export function feedWriteInstructions(_request: unknown, resolved: { feePayer: string; data: FeedWriteData }) {
  const { mint, authority, extensions, topUp, fields, newAuthority } = resolved.data;
  return planFeedWrite({ feePayer: resolved.feePayer, mint, authority, extensions, topUp, fields, newAuthority });
}
