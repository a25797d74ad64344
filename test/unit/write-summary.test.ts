/** What an operator reads of a write in the Temporal Web UI: operation, organization, amounts and ends; never a secret. */
import { operationWords, writeSummary } from '../../src/domain/write-summary';
import type { WriteRequest } from '../../src/domain/write';

const request = (operation: WriteRequest['operation'], itemData: unknown) => ({ operation, transactionId: 'tx-1', itemData }) as WriteRequest;

it('names the operation in words', () => {
  expect(operationWords('TRANSFER_NETWORK_CURRENCY')).toBe('Transfer Network Currency');
});

it('reads a transfer as its amount from → to', () => {
  const s = writeSummary(
    request('TRANSFER_NETWORK_CURRENCY', { source: { offchainId: 'a1' }, destination: { onchainId: 'Dest111' }, value: { amount: '1.5' } }),
    'acme',
  );
  expect(s.staticSummary).toBe('Transfer Network Currency · acme · 1.5 a1 → Dest111');
  expect(s.staticDetails).toBe('**Transfer Network Currency** for organization `acme`\ntransaction `tx-1`\n- 1.5 a1 → Dest111');
});

it("reads each of a trade's movements, a mint's destination and a burn's source", () => {
  const trade = writeSummary(
    request('TRADE', {
      operations: [
        { mint: { mintTo: { position: { offchainId: 'p1' } }, value: { lamports: '500' } } },
        { burn: { burnFrom: { owner: { offchainId: 'o2' }, financialInstrument: { offchainId: 'f' } }, burnEntireBalance: true } },
      ],
    }),
    'acme',
  );
  expect(trade.staticDetails.split('\n').slice(2)).toEqual(['- 500 base units to p1', "- entire balance from o2's position"]);
});

it('says nothing of fields outside its list: an imported key, a webhook credential, a lone object acted on', () => {
  const s = writeSummary(
    request('CREATE_ACCOUNT', {
      privateKeyDetails: { privateKey: 'SECRET-KEY' },
      preTransactionSubmitWebhooks: [{ apiKeyAuthConfig: { keyValue: 'SECRET-HOOK' } }],
      seed: { amount: 1 },
    }),
    'acme',
  );
  expect(JSON.stringify(s)).not.toMatch(/SECRET/);
  expect(s.staticSummary).toBe('Create Account · acme');
  expect(writeSummary(request('UPDATE_ACCOUNT', { account: { offchainId: 'a1' }, comments: 'x' }), 'acme').staticSummary).toBe('Update Account · acme');
});
