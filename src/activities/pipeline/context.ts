/**
 * What every pipeline step shares: its dependencies, a fresh EntityManager per step, the network of
 * the request's cluster, the message lifetime of the request, and the write's transaction records.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction } from '../../db/entities';
import { LedgerError } from '../../domain/errors';
import { partTransactionId } from '../../domain/ids';
import type { WriteRequest } from '../../domain/write';
import { durableNonceLifetime, recentBlockhashLifetime, type Lifetime } from '../../network/lifetime';
import { nonceReservations } from './nonce-reservations';
import type { SvmNetwork } from '../../network/svm-network';
import type { ActivityDeps } from '../deps';

export interface PipelineContext {
  deps: ActivityDeps;
  fork(): EntityManager;
  network(cluster: string): SvmNetwork;
  lifetime(request: WriteRequest): Lifetime;
  /** The record of one part of the write (its first by default), or null before build made it. */
  findRecord(em: EntityManager, request: WriteRequest, part?: number): Promise<LedgerTransaction | null>;
}

export function createPipelineContext(deps: ActivityDeps): PipelineContext {
  const network = (cluster: string) => {
    const found = deps.networks.get(cluster);
    if (!found) throw new LedgerError('VALIDATION_ERROR', `unknown svmCluster ${cluster}`, 'svmCluster');
    return found;
  };
  return {
    deps,
    fork: () => deps.orm.em.fork(),
    network,
    lifetime: (request) =>
      usesDurableNonce(request)
        ? durableNonceLifetime(network(request.cluster), nonceReservations(deps, request))
        : recentBlockhashLifetime(network(request.cluster), request.commitment),
    findRecord: (em, request, part = 0) => em.findOne(LedgerTransaction, { id: partTransactionId(request.transactionId, part) }),
  };
}

/** The write's messages live by a durable nonce its record reserves (else by a recent blockhash, nothing reserved). */
export const usesDurableNonce = (request: WriteRequest): boolean => request.svmTransactionConfig?.messageLifetimeStrategy === 'DURABLE_NONCE';

/** A record whose message may have reached the network: it has a signature that no proof of expiry has cleared. */
export const possiblySent = (record: LedgerTransaction | null): record is LedgerTransaction & { signature: string } => Boolean(record?.signature);
