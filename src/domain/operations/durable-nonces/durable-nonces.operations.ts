/** The durable nonce account operation (the spec's 4.2): Create Durable Nonce Accounts. */
import { MAX_NONCE_ACCOUNTS_PER_REQUEST, NONCE_ACCOUNTS_PER_TRANSACTION } from '../../durable-nonce';
import { durableNonceExamples } from '../../examples/durable-nonce.examples';
import { createDurableNonceAccountsResponse } from '../../responses/durable-nonce.responses';
import { defineOperation } from '../define-operation';
import * as createDurableNonceAccountsRules from './create-durable-nonce-accounts.rules';
import { createDurableNonceAccountsItemData } from './durable-nonce.inputs';

export const durableNonceOperations = {
  CREATE_DURABLE_NONCE_ACCOUNTS: defineOperation({
    input: createDurableNonceAccountsItemData,
    validate: createDurableNonceAccountsRules.validateCreateDurableNonceAccounts,
    rules: createDurableNonceAccountsRules,
    route: {
      operationId: 'createDurableNonceAccounts',
      method: 'post',
      path: '/api/v1/durable-nonce-accounts',
      tag: 'Durable nonce accounts',
      summary: `Create Durable Nonce Accounts: numberOfNonceAccounts (1 to ${MAX_NONCE_ACCOUNTS_PER_REQUEST}) new nonce accounts with generated managed keys (offchain reference type NONCE), each created with its rent-exempt minimum (paid by the fee payer) and initialized with nonceAuthority as its authority, ${NONCE_ACCOUNTS_PER_TRANSACTION} per network transaction, run one after another (a failed one ends the request after what landed). nonceAccount is an account payload (spec 2.3) applied to every new account: its labels (offchainReferences, comments, domain, flags, orgsAllowedToSignWithPrivateKey) act, managed true, dataLength 80 and privateKeyDetails.location (DATABASE or SECRETS) say what happens; managed false, an imported key, other sizes, seed, fee, debit and webhook fields are refused with 400. A nonceAccount.onchainId already on record is 409, alreadyOnchain included (an existing nonce account is onboarded with Create Account, type NONCE). Answers 201 {transactions}. To use the accounts as a message lifetime (svmTransactionConfig.messageLifetimeStrategy DURABLE_NONCE), nonceAuthority must be a managed account the organization may sign with.`,
      successStatus: 201,
      body: 'CreateDurableNonceAccountsRequest',
      response: createDurableNonceAccountsResponse,
      example: durableNonceExamples.createDurableNonceAccounts,
    },
  }),
};
