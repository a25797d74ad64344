/**
 * Running a data source's job inside a write's lookup: the value and the slot it was read at
 * become part of the write's resolution, which the transaction record keeps with the signed
 * message before anything is sent, so a replayed write sends that same value, once (docs/oracle-data-sources.md).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OracleDataSource } from '../../db/entities';
import { LedgerError } from '../../domain/errors';
import { formatDecimal, placesOf } from '../../domain/exact-decimal';
import { JobFailure, parseJobDefinition, runJobDefinition, type JobDefinition } from '../../domain/oracle-job';
import type { FeedValue } from '../../domain/operations/oracle-data-sources/oracle-data-source.rules';
import type { SvmNetwork } from '../../network/svm-network';
import type { ActivityDeps } from '../deps';
import { readSlotHashes } from '../../network/lookup-tables';
import { createHttpGet, noOracleHosts } from './http-source';

export const JOB_DEFINITION_FIELD = 'itemData.providerDetails.jobDefinition';

/** A definition checked against the configured hosts; VALIDATION_ERROR naming the task at fault. */
export const checkedDefinition = (deps: ActivityDeps, text: string, field = JOB_DEFINITION_FIELD): JobDefinition =>
  parseJobDefinition(text, (deps.oraclePolicy ?? noOracleHosts).allowedHosts, field);

/** Runs the job now. A job that gives no value is NETWORK_ERROR with the reason (nothing is written). */
export async function runFeedJob(deps: ActivityDeps, network: SvmNetwork, definition: JobDefinition): Promise<FeedValue> {
  const policy = deps.oraclePolicy ?? noOracleHosts;
  try {
    const value = await runJobDefinition(definition, createHttpGet(policy, deps.fetch));
    const [slot] = await readSlotHashes(network);
    return { value: formatDecimal(value), decimals: placesOf(value), updatedAt: deps.now().toISOString(), slot: (slot ?? 0n).toString() };
  } catch (error) {
    if (error instanceof JobFailure) throw new LedgerError('NETWORK_ERROR', `the data source's job gave no value: ${error.message}`, JOB_DEFINITION_FIELD);
    throw error;
  }
}

/**
 * A refresh that gave no value leaves the value onchain as it was; the reason is kept on the
 * record (its own database transaction: the write itself is refused) until a good refresh clears it.
 */
export async function recordRefreshFailure(em: EntityManager, dataSourceId: string, error: unknown, at: Date): Promise<void> {
  if (!(error instanceof LedgerError)) return;
  await em.fork().nativeUpdate(OracleDataSource, { id: dataSourceId }, { lastRefreshError: error.message, lastRefreshErrorAt: at });
}
