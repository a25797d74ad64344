/** What a data source's schedule starts (JSON-safe: it is the scheduled workflow's argument). */
export interface RefreshTarget {
  dataSourceId: string;
  organizationId: string;
  organizationExternalId: string;
  /** The API key whose write created the data source: scheduled refreshes are written in its name. */
  apiKeyId: string;
  cluster: string;
}

/** One Temporal Schedule per data source, by a readable id (find it in the Web UI's Schedules). */
export const refreshScheduleId = (dataSourceId: string): string => `oracle-refresh-${dataSourceId}`;

/** The workflow a schedule starts: one Refresh Oracle Data Source write. */
export const scheduledRefreshWorkflow = 'scheduledOracleRefresh';
