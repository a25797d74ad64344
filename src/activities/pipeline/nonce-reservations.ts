/**
 * The durable-nonce lifetime's reservations for one write, over the database: the organization's
 * free nonce accounts on the request's cluster whose authority (a signer of the advance-nonce
 * instruction) is a managed key the organization may use.
 */
import { countFreeNonceAccounts, releaseNonceAccount, reserveNonceAccount, storeNonceHash } from '../../db/repositories/durable-nonces.repository';
import { conflict, validationError } from '../../domain/errors';
import type { WriteRequest } from '../../domain/write';
import type { NonceReservations } from '../../network/lifetime';
import type { ActivityDeps } from '../deps';

const FIELD = 'svmTransactionConfig.messageLifetimeStrategy';

export function nonceReservations(deps: ActivityDeps, request: WriteRequest): NonceReservations {
  const scope = { organizationId: request.organizationId, organizationExternalId: request.organizationExternalId, cluster: request.cluster };
  return {
    async reserve(transactionId) {
      const em = deps.orm.em.fork();
      const reserved = await reserveNonceAccount(em, scope, transactionId, deps.now());
      if (reserved) return { nonceAccount: reserved.address, nonceAuthority: reserved.authorityAddress };
      if ((await countFreeNonceAccounts(em, scope)) > 0) {
        throw validationError(
          FIELD,
          `DURABLE_NONCE: no free durable nonce account on ${request.cluster} has an authority that is a managed account this organization may sign with and was not looked up with autoSign: false (the missing-signature flow is not available for nonce authorities)`,
        );
      }
      throw conflict(
        FIELD,
        `DURABLE_NONCE: there is no free durable nonce account on ${request.cluster} (every one is in use by another transaction); create more with Create Durable Nonce Accounts (POST /api/v1/durable-nonce-accounts) or retry once one is released`,
      );
    },
    release: (transactionId) => releaseNonceAccount(deps.orm.em.fork(), transactionId),
    noted: (nonceAccount, nonceHash) => storeNonceHash(deps.orm.em.fork(), nonceAccount, request.cluster, nonceHash),
  };
}
