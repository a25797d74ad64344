/**
 * Trade, the permanent delegate, initializeDestinationPositionIfNeeded, Inactivate Position and the
 * token debit limits (spec 4.3, 8) on the local node. After every movement the balances are read back
 * from the chain and from the records, and they must agree.
 */
import { randomUUID } from 'node:crypto';
import { generateKeyPair, getAddressFromPublicKey } from '@solana/kit';
import { Position } from '../../src/db/entities';
import { forkEm } from '../../src/main/runtime';
import { returnCodeProgramElf } from '../support/sbpf-program';
import { startStack, type Stack } from '../support/stack';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let authority: Ref;
let spl: string;
let bond: string;
/** Transfer hook programs on the local node: one lets every transfer through, one refuses them all. */
let hooks: { pass: string; refuse: string };
beforeAll(async () => {
  hooks = {
    pass: await getAddressFromPublicKey((await generateKeyPair()).publicKey),
    refuse: await getAddressFromPublicKey((await generateKeyPair()).publicKey),
  };
  stack = await startStack({
    programs: [
      { programId: hooks.pass, elf: returnCodeProgramElf(0) },
      { programId: hooks.refuse, elf: returnCodeProgramElf(0x7e57) },
    ],
  });
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } })).body
    .newAccount;
  const byAuthority = { offchainId: authority.offchainId };
  spl = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: byAuthority,
        freezeAuthority: byAuthority,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
  bond = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'TOKEN_2022',
        onchainData: { decimals: 2 },
        mintAuthority: byAuthority,
        freezeAuthority: byAuthority,
        permanentDelegateAuthority: byAuthority,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
});
afterAll(async () => {
  await stack?.close();
});

const account = async (itemData: Record<string, unknown> = { managed: true }) =>
  (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
const nonManaged = async () =>
  account({
    managed: false,
    alreadyOnchain: true,
    onchainId: await getAddressFromPublicKey((await generateKeyPair()).publicKey),
    skipBlockchainExistenceVerification: true,
  });
const at = (owner: Ref, mint: string) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
const open = async (owner: Ref, mint: string) => {
  const created = await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, mint) } });
  expect(created.status).toBe(201);
  return created.body.newPosition as Ref;
};
const mint = (owner: Ref, token: string, lamports: string) =>
  stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, token), value: { lamports } } });
const trade = (itemData: Record<string, unknown>) => stack.call('POST', '/api/v1/positions/trade', { itemData });
/** Balance in base units, after checking the chain and the record agree. */
const units = async (owner: Ref, token: string): Promise<number> => {
  const body = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, token) } })).body;
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports;
};
const details = async (owner: Ref, token: string) => (await stack.call('POST', '/api/v1/positions/single', { itemData: { position: at(owner, token) } })).body;

describe('Trade', () => {
  it('mints, transfers and burns in one atomic transaction', async () => {
    const [alice, bob] = [await account(), await account()];
    await open(alice, spl);
    await open(bob, spl);
    await open(alice, bond);
    const done = await trade({
      operations: [
        { mint: { mintTo: at(alice, spl), value: { amount: 10 } } },
        { transfer: { source: at(alice, spl), destination: at(bob, spl), value: { amount: 4.5 } } },
        { burn: { burnFrom: at(bob, spl), value: { lamports: '500000' } } },
        { mint: { mintTo: at(alice, bond), value: { amount: 7.25 }, memo: 'coupon' } },
      ],
    });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(await units(alice, spl)).toBe(5_500_000);
    expect(await units(bob, spl)).toBe(4_000_000);
    expect(await units(alice, bond)).toBe(725);
  });

  it('changes nothing when one operation is invalid: the balance runs across the operations', async () => {
    const [alice, bob] = [await account(), await account()];
    await open(alice, spl);
    await open(bob, spl);
    expect((await mint(alice, spl, '3000000')).body).toMatchObject({ success: true });
    const refused = await trade({
      operations: [
        { transfer: { source: at(alice, spl), destination: at(bob, spl), value: { amount: 2 } } },
        { mint: { mintTo: at(bob, spl), value: { amount: 1 } } },
        { burn: { burnFrom: at(alice, spl), value: { amount: 1.000001 } } },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.operations[2].burn.value' });
    expect(await units(alice, spl)).toBe(3_000_000);
    expect(await units(bob, spl)).toBe(0);
  });

  it('what the chain refuses comes back as success false and leaves every record as it was', async () => {
    const [alice, bob] = [await account(), await account()];
    await open(alice, spl);
    await open(bob, spl);
    expect((await mint(alice, spl, '1000000')).body).toMatchObject({ success: true });
    // The record claims more than the chain holds; the offchain precheck believes it, the chain does not.
    const em = forkEm(stack.runtime.orm);
    const record = await em.findOneOrFail(Position, { ownerAddress: alice.onchainId, mintAddress: spl });
    record.balance = '9000000';
    await em.flush();
    const failed = await trade({
      operations: [
        { mint: { mintTo: at(bob, spl), value: { amount: 1 } } },
        { transfer: { source: at(alice, spl), destination: at(bob, spl), value: { amount: 5 }, offchainBalanceAvailabilityPrecheck: true } },
      ],
    });
    expect(failed.status).toBe(201);
    expect(failed.body).toMatchObject({ success: false, status: 'FAILED' });
    expect(failed.body.errorMessage).toMatch(/insufficient funds/);
    const bobs = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(bob, spl) } })).body;
    expect(bobs.onchain.balance.lamports).toBe(0);
    expect(bobs.offchain.balance.lamports).toBe(0);
    expect((await details(alice, spl)).offchain.balance.lamports).toBe(9_000_000);
  });

  it('trade-level freeze over an SPL token fails the freeze-authority lookup; the operation flag turns it off', async () => {
    const owner = await account();
    await open(owner, spl);
    await open(owner, bond);
    const ops = (splFlags: Record<string, boolean>) => [
      { mint: { mintTo: at(owner, spl), value: { amount: 1 }, ...splFlags } },
      { mint: { mintTo: at(owner, bond), value: { amount: 1 } } },
    ];
    const refused = await trade({ freeze: true, operations: ops({}) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.freeze' });
    const done = await trade({ freeze: true, operations: ops({ freeze: false }) });
    expect(done.body).toMatchObject({ success: true });
    expect((await details(owner, bond)).frozen).toBe(true);
    expect((await details(owner, spl)).frozen).toBe(false);
    // Frozen now: moving it needs unfreeze, given at the trade level this time.
    const frozen = await trade({ operations: [{ mint: { mintTo: at(owner, bond), value: { amount: 1 } } }] });
    expect(frozen.body.errors[0]).toMatchObject({ code: 'POSITION_FROZEN', field: 'itemData.operations[0].mint.mintTo' });
    expect((await trade({ unfreeze: true, operations: [{ mint: { mintTo: at(owner, bond), value: { amount: 1 } } }] })).body).toMatchObject({ success: true });
    expect((await details(owner, bond)).frozen).toBe(false);
    expect(await units(owner, bond)).toBe(200);
  });

  it('thaws a position once and freezes it after the last operation that moves it', async () => {
    const [a, b, c] = [await account(), await account(), await account()];
    for (const owner of [a, b, c]) await open(owner, bond);
    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(a, bond), value: { amount: 5 }, freeze: true } })).body).toMatchObject({
      success: true,
    });
    const split = await trade({
      unfreeze: true,
      operations: [b, c].map((to) => ({ transfer: { source: at(a, bond), destination: at(to, bond), value: { amount: 1 } } })),
    });
    expect(split.body).toMatchObject({ success: true });
    expect((await details(a, bond)).frozen).toBe(false);
    const twice = await trade({ freeze: true, operations: [0, 1].map(() => ({ mint: { mintTo: at(b, bond), value: { amount: 1 } } })) });
    expect(twice.body).toMatchObject({ success: true });
    expect((await details(b, bond)).frozen).toBe(true);
    const onchain = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(b, bond) } })).body.onchain;
    expect(onchain.frozen).toBe(true);
    expect(await units(a, bond)).toBe(300);
    expect(await units(b, bond)).toBe(300);
    expect(await units(c, bond)).toBe(100);
  });

  it('answers TRANSACTION_TOO_LARGE when the operations do not fit one transaction, and refuses entries holding two kinds', async () => {
    const owner = await account();
    await open(owner, spl);
    const many = Array.from({ length: 40 }, (_, i) => ({
      mint: { mintTo: at(owner, spl), value: { lamports: String(i + 1) }, memo: `lot ${i} of a long series of lots` },
    }));
    const tooLarge = await trade({ operations: many });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors[0].code).toBe('TRANSACTION_TOO_LARGE');
    const two = await trade({
      operations: [{ mint: { mintTo: at(owner, spl), value: { amount: 1 } }, burn: { burnFrom: at(owner, spl), value: { amount: 1 } } }],
    });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].field).toBe('itemData.operations[0]');
    expect(await units(owner, spl)).toBe(0);
  });
});

describe('paused instruments', () => {
  it('refuses every movement of a paused instrument before anything is signed, and moves again once unpaused', async () => {
    const byAuthority = { offchainId: authority.offchainId };
    const token = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'TOKEN_2022',
          onchainData: { decimals: 0 },
          mintAuthority: byAuthority,
          pausableAuthority: byAuthority,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'ETF' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    const [alice, bob] = [await account(), await account()];
    await open(alice, token);
    await open(bob, token);
    expect((await mint(alice, token, '10')).body).toMatchObject({ success: true });
    expect((await stack.call('PATCH', '/api/v1/financial-instruments/pause', { itemData: { financialInstrument: { onchainId: token } } })).body).toMatchObject({
      success: true,
    });
    const refusedMint = await mint(alice, token, '1');
    expect(refusedMint.status).toBe(400);
    expect(refusedMint.body.errors[0].field).toBe('itemData.mintTo.financialInstrument');
    const refusedTransfer = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(alice, token), destination: at(bob, token), value: { amount: 1 } },
    });
    expect(refusedTransfer.body.errors[0].field).toBe('itemData.source.financialInstrument');
    const refusedBurn = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: at(alice, token), value: { amount: 1 } } });
    expect(refusedBurn.body.errors[0].field).toBe('itemData.burnFrom.financialInstrument');
    const refusedTrade = await trade({ operations: [{ transfer: { source: at(alice, token), destination: at(bob, token), value: { amount: 1 } } }] });
    expect(refusedTrade.body.errors[0].field).toBe('itemData.operations[0].transfer.source.financialInstrument');
    expect(await units(alice, token)).toBe(10);
    expect(
      (await stack.call('PATCH', '/api/v1/financial-instruments/unpause', { itemData: { financialInstrument: { onchainId: token } } })).body,
    ).toMatchObject({ success: true });
    expect(
      (await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(alice, token), destination: at(bob, token), value: { amount: 1 } } }))
        .body,
    ).toMatchObject({ success: true });
    expect(await units(bob, token)).toBe(1);
  });
});

describe('Scaled UI Amount', () => {
  it('answers the balance with the UI amount wallets show (times the multiplier)', async () => {
    const byAuthority = { offchainId: authority.offchainId };
    const token = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'TOKEN_2022',
          onchainData: { decimals: 2 },
          mintAuthority: byAuthority,
          scaledUiAmountAuthority: byAuthority,
          scaledUiAmountMultiplier: 1.5,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    const owner = await account();
    await open(owner, token);
    expect((await mint(owner, token, '333')).body).toMatchObject({ success: true });
    const body = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, token) } })).body;
    expect(body.onchain).toMatchObject({ balance: { amount: 3.33, lamports: 333 }, uiAmount: 4.995 });
    expect(body.offchain.uiAmount).toBe(4.995);
  });
});

describe('permanent delegate and destination initialization', () => {
  it('moves and burns units of an owner the service cannot sign for, with the permanent delegate', async () => {
    const [holder, collector] = [await nonManaged(), await account()];
    await open(holder, bond);
    await open(collector, bond);
    expect((await mint(holder, bond, '1000')).body).toMatchObject({ success: true });
    // As the owner: the service does not hold its key, so the write waits for its signature (docs/signatures.md); cancelled here.
    const asOwner = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(holder, bond), destination: at(collector, bond), value: { amount: 1 } },
    });
    expect(asOwner.status).toBe(202);
    expect(asOwner.body.transaction.status).toBe('AWAITING_SIGNATURES');
    expect(
      (await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: asOwner.body.transaction.offchainId } } })).status,
    ).toBe(200);
    const moved = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: {
        source: at(holder, bond),
        destination: at(collector, bond),
        value: { amount: 4 },
        signWithPermanentDelegate: true,
        permanentDelegateAuthority: { offchainId: authority.offchainId },
      },
    });
    expect(moved.body).toMatchObject({ success: true });
    const burned = await stack.call('POST', '/api/v1/positions/burn', {
      itemData: { burnFrom: at(holder, bond), value: { amount: 1 }, signWithPermanentDelegate: true },
    });
    expect(burned.body).toMatchObject({ success: true });
    expect(await units(holder, bond)).toBe(500);
    expect(await units(collector, bond)).toBe(400);
    const wrongDelegate = await stack.call('POST', '/api/v1/positions/burn', {
      itemData: {
        burnFrom: at(holder, bond),
        value: { amount: 1 },
        signWithPermanentDelegate: true,
        permanentDelegateAuthority: { offchainId: collector.offchainId },
      },
    });
    expect(wrongDelegate.body.errors[0].field).toBe('itemData.permanentDelegateAuthority');
  });

  it("waits for the source owner's signature when its lookup says autoSign: false, and lands once Sign is called", async () => {
    const [from, to] = [await account(), await account()];
    await open(from, spl);
    await open(to, spl);
    expect((await mint(from, spl, '5000')).body).toMatchObject({ success: true });
    const source = { owner: { offchainId: from.offchainId, autoSign: false }, financialInstrument: { onchainId: spl } };
    const waiting = await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source, destination: at(to, spl), value: { lamports: '1200' } } });
    expect(waiting.status).toBe(202);
    expect(waiting.body.transaction.status).toBe('AWAITING_SIGNATURES');
    expect(await units(from, spl)).toBe(5000);
    const signed = await stack.call('POST', '/api/v1/transactions/sign', { itemData: { transaction: { offchainId: waiting.body.transaction.offchainId } } });
    expect(signed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId: waiting.body.transaction.offchainId });
    expect(await units(from, spl)).toBe(3800);
    expect(await units(to, spl)).toBe(1200);
  });

  it('refuses the permanent delegate for an instrument without one', async () => {
    const owner = await account();
    await open(owner, spl);
    const refused = await stack.call('POST', '/api/v1/positions/burn', {
      itemData: { burnFrom: at(owner, spl), burnEntireBalance: true, signWithPermanentDelegate: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.signWithPermanentDelegate');
  });

  it('opens the destination position in the same transfer with initializeDestinationPositionIfNeeded', async () => {
    const [alice, newcomer] = [await account(), await account()];
    await open(alice, spl);
    expect((await mint(alice, spl, '2000000')).body).toMatchObject({ success: true });
    const transfer = (extra: Record<string, unknown>) =>
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: at(alice, spl), destination: at(newcomer, spl), value: { amount: 0.75 }, ...extra },
      });
    const missing = await transfer({});
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].field).toBe('itemData.destination');
    expect((await transfer({ initializeDestinationPositionIfNeeded: true })).body).toMatchObject({ success: true });
    expect(await details(newcomer, spl)).toMatchObject({ status: 'ACTIVE', associated: true, owner: { onchain: { id: newcomer.onchainId } } });
    expect(await units(newcomer, spl)).toBe(750_000);
    // Already open: the flag is harmless.
    expect((await transfer({ initializeDestinationPositionIfNeeded: true })).body).toMatchObject({ success: true });
    expect(await units(newcomer, spl)).toBe(1_500_000);
    expect(await units(alice, spl)).toBe(500_000);
    // Only the owner's associated account is opened on the way: a named account that is not a position is 404.
    const named = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: {
        source: at(alice, spl),
        destination: { position: { onchainId: newcomer.onchainId }, ...at(newcomer, spl) },
        value: { amount: 0.1 },
        initializeDestinationPositionIfNeeded: true,
      },
    });
    expect(named.status).toBe(404);
    expect(named.body.errors[0].field).toBe('itemData.destination');
  });
});

describe('idempotency ids', () => {
  it('name one write per organization: another operation with the same id is 409 and moves nothing', async () => {
    const owner = await account();
    await open(owner, spl);
    const idempotencyId = randomUUID();
    expect(
      (await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, spl), value: { amount: 2 }, idempotencyId } })).body,
    ).toMatchObject({ success: true });
    const burn = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: at(owner, spl), value: { amount: 1 }, idempotencyId } });
    expect(burn.status).toBe(409);
    expect(burn.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.idempotencyId' });
    const traded = await trade({ idempotencyId, operations: [{ mint: { mintTo: at(owner, spl), value: { amount: 1 } } }] });
    expect(traded.status).toBe(409);
    // The same operation with another request is refused too; the same request (keys in any order) gets the first result.
    const other = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, spl), value: { amount: 7 }, idempotencyId } });
    expect(other.status).toBe(409);
    expect(other.body.errors[0].message).toContain('another MINT request');
    const repeat = await stack.call('POST', '/api/v1/positions/mint', { itemData: { idempotencyId, value: { amount: 2 }, mintTo: at(owner, spl) } });
    expect(repeat.body).toMatchObject({ success: true });
    expect(await units(owner, spl)).toBe(2_000_000);
  });

  it('a request and its respond-async duplicate racing name the same transaction, which moves once', async () => {
    const owner = await account();
    await open(owner, spl);
    const itemData = { mintTo: at(owner, spl), value: { amount: 3 }, idempotencyId: randomUUID() };
    const [sync, queued] = await Promise.all([
      stack.call('POST', '/api/v1/positions/mint', { itemData }),
      stack.call('POST', '/api/v1/positions/mint', { itemData }, { headers: { prefer: 'respond-async' } }),
    ]);
    expect(sync.body).toMatchObject({ success: true });
    expect(queued.status).toBe(202);
    expect(queued.body.transaction.offchainId).toBe(sync.body.offchainId);
    const status = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: sync.body.offchainId } } });
    expect(status.body).toMatchObject({ success: true });
    expect(['CONFIRMED', 'FINALIZED']).toContain(status.body.status);
    expect(await units(owner, spl)).toBe(3_000_000);
  });
});

describe('racing writes that open one position', () => {
  it('several transfers opening the same destination at once all land, and the record matches the chain', async () => {
    const newcomer = await account();
    const sources = [await account(), await account(), await account(), await account()];
    for (const source of sources) {
      await open(source, spl);
      expect((await mint(source, spl, '1000000')).body).toMatchObject({ success: true });
    }
    const results = await Promise.all(
      sources.map((source) =>
        stack.call('POST', '/api/v1/positions/transfer', {
          itemData: { source: at(source, spl), destination: at(newcomer, spl), value: { amount: 1 }, initializeDestinationPositionIfNeeded: true },
        }),
      ),
    );
    expect(results.map((r) => r.body.success)).toEqual([true, true, true, true]);
    expect(await units(newcomer, spl)).toBe(4_000_000);
    for (const source of sources) expect(await units(source, spl)).toBe(0);
  });
});

describe('one trade opening one destination twice', () => {
  it('creates and thaws it once, and both transfers land', async () => {
    const byAuthority = { offchainId: authority.offchainId };
    const token = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'TOKEN_2022',
          onchainData: { decimals: 0 },
          mintAuthority: byAuthority,
          freezeAuthority: byAuthority,
          defaultPositionState: 'FROZEN',
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'LOAN' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    const [a, b, newcomer] = [await account(), await account(), await account()];
    for (const owner of [a, b]) {
      expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, token), unfreeze: true } })).status).toBe(201);
      expect((await mint(owner, token, '5')).body).toMatchObject({ success: true });
    }
    const legs = [a, b].map((from) => ({
      transfer: {
        source: at(from, token),
        destination: at(newcomer, token),
        value: { amount: 2 },
        initializeDestinationPositionIfNeeded: true,
        unfreezeDestination: true,
      },
    }));
    expect((await trade({ operations: legs })).body).toMatchObject({ success: true });
    expect(await units(newcomer, token)).toBe(4);
    expect((await details(newcomer, token)).frozen).toBe(false);
  });
});

describe('transfer-hook instruments', () => {
  const hooked = async (program: string) =>
    (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'TOKEN_2022',
          onchainData: { decimals: 0 },
          mintAuthority: { offchainId: authority.offchainId },
          transferHookAuthority: { offchainId: authority.offchainId },
          transferHookProgram: { onchainId: program, offPlatform: true },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'PRIVATE_FUND' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;

  it('transfers through the hook program, which the network calls with the accounts the service resolved', async () => {
    const token = await hooked(hooks.pass);
    const [alice, bob] = [await account(), await account()];
    await open(alice, token);
    expect((await mint(alice, token, '10')).body).toMatchObject({ success: true });
    const moved = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(alice, token), destination: at(bob, token), value: { amount: 3 }, initializeDestinationPositionIfNeeded: true },
    });
    expect(moved.body).toMatchObject({ success: true });
    expect(await units(alice, token)).toBe(7);
    expect(await units(bob, token)).toBe(3);
  });

  it("a hook's refusal fails the transfer and leaves the records as they were", async () => {
    const token = await hooked(hooks.refuse);
    const [alice, bob] = [await account(), await account()];
    await open(alice, token);
    await open(bob, token);
    expect((await mint(alice, token, '10')).body).toMatchObject({ success: true });
    const refused = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(alice, token), destination: at(bob, token), value: { amount: 3 } },
    });
    expect(refused.body).toMatchObject({ success: false, status: 'FAILED' });
    expect(await units(alice, token)).toBe(10);
    expect(await units(bob, token)).toBe(0);
  });
});

describe('Inactivate Position', () => {
  const inactivate = (itemData: Record<string, unknown>) => stack.call('PATCH', '/api/v1/positions/inactivate', { itemData });
  const lamportsOf = async (ref: Ref) =>
    (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body.onchain.balance.lamports as number;

  it('needs the remaining balance burned or moved; burns it, closes the account and refunds the rent to the destination', async () => {
    const [owner, refund] = [await account(), await account()];
    await open(owner, spl);
    expect((await mint(owner, spl, '1234')).body).toMatchObject({ success: true });
    const refused = await inactivate({ positionToInactivate: at(owner, spl) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.burnRemainingTokenBalance');
    const before = await lamportsOf(refund);
    const closed = await inactivate({
      positionToInactivate: at(owner, spl),
      burnRemainingTokenBalance: true,
      refundNetworkCurrrencyDestination: { offchainId: refund.offchainId },
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ success: true });
    expect((await lamportsOf(refund)) - before).toBe((128 + 165) * 6960);
    const balance = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, spl) } })).body;
    expect(balance.onchain.exists).toBe(false);
    expect(await details(owner, spl)).toMatchObject({ status: 'INACTIVE', offchain: { balance: { lamports: 0 } } });
    expect((await inactivate({ positionToInactivate: at(owner, spl) })).body.errors[0].field).toBe('itemData.positionToInactivate');

    // Initialize Position reopens it: the same record, active again.
    const reopened = await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, spl) } });
    expect(reopened.status).toBe(201);
    const reopenedDetails = await details(owner, spl);
    expect(reopenedDetails.status).toBe('ACTIVE');
    expect(reopened.body.newPosition.offchainId).toBe(reopenedDetails.offchain.id);
    expect(await units(owner, spl)).toBe(0);
  });

  it('moves the remaining balance, thawing a frozen Token-2022 position with unfreezeIfNeeded', async () => {
    const [owner, heir] = [await account(), await account()];
    await open(owner, bond);
    await open(heir, bond);
    expect(
      (await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, bond), value: { amount: 3 }, freeze: true } })).body,
    ).toMatchObject({ success: true });
    expect((await details(owner, bond)).frozen).toBe(true);
    const frozen = await inactivate({ positionToInactivate: at(owner, bond), transferRemainingTokenBalanceTo: at(heir, bond) });
    expect(frozen.body.errors[0]).toMatchObject({ code: 'POSITION_FROZEN', field: 'itemData.unfreezeIfNeeded' });
    const done = await inactivate({
      positionToInactivate: at(owner, bond),
      transferRemainingTokenBalanceTo: at(heir, bond),
      unfreezeIfNeeded: true,
      refundNetworkCurrrencyToFeePayer: true,
    });
    expect(done.body).toMatchObject({ success: true });
    expect(await units(heir, bond)).toBe(300);
    expect(await details(owner, bond)).toMatchObject({ status: 'INACTIVE', frozen: false });
  });

  it('an SPL position needs no balance option when empty, and cannot be thawed by unfreezeIfNeeded', async () => {
    const owner = await account();
    await open(owner, spl);
    await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position: at(owner, spl) } });
    const refused = await inactivate({ positionToInactivate: at(owner, spl), unfreezeIfNeeded: true });
    expect(refused.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.unfreezeIfNeeded' });
    await stack.call('PATCH', '/api/v1/positions/unfreeze', { itemData: { position: at(owner, spl) } });
    expect((await inactivate({ positionToInactivate: at(owner, spl) })).body).toMatchObject({ success: true });
  });
});

describe('token debit limits (spec 8, per instrument in its units)', () => {
  it('defaults: NON_MANAGED 1 per transaction, OFF_PLATFORM 0, MANAGED unlimited; burns are not limited', async () => {
    const [wallet, managed, holder] = [await account(), await account(), await nonManaged()];
    await open(wallet, spl);
    await open(managed, spl);
    await open(holder, spl);
    expect((await mint(wallet, spl, '100000000')).body).toMatchObject({ success: true });
    const send = (to: Ref, lamports: string) =>
      stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(wallet, spl), destination: at(to, spl), value: { lamports } } });
    expect((await send(holder, '1000000')).body).toMatchObject({ success: true });
    const over = await send(holder, '1000001');
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: { destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1' } },
    });
    // Two transfers in one trade count together against the per-transaction limit.
    const split = await trade({
      operations: [0, 1].map(() => ({ transfer: { source: at(wallet, spl), destination: at(holder, spl), value: { amount: 0.6 } } })),
    });
    expect(split.body.errors[0].code).toBe('LIMIT_EXCEEDED');
    // NON_MANAGED has no 24-hour limit: a second full transfer in the same day passes.
    expect((await send(holder, '1000000')).body).toMatchObject({ success: true });
    expect((await send(managed, '50000000')).body).toMatchObject({ success: true });

    const stranger = { onchainId: await getAddressFromPublicKey((await generateKeyPair()).publicKey), offPlatform: true };
    const opened = await stack.call('POST', '/api/v1/positions', {
      itemData: { positionToInitialize: { owner: stranger, financialInstrument: { onchainId: spl } } },
    });
    expect(opened.status).toBe(201);
    const offPlatform = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(wallet, spl), destination: { position: { offchainId: opened.body.newPosition.offchainId } }, value: { lamports: '1' } },
    });
    expect(offPlatform.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { destination: 'OFF_PLATFORM' } });
    expect((await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: at(wallet, spl), value: { amount: 20 } } })).body).toMatchObject({
      success: true,
    });
    expect(await units(wallet, spl)).toBe(100_000_000 - 2_000_000 - 50_000_000 - 20_000_000);
    expect(await units(holder, spl)).toBe(2_000_000);
  });

  it('a configured rolling window holds against concurrent transfers', async () => {
    const wallet = await account({
      managed: true,
      tokenDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '10', duration: { code: 'DAYS', unit: 1 } } }],
    });
    const [a, b, c] = [await account(), await account(), await account()];
    for (const owner of [wallet, a, b, c]) await open(owner, spl);
    expect((await mint(wallet, spl, '100000000')).body).toMatchObject({ success: true });
    const send = (to: Ref, amount: number) =>
      stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(wallet, spl), destination: at(to, spl), value: { amount } } });
    const results = await Promise.all([send(a, 4), send(b, 4), send(c, 4)]);
    expect(results.filter((r) => r.status === 201 && r.body.success)).toHaveLength(2);
    const refused = results.find((r) => r.status === 400)!;
    expect(refused.body.errors[0]).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: { destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '10' } },
    });
    // 8 of 10 used: 2 more pass, 2.000001 does not.
    expect((await send(a, 2.000001)).body.errors[0].code).toBe('LIMIT_EXCEEDED');
    expect((await send(a, 2)).body).toMatchObject({ success: true });
    expect(await units(wallet, spl)).toBe(90_000_000);
  });

  it('a window configured later counts what the wallet sent before it', async () => {
    const [wallet, to] = [await account(), await account()];
    await open(wallet, spl);
    await open(to, spl);
    expect((await mint(wallet, spl, '100000000')).body).toMatchObject({ success: true });
    const send = (amount: number) =>
      stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(wallet, spl), destination: at(to, spl), value: { amount } } });
    expect((await send(5)).body).toMatchObject({ success: true });
    const limits = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: 10, duration: { code: 'DAYS', unit: 1 } } }];
    expect((await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: wallet.offchainId }, tokenDebitLimits: limits } })).status).toBe(
      200,
    );
    expect((await send(5.000001)).body.errors[0].code).toBe('LIMIT_EXCEEDED');
    expect((await send(5)).body).toMatchObject({ success: true });
  });

  it("a limit naming its mint authority by a lookup holds that authority's instruments only, and shows the authority's address", async () => {
    const limits = [
      {
        destination: 'ANY',
        operationType: 'TRANSFER',
        mintAuthority: { offchainId: authority.offchainId },
        maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 3 },
      },
    ];
    const [wallet, to] = [await account({ managed: true, tokenDebitLimits: limits }), await account()];
    const stored = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: wallet.offchainId } } });
    expect(stored.body.tokenDebitLimits).toEqual([
      { ...limits[0], mintAuthority: authority.onchainId, maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '3' } },
    ]);
    const otherAuthority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const other = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 6 },
          mintAuthority: { offchainId: otherAuthority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    for (const token of [spl, other]) {
      await open(wallet, token);
      await open(to, token);
      expect((await mint(wallet, token, '10000000')).body).toMatchObject({ success: true });
    }
    const send = (token: string, amount: number) =>
      stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(wallet, token), destination: at(to, token), value: { amount } } });
    const over = await send(spl, 4);
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { mintAuthority: authority.onchainId } });
    expect((await send(spl, 3)).body).toMatchObject({ success: true });
    // Another authority's instrument: this limit does not govern it (MANAGED destinations have no default limit).
    expect((await send(other, 4)).body).toMatchObject({ success: true });
    // A lookup naming no account is refused when the limit is set.
    const unknown = await stack.call('PATCH', '/api/v1/accounts', {
      itemData: { account: { offchainId: wallet.offchainId }, tokenDebitLimits: [{ ...limits[0], mintAuthority: { offchainId: randomUUID() } }] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].field).toBe('itemData.tokenDebitLimits.0.mintAuthority');
  });

  it('a transfer the chain refuses gives its share of the window back', async () => {
    const limits = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '10', duration: { code: 'HOURS', unit: 24 } } }];
    const [wallet, to] = [await account({ managed: true, tokenDebitLimits: limits }), await account()];
    await open(wallet, spl);
    await open(to, spl);
    expect((await mint(wallet, spl, '1000000')).body).toMatchObject({ success: true });
    const em = forkEm(stack.runtime.orm);
    const record = await em.findOneOrFail(Position, { ownerAddress: wallet.onchainId, mintAddress: spl });
    record.balance = '100000000';
    await em.flush();
    const send = (amount: number) =>
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: at(wallet, spl), destination: at(to, spl), value: { amount }, offchainBalanceAvailabilityPrecheck: true },
      });
    // Passes the limit (2 of 10) and the offchain precheck, but the chain holds only 1.
    expect((await send(2)).body).toMatchObject({ success: false });
    expect((await mint(wallet, spl, '99000000')).body).toMatchObject({ success: true });
    expect((await send(10)).body).toMatchObject({ success: true });
    expect((await send(0.000001)).body.errors[0].code).toBe('LIMIT_EXCEEDED');
  });
});

describe('shape before lookup', () => {
  it('a negative amount is refused as 400 naming the field, even when the positions named do not exist', async () => {
    const nobody = { owner: { offchainId: randomUUID() }, financialInstrument: { onchainId: spl } };
    for (const [route, itemData, field] of [
      ['/api/v1/positions/transfer', { source: nobody, destination: nobody, value: { amount: -1 } }, 'itemData.value.amount'],
      ['/api/v1/positions/mint', { mintTo: nobody, value: { amount: '-0.5' } }, 'itemData.value.amount'],
      ['/api/v1/positions/trade', { operations: [{ burn: { burnFrom: nobody, value: { amount: -2 } } }] }, 'itemData.operations.0.burn.value.amount'],
    ] as const) {
      const answer = await stack.call('POST', route, { itemData });
      expect({ route, status: answer.status, field: answer.body.errors?.[0]?.field }).toEqual({ route, status: 400, field });
    }
    // The same body with a valid amount reaches the lookup, which does not find the position.
    const missing = await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: nobody, destination: nobody, value: { amount: 1 } } });
    expect(missing.status).toBe(404);
  });
});
