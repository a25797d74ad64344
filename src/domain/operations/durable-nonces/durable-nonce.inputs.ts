/** Durable nonce account request shapes (spec 4.2): Create Durable Nonce Accounts and Fetch Durable Nonce Account Details. */
import { createAccountItemData } from '../accounts/account.inputs';
import { accountLookup } from '../../inputs/common.inputs';
import { integer, strictObject } from '../../inputs/primitives';
import type * as t from 'io-ts';
import { MAX_NONCE_ACCOUNTS_PER_REQUEST } from '../../durable-nonce';

/** Create Durable Nonce Accounts itemData: the accounts' payload (spec 2.3), how many, and their authority. */
export const createDurableNonceAccountsItemData = strictObject(
  'CreateDurableNonceAccountsItemData',
  { nonceAccount: createAccountItemData, numberOfNonceAccounts: integer(1, MAX_NONCE_ACCOUNTS_PER_REQUEST), nonceAuthority: accountLookup },
  {},
);
export type CreateDurableNonceAccountsItemData = t.TypeOf<typeof createDurableNonceAccountsItemData>;

/** Fetch Durable Nonce Account Details itemData. */
export const durableNonceAccountDetailsItemData = strictObject('DurableNonceAccountDetailsItemData', { nonceAccount: accountLookup }, {});
