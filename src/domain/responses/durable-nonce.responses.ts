/** Durable nonce account answers (spec 2.8, docs/durable-nonces.md). */
import * as t from 'io-ts';
import { accountDetailed } from './account.responses';
import { authorityReference } from './financial-instrument.responses';
import { listOf, nullable, strictObject, textWith, timestamp, uuid } from './building-blocks';
import { recordPage } from './bulk.responses';
import { transactionResult } from './write.responses';

export const createDurableNonceAccountsResponse = strictObject(
  'CreateDurableNonceAccountsAnswer',
  { transactions: listOf(transactionResult, 'Every network transaction of the request, in order (four nonce accounts each).') },
  {},
  "The spec's empty object plus the transactions that created the nonce accounts (list them with Fetch Durable Nonce Accounts, e.g. by nonceAuthorityOnchainId).",
);

export const durableNonceAccountRecord = strictObject(
  'DurableNonceAccount',
  {
    nonceAccount: accountDetailed,
    nonceAuthority: authorityReference,
    nonceHash: nullable(
      textWith(
        'The nonce value (base58): read from the chain by Fetch Durable Nonce Account Details; in bulk, the value last read (at creation and at each reservation).',
      ),
    ),
    inUse: nullable(
      strictObject(
        'DurableNonceInUse',
        { transactionOffchainId: uuid, transactionAt: timestamp },
        {},
        'The transaction whose message holds the nonce, and when it reserved it; null when the account is free.',
      ),
    ),
  },
  {},
  'A durable nonce account (spec 2.8).',
);
export type DurableNonceAccountBody = t.TypeOf<typeof durableNonceAccountRecord>;

export const durableNonceAccountPage = recordPage(
  'DurableNonceAccountPage',
  durableNonceAccountRecord,
  'One page of durable nonce accounts: count is the number that match the filter (all pages).',
);
