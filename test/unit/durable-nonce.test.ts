/** Durable nonce rules: when a nonce lifetime is over, how a request is cut into transactions, and what a payload may carry. */
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionSize,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Nonce,
} from '@solana/kit';
import {
  MAX_NONCE_ACCOUNTS_PER_REQUEST,
  NONCE_ACCOUNTS_PER_TRANSACTION,
  nonceBatch,
  nonceLifetimeOver,
  nonceTransactionCount,
} from '../../src/domain/durable-nonce';
import { planNonceAccounts, validateCreateDurableNonceAccounts } from '../../src/domain/operations/durable-nonces/create-durable-nonce-accounts.rules';
import { LedgerError } from '../../src/domain/errors';
import type { CreateDurableNonceAccountsItemData } from '../../src/domain/operations/durable-nonces/durable-nonce.inputs';

const newAddress = async () => (await generateKeyPairSigner()).address;
const lifetime = { kind: 'DURABLE_NONCE' as const, nonceAccount: 'n', nonceAuthority: 'a', nonce: 'HASH1', reservedBy: 't' };

describe('a durable nonce lifetime', () => {
  it('is over only when the chain holds another nonce value, or none', () => {
    expect(nonceLifetimeOver(lifetime, 'HASH1')).toBe(false);
    expect(nonceLifetimeOver(lifetime, 'HASH2')).toBe(true);
    expect(nonceLifetimeOver(lifetime, null)).toBe(true);
  });
});

describe('Create Durable Nonce Accounts', () => {
  it('cuts the accounts into transactions of NONCE_ACCOUNTS_PER_TRANSACTION, every account once, in order', () => {
    for (const count of [1, 3, 4, 5, 8, MAX_NONCE_ACCOUNTS_PER_REQUEST]) {
      const parts = nonceTransactionCount(count);
      const batches = Array.from({ length: parts }, (_, part) => nonceBatch(count, part));
      expect(batches.flat()).toEqual(Array.from({ length: count }, (_, i) => i));
      expect(batches.every((b) => b.length >= 1 && b.length <= NONCE_ACCOUNTS_PER_TRANSACTION)).toBe(true);
    }
  });

  it('fits a full batch in 1232 bytes in the worst case (own fee payer, compute budget, itself under a durable nonce)', async () => {
    const feePayer = await newAddress();
    const addresses = await Promise.all(Array.from({ length: NONCE_ACCOUNTS_PER_TRANSACTION }, newAddress));
    const instructions = [
      getSetComputeUnitLimitInstruction({ units: 1_400_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: 2n ** 63n }),
      ...planNonceAccounts({ feePayer, authority: await newAddress(), lamports: 1_447_680n, addresses }),
    ];
    const [nonceAccountAddress, nonceAuthorityAddress] = await Promise.all([newAddress(), newAddress()]);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(feePayer), m),
      (m) =>
        setTransactionMessageLifetimeUsingDurableNonce({ nonce: '11111111111111111111111111111111' as Nonce, nonceAccountAddress, nonceAuthorityAddress }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const size = getTransactionSize(compileTransaction(message));
    expect(size).toBeLessThanOrEqual(1232);
  });

  const item = (nonceAccount: Record<string, unknown>): CreateDurableNonceAccountsItemData =>
    ({ nonceAccount, numberOfNonceAccounts: 2, nonceAuthority: { offchainId: 'x' } }) as CreateDurableNonceAccountsItemData;
  const fieldOf = (run: () => void) => {
    try {
      run();
    } catch (error) {
      return (error as LedgerError).field;
    }
    return undefined;
  };

  it('accepts the labels of spec 2.3 and refuses, naming the field, what a nonce account cannot take', () => {
    expect(
      fieldOf(() =>
        validateCreateDurableNonceAccounts(
          item({ offchainReferences: { type: 'NONCE', code: 'DESK', name: 'Desk' }, comments: 'c', shareAcrossTenants: true }),
        ),
      ),
    ).toBeUndefined();
    for (const [field, value] of [
      ['seed', { amount: '1' }],
      ['dataLength', 81],
      ['privateKeyDetails.privateKey', { privateKey: 'x' }],
      ['privateKeyDetails.dkgKeys', { dkgKeys: [] }],
      ['managed', false],
      ['alreadyOnchain', true],
      ['canPayFees', true],
      ['tokenVersion', 'SPL'],
      ['networkCurrencyDebitLimits', [{}]],
      ['postTransactionSubmitWebhooks', [{}]],
    ] as const) {
      const payload = field.startsWith('privateKeyDetails') ? { privateKeyDetails: value } : { [field]: value };
      expect(fieldOf(() => validateCreateDurableNonceAccounts(item(payload)))).toBe(`itemData.nonceAccount.${field}`);
    }
  });

  it('accepts the values of spec 2.3 that say what happens anyway: managed, not already onchain, 80 bytes, one key location, no fees, no limits', () => {
    expect(
      fieldOf(() =>
        validateCreateDurableNonceAccounts(
          item({
            managed: true,
            alreadyOnchain: false,
            dataLength: 80,
            privateKeyDetails: { location: ['SECRETS'] },
            canPayFees: false,
            skipBlockchainExistenceVerification: false,
            networkCurrencyDebitLimits: [],
            postTransactionSubmitWebhooks: [],
          }),
        ),
      ),
    ).toBeUndefined();
    // alreadyOnchain naming an address is the lookup's to answer (409 when it is on record).
    expect(fieldOf(() => validateCreateDurableNonceAccounts(item({ alreadyOnchain: true, onchainId: 'x' })))).toBeUndefined();
  });

  it('refuses the payload fields a nonce account cannot take with a message saying why', () => {
    expect(fieldOf(() => validateCreateDurableNonceAccounts(item({ offchainReferences: { type: 'WALLET' } })))).toBe(
      'itemData.nonceAccount.offchainReferences.type',
    );
    expect(() => validateCreateDurableNonceAccounts(item({ managed: false }))).toThrow(/managed false is not accepted: new nonce accounts get generated keys/);
  });
});
