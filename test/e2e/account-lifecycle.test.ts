/**
 * Update Account and Inactivate Account through the real stack: PostgreSQL, Temporal, the worker and
 * the local SVM node over JSON-RPC. Balances are checked onchain and in the records.
 */
import {
  address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  devnet,
  generateKeyPair,
  generateKeyPairSigner,
  getAddressFromPublicKey,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { randomBytes } from 'node:crypto';
import { Account } from '../../src/db/entities';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };

let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(devnet(stack.node.url));
});
afterAll(async () => {
  await stack?.close();
});

const RENT_EXEMPT_MINIMUM = 890_880;
const create = async (itemData: Record<string, unknown>): Promise<Ref> => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount;
};
const details = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: ref.offchainId } } })).body;
const balances = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
const update = (itemData: Record<string, unknown>, apiKey?: string) => stack.call('PATCH', '/api/v1/accounts', { itemData }, { apiKey });
const inactivate = (itemData: Record<string, unknown>, svmTransactionConfig?: Record<string, unknown>) =>
  stack.call('PATCH', '/api/v1/accounts/inactivate', { itemData, svmTransactionConfig });
const freshAddress = async () => getAddressFromPublicKey((await generateKeyPair()).publicKey);
const onchainLamports = async (addr: string) => (await rpc.getBalance(address(addr), { commitment: 'confirmed' }).send()).value;
const byId = (ref: Ref) => ({ offchainId: ref.offchainId });

describe('Update Account', () => {
  it('changes the offchain references, comments and domain, answering the account and no transaction', async () => {
    const wallet = await create({ managed: true, offchainReferences: { type: 'WALLET', code: 'L-1', name: 'Before' }, comments: 'before' });
    const updated = await update({
      account: byId(wallet),
      offchainReferences: { code: 'L-2', name: 'After', accountNumber: 'AN-9', organizationExternalId: 'ext-9' },
      comments: 'after',
      domain: 'desk.example',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ updatedAccount: wallet, svmTransaction: null });
    expect(await details(wallet)).toMatchObject({
      offchain: { type: 'WALLET', code: 'L-2', name: 'After', accountNumber: 'AN-9', organizationExternalId: 'ext-9' },
      comments: 'after',
      domain: 'desk.example',
      status: 'ACTIVE',
    });
    // The new references find the account; the old ones no longer do.
    expect((await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainReferences: { code: 'L-2' } } } })).body.offchain.id).toBe(
      wallet.offchainId,
    );
    expect((await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainReferences: { code: 'L-1' } } } })).status).toBe(404);

    // unsetFields empties nullable fields; what is not named stays.
    expect((await update({ account: byId(wallet), unsetFields: ['comments', 'offchainReferences.name'] })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({ offchain: { code: 'L-2', name: null, accountNumber: 'AN-9' }, comments: null, domain: 'desk.example' });
  });

  it('changes the flags and the organizations lists', async () => {
    const wallet = await create({ managed: true });
    const updated = await update({
      account: byId(wallet),
      canPayFees: true,
      subscribeToNetworkEvents: true,
      shareAcrossTenants: true,
      globalFeePayerForOrgs: ['org-a'],
      orgsAllowedToSignWithPrivateKey: ['org-b', 'org-c'],
    });
    expect(updated.status).toBe(200);
    expect(await details(wallet)).toMatchObject({
      canPayFees: true,
      subscribeToNetworkEvents: true,
      sharedAcrossTenants: true,
      globalFeePayerForOrgs: ['org-a'],
      orgsAllowedToSignWithPrivateKey: ['org-b', 'org-c'],
    });
    expect((await update({ account: byId(wallet), canPayFees: false, orgsAllowedToSignWithPrivateKey: [] })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({ canPayFees: false, subscribeToNetworkEvents: true, orgsAllowedToSignWithPrivateKey: [] });

    // Shared or not, only the owning organization may change it (403 naming the lookup).
    const other = `other-${randomBytes(4).toString('hex')}`;
    const foreign = await update(
      { account: { ...byId(wallet), otherTenantOrganizationExternalId: stack.organizationExternalId }, comments: 'theirs' },
      await stack.newApiKey(other, ['READ', 'WRITE']),
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.account' });
  });

  it('replaces the webhooks, sealing their credentials as Create Account does', async () => {
    const wallet = await create({ managed: true });
    const hook = {
      endpointUrl: 'https://hooks.example.com/pre',
      name: 'risk',
      apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 's3cret-key' },
      timeout: 2000,
      doNotSubmitTransactionOnFailure: true,
    };
    const oauth = {
      endpointUrl: 'https://hooks.example.com/post',
      oauth2AuthConfig: { accessTokenUrl: 'https://auth.example.com/token', flowType: 'CLIENT_CREDENTIALS', clientId: 'ledger', clientSecret: 'client-s3cret' },
    };
    expect(
      (
        await update({
          account: byId(wallet),
          preTransactionSubmitWebhooks: [hook],
          postTransactionSubmitWebhooks: [oauth],
          missingSignatureWebhooks: [{ endpointUrl: 'https://hooks.example.com/sign' }],
        })
      ).status,
    ).toBe(200);
    expect(await details(wallet)).toMatchObject({
      preTransactionSubmitWebhooks: [{ ...hook, apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: '***' } }],
      postTransactionSubmitWebhooks: [{ endpointUrl: oauth.endpointUrl, oauth2AuthConfig: { clientId: 'ledger', clientSecret: '***' } }],
      missingSignatureWebhooks: [{ endpointUrl: 'https://hooks.example.com/sign' }],
    });
    const stored = await forkEm(stack.runtime.orm).findOneOrFail(Account, { id: wallet.offchainId });
    const sealedKey = stored.preTransactionSubmitWebhooks[0].apiKeyAuthConfig!.keyValue;
    const sealedSecret = stored.postTransactionSubmitWebhooks[0].oauth2AuthConfig!.clientSecret;
    expect(stack.runtime.sealer.isSealed(sealedKey) && stack.runtime.sealer.unseal(sealedKey).toString('utf8')).toBe('s3cret-key');
    expect(stack.runtime.sealer.isSealed(sealedSecret) && stack.runtime.sealer.unseal(sealedSecret).toString('utf8')).toBe('client-s3cret');

    expect((await update({ account: byId(wallet), preTransactionSubmitWebhooks: [] })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({ preTransactionSubmitWebhooks: [], postTransactionSubmitWebhooks: [{ endpointUrl: oauth.endpointUrl }] });
  });

  it('sets debit limits on wallets only, and unsetFields brings back the defaults', async () => {
    const limits = [{ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 2.5 } }];
    const tokenLimits = [
      {
        operationType: 'ANY',
        destination: 'ANY',
        mintAuthority: 'ANY',
        maxAllowedDebit: { limitType: 'DURATION', limitAmount: 100, duration: { code: 'DAYS', unit: 1 } },
      },
    ];
    const wallet = await create({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
    expect((await update({ account: byId(wallet), networkCurrencyDebitLimits: limits, tokenDebitLimits: tokenLimits })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({
      networkCurrencyDebitLimits: [{ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '2.5' } }],
      tokenDebitLimits: [{ maxAllowedDebit: { limitType: 'DURATION', limitAmount: '100' } }],
    });
    expect((await update({ account: byId(wallet), unsetFields: ['networkCurrencyDebitLimits', 'tokenDebitLimits'] })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({ networkCurrencyDebitLimits: null, tokenDebitLimits: null });

    const authority = await create({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const refused = await update({ account: byId(authority), networkCurrencyDebitLimits: limits });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.networkCurrencyDebitLimits' });
    expect((await details(authority)).networkCurrencyDebitLimits).toBeNull();
    const nothing = await update({ account: byId(authority) });
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors[0].field).toBe('itemData');
  });

  it('refuses debit limit fields that could never act, at Create and Update Account, naming the field; nothing changes', async () => {
    const wallet = await create({ managed: true });
    const perTransaction = { limitType: 'PER_TRANSACTION', limitAmount: 5 };
    const cases: [Record<string, unknown>, string][] = [
      [{ tokenDebitLimits: [{ destination: 'ANY', operationType: 'MINT', maxAllowedDebit: perTransaction }] }, 'itemData.tokenDebitLimits.0.operationType'],
      [
        { tokenDebitLimits: [{ destination: 'ANY', mintAuthority: wallet.onchainId, maxAllowedDebit: perTransaction }] },
        'itemData.tokenDebitLimits.0.mintAuthority',
      ],
      [
        { networkCurrencyDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { ...perTransaction, duration: { code: 'DAYS', unit: 1 } } }] },
        'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.duration',
      ],
      [
        {
          networkCurrencyDebitLimits: [
            { destination: 'ANY', maxAllowedDebit: { ...perTransaction, approversForOverride: ['key-a', 'key-b'], requiredApproversCount: 3 } },
          ],
        },
        'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.requiredApproversCount',
      ],
    ];
    for (const [fields, field] of cases) {
      for (const refused of [await update({ account: byId(wallet), ...fields }), await stack.call('POST', '/api/v1/accounts', { itemData: fields })]) {
        expect({ field, status: refused.status, error: refused.body.errors?.[0] }).toMatchObject({
          field,
          status: 400,
          error: { code: 'VALIDATION_ERROR', field },
        });
      }
    }
    expect(await details(wallet)).toMatchObject({ networkCurrencyDebitLimits: null, tokenDebitLimits: null });
  });

  it('changes debit API keys only with UPDATE_DEBIT_API_KEYS (403 naming the field without it)', async () => {
    const wallet = await create({ managed: true });
    const writer = await stack.newApiKey(stack.organizationExternalId, ['READ', 'WRITE']);
    for (const field of ['networkCurrencyDebitApiKeys', 'tokenDebitApiKeys']) {
      const refused = await update({ account: byId(wallet), [field]: ['debit-key-1'] }, writer);
      expect(refused.status).toBe(403);
      expect(refused.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: `itemData.${field}` });
    }
    expect(await details(wallet)).toMatchObject({ solDebitApiKeys: [], tokenDebitApiKeys: [] });
    // The stack's key holds every role but ADMIN, UPDATE_DEBIT_API_KEYS included.
    expect((await update({ account: byId(wallet), networkCurrencyDebitApiKeys: ['sol-key'], tokenDebitApiKeys: ['token-key'] })).status).toBe(200);
    expect(await details(wallet)).toMatchObject({ solDebitApiKeys: ['sol-key'], tokenDebitApiKeys: ['token-key'] });
    // Other fields need no such role.
    expect((await update({ account: byId(wallet), comments: 'fine' }, writer)).status).toBe(200);
  });
});

describe('Inactivate Account', () => {
  it('sweeps a managed account to another account in one transaction, closes it, and refuses it afterwards', async () => {
    const wallet = await create({ managed: true, seed: { amount: 2 }, canPayFees: true });
    const vault = await create({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
    expect(await onchainLamports(wallet.onchainId)).toBe(2_000_000_000n);

    const closed = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: byId(vault) });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ inactivatedAccount: wallet, svmTransaction: { success: true, status: 'CONFIRMED', errorMessage: null } });

    // Onchain: the whole balance moved (the global fee payer paid the fee) and the account is gone.
    expect((await rpc.getAccountInfo(address(wallet.onchainId), { encoding: 'base64', commitment: 'confirmed' }).send()).value).toBeNull();
    const from = await balances(wallet);
    const to = await balances(vault);
    expect(from.onchain.balance).toEqual({ amount: 0, lamports: 0 });
    expect(from.offchain.balance).toEqual(from.onchain.balance);
    expect(to.onchain.balance.lamports).toBe(2_000_000_000 + RENT_EXEMPT_MINIMUM);
    expect(to.offchain.balance).toEqual(to.onchain.balance);

    const record = await details(wallet);
    expect(record).toMatchObject({ status: 'CLOSED', onchain: { lastTransactionId: closed.body.svmTransaction.onchainId } });
    const tx = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: closed.body.svmTransaction.offchainId } } });
    expect(tx.body).toMatchObject({ operation: 'INACTIVATE_ACCOUNT', success: true });
    expect(tx.body.accountOffchainIds[0]).toBe(wallet.offchainId);
    expect(tx.body.accountOffchainIds).toContain(vault.offchainId);

    // A closed account neither sends, pays fees, changes nor closes again.
    const source = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: byId(wallet), destination: byId(vault), value: { lamports: 1 } },
    });
    expect(source.status).toBe(400);
    expect(source.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.source', message: expect.stringContaining('CLOSED') });
    const toClosed = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: byId(vault), destination: byId(wallet), value: { lamports: 1 } },
    });
    expect(toClosed.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.destination', message: expect.stringContaining('CLOSED') });
    const payer = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true }, svmTransactionConfig: { feePayer: byId(wallet) } });
    expect(payer.status).toBe(400);
    expect(payer.body.errors[0]).toMatchObject({ field: 'svmTransactionConfig.feePayer', message: expect.stringContaining('CLOSED') });
    const changed = await update({ account: byId(wallet), comments: 'too late' });
    expect(changed.status).toBe(400);
    expect(changed.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.account' });
    const again = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: byId(vault) });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.accountToInactivate',
      message: expect.stringContaining('already CLOSED'),
    });
    expect((await balances(vault)).onchain.balance.lamports).toBe(2_000_000_000 + RENT_EXEMPT_MINIMUM);
  });

  it('sweeps to an off-platform address under the debit limits, like Transfer Network Currency', async () => {
    const wallet = await create({ managed: true, seed: { amount: 1 } });
    const outside = await freshAddress();
    const destination = { onchainId: outside, offPlatform: true };
    // The default OFF_PLATFORM limit is 0: the sweep is a debit like any other.
    const limited = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: destination });
    expect(limited.status).toBe(400);
    expect(limited.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { destination: 'OFF_PLATFORM' } });
    expect((await details(wallet)).status).toBe('ACTIVE');

    expect(
      (
        await update({
          account: byId(wallet),
          networkCurrencyDebitLimits: [{ destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 5 } }],
        })
      ).status,
    ).toBe(200);
    const noAddress = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: { offPlatform: true } });
    expect(noAddress.body.errors[0].field).toBe('itemData.transferRemainingNetworkCurrencyTo.onchainId');
    const closed = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: destination });
    expect(closed.status).toBe(200);
    expect(closed.body.svmTransaction).toMatchObject({ success: true });
    expect(await onchainLamports(outside)).toBe(1_000_000_000n);
    expect(await onchainLamports(wallet.onchainId)).toBe(0n);
    expect(await details(wallet)).toMatchObject({ status: 'CLOSED', offchain: { balance: { lamports: 0 } } });
  });

  it('needs a destination while lamports remain (400 naming transferRemainingNetworkCurrencyTo)', async () => {
    const wallet = await create({ managed: true, seed: { amount: 0.5 }, canPayFees: true });
    const refused = await inactivate({ accountToInactivate: byId(wallet) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.transferRemainingNetworkCurrencyTo',
      message: expect.stringContaining('500000000 lamports'),
    });
    const itself = await inactivate({ accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: { onchainId: wallet.onchainId } });
    expect(itself.body.errors[0].field).toBe('itemData.transferRemainingNetworkCurrencyTo');
    const payingItself = await inactivate(
      { accountToInactivate: byId(wallet), transferRemainingNetworkCurrencyTo: byId(await create({ managed: true })) },
      { feePayer: byId(wallet) },
    );
    expect(payingItself.status).toBe(400);
    expect(payingItself.body.errors[0]).toMatchObject({ field: 'svmTransactionConfig.feePayer', message: expect.stringContaining('its own sweep') });
    expect(await details(wallet)).toMatchObject({ status: 'ACTIVE', offchain: { balance: { lamports: 500_000_000 } } });
    expect(await onchainLamports(wallet.onchainId)).toBe(500_000_000n);
  });

  it('closes a non-managed account offchain only: no transaction, its lamports stay with its owner', async () => {
    const addr = await freshAddress();
    await rpc.requestAirdrop(address(addr), lamports(1_000_000_000n)).send();
    await waitFor(async () => (await onchainLamports(addr)) > 0n);
    const outsider = await create({ managed: false, alreadyOnchain: true, onchainId: addr });
    const withDestination = await inactivate({
      accountToInactivate: byId(outsider),
      transferRemainingNetworkCurrencyTo: byId(await create({ managed: true })),
    });
    expect(withDestination.status).toBe(400);
    expect(withDestination.body.errors[0]).toMatchObject({
      field: 'itemData.transferRemainingNetworkCurrencyTo',
      message: expect.stringContaining('not managed'),
    });

    const closed = await inactivate({ accountToInactivate: { onchainId: addr } });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ inactivatedAccount: outsider, svmTransaction: null });
    expect((await details(outsider)).status).toBe('CLOSED');
    expect(await onchainLamports(addr)).toBe(1_000_000_000n);
  });

  it('refuses an account holding data, or owned by another program, explaining why', async () => {
    const withData = await create({ managed: true, dataLength: 100 });
    const refused = await inactivate({
      accountToInactivate: byId(withData),
      transferRemainingNetworkCurrencyTo: { onchainId: await freshAddress(), offPlatform: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.accountToInactivate',
      message: expect.stringContaining('100 bytes of data'),
    });

    // A key the service holds, for an account the Token program owns (made outside the service, then imported).
    const seed = randomBytes(32);
    const owned = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const payer = await generateKeyPairSigner();
    await rpc.requestAirdrop(payer.address, lamports(1_000_000_000n)).send();
    await waitFor(async () => (await onchainLamports(payer.address)) > 0n);
    const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const signed = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
        (m) =>
          appendTransactionMessageInstruction(
            getCreateAccountInstruction({ payer, newAccount: owned, lamports: RENT_EXEMPT_MINIMUM, space: 0, programAddress: TOKEN_PROGRAM_ADDRESS }),
            m,
          ),
      ),
    );
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    const signature = getSignatureFromTransaction(signed);
    await waitFor(async () => (await rpc.getSignatureStatuses([signature]).send()).value[0]?.confirmationStatus === 'confirmed');
    const imported = await create({ managed: true, alreadyOnchain: true, privateKeyDetails: { privateKey: getBase58Decoder().decode(seed) } });
    const programOwned = await inactivate({ accountToInactivate: byId(imported), transferRemainingNetworkCurrencyTo: byId(await create({ managed: true })) });
    expect(programOwned.status).toBe(400);
    expect(programOwned.body.errors[0]).toMatchObject({
      field: 'itemData.accountToInactivate',
      message: expect.stringContaining(`owned by program ${TOKEN_PROGRAM_ADDRESS}`),
    });
    expect((await details(imported)).status).toBe('ACTIVE');
  });

  it('refuses an account with active positions until they are inactivated, and the mint of an active instrument', async () => {
    const authority = await create({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const instrument = await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 2 },
        mintAuthority: byId(authority),
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    });
    expect(instrument.status).toBe(201);
    const mint = instrument.body.newFinancialInstrument.onchainId as string;
    const owner = await create({ managed: true, seed: { amount: 0.1 } });
    expect(
      (await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: { owner: byId(owner), financialInstrument: { onchainId: mint } } } }))
        .status,
    ).toBe(201);

    const withPosition = await inactivate({ accountToInactivate: byId(owner), transferRemainingNetworkCurrencyTo: byId(authority) });
    expect(withPosition.status).toBe(400);
    expect(withPosition.body.errors[0]).toMatchObject({ field: 'itemData.accountToInactivate', message: expect.stringContaining('1 active position') });
    const mintAccount = await inactivate({ accountToInactivate: { onchainId: mint }, transferRemainingNetworkCurrencyTo: byId(authority) });
    expect(mintAccount.status).toBe(400);
    expect(mintAccount.body.errors[0]).toMatchObject({ field: 'itemData.accountToInactivate', message: expect.stringContaining('Close Financial Instrument') });
    expect(await onchainLamports(owner.onchainId)).toBe(100_000_000n);

    // Once its position is inactive (the token account's rent refunded to the owner), the owner can go.
    const position = await stack.call('PATCH', '/api/v1/positions/inactivate', {
      itemData: { positionToInactivate: { owner: byId(owner), financialInstrument: { onchainId: mint } }, refundNetworkCurrrencyDestination: byId(owner) },
    });
    expect(position.body).toMatchObject({ success: true });
    const owned = await onchainLamports(owner.onchainId);
    expect(owned).toBeGreaterThan(100_000_000n);
    const authorityBefore = await onchainLamports(authority.onchainId);
    const closed = await inactivate({ accountToInactivate: byId(owner), transferRemainingNetworkCurrencyTo: byId(authority) });
    expect(closed.status).toBe(200);
    expect(closed.body.svmTransaction).toMatchObject({ success: true });
    expect(await onchainLamports(authority.onchainId)).toBe(authorityBefore + owned);
    expect(await details(owner)).toMatchObject({ status: 'CLOSED', offchain: { balance: { lamports: 0 } } });
  });
});
