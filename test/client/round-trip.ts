/**
 * A client's create-and-list round trip, written as a client developer would: against the types
 * openapi-typescript generates from the service's OpenAPI document, with openapi-fetch. It is not
 * part of the project's own type check (its types exist only once generated): the contract test
 * generates them into a temporary folder beside a copy of this file and type-checks it there with
 * tsc, and the e2e contract test runs it against a real service.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/ledger-api';

export type AccountCompact = components['schemas']['AccountCompact'];
export type RecordReference = components['schemas']['RecordReference'];

export interface RoundTrip {
  created: RecordReference;
  count: number;
  listed: AccountCompact[];
}

/** Create Account (a managed wallet seeded with an exact decimal amount), then Fetch Accounts at the compact level by its code. */
export async function createAndList(baseUrl: string, apiKey: string, code: string): Promise<RoundTrip> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });

  const create = await client.POST('/api/v1/accounts', {
    body: {
      itemData: { managed: true, offchainReferences: { type: 'WALLET', code, name: 'Round-trip wallet' }, seed: { amount: '0.010000001' } },
      svmTransactionConfig: { commitmentConfig: { commitmentLevel: 'confirmed' } },
    },
  });
  if (create.error) throw new Error(`Create Account: ${create.error.errors.map((e) => `${e.code} ${e.message}`).join('; ')}`);
  // 201 answers the new account; 202 (Prefer: respond-async, not sent here) only the transaction.
  if (!('newAccount' in create.data) || !create.data.newAccount) throw new Error(`Create Account answered no account: ${JSON.stringify(create.data)}`);
  const created: RecordReference = create.data.newAccount;
  const status: components['schemas']['TransactionResult']['status'] | undefined = create.data.svmTransaction?.status;
  if (status !== undefined && status !== 'CONFIRMED' && status !== 'FINALIZED') throw new Error(`Create Account's transaction is ${status}`);

  const list = await client.POST('/api/v1/accounts/bulk/{detailLevel}', {
    params: { path: { detailLevel: 'compact' } },
    body: {
      itemQuery: {
        limit: 10,
        filter: [{ fieldName: 'code', operator: 'AND', filterValues: [{ dataType: 'TEXT', filterType: 'EQUALS', valueString: code }] }],
        sort: [{ fieldName: 'lastTransactionAt', sortDirection: 'DESC' }],
      },
    },
  });
  if (list.error) throw new Error(`Fetch Accounts: ${list.error.errors.map((e) => e.code).join(', ')}`);
  // One operation serves every detail level: the compact records are those with an offchain type.
  const listed = list.data.items.filter((item): item is AccountCompact => 'type' in item.offchain);
  return { created, count: list.data.count, listed };
}
