/**
 * Who may debit and who pays (issue 11 section 2, docs/custody-policy.md) on the real stack: debit
 * API keys both ways, an organization's fee payer (globalFeePayerForOrgs) and canPayFees, and
 * instruments and accounts shared across tenants with two organizations.
 */
import { randomBytes } from 'node:crypto';
import { Organization } from '../../src/db/entities';
import { createApiKey } from '../../src/custody/credentials';
import { roleNames } from '../../src/domain/roles';
import { forkEm } from '../../src/main/runtime';
import { accountOwnerOnlyFields } from '../../src/domain/responses/account.responses';
import { startStack, type Stack } from '../support/stack';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const writer = roleNames.filter((r) => r !== 'ADMIN');
const org = () => `org-${randomBytes(4).toString('hex')}`;

/** Another API key of the stack's organization, with its id as the admin CLI prints it. */
async function ownKey(): Promise<{ apiKey: string; id: string }> {
  const em = forkEm(stack.runtime.orm);
  const organization = await em.findOneOrFail(Organization, { externalId: stack.organizationExternalId });
  return createApiKey(em, organization, [...writer], stack.config.platformName);
}

const as = (apiKey?: string) => (method: string, path: string, body?: unknown) => stack.call(method, path, body, apiKey ? { apiKey } : {});

async function account(itemData: Record<string, unknown>, apiKey?: string): Promise<Ref> {
  const created = await as(apiKey)('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount as Ref;
}

/** Lamports on chain, after checking that the record agrees. */
async function lamports(ref: Ref, apiKey?: string): Promise<number> {
  const { body } = await as(apiKey)('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports as number;
}

const sendLamports = (source: Record<string, unknown>, destination: Ref, amount: number, apiKey?: string) =>
  as(apiKey)('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source, destination: { offchainId: destination.offchainId }, value: { lamports: String(amount) } },
  });

describe('debit API keys', () => {
  it('lets only the listed API key debit network currency; another key gets 403 naming the source and nothing moves', async () => {
    const allowed = await ownKey();
    const wallet = await account({ managed: true, seed: { lamports: 50_000_000 }, networkCurrencyDebitApiKeys: [allowed.id] });
    const payee = await account({ managed: true });
    const before = await lamports(wallet);

    const refused = await sendLamports({ offchainId: wallet.offchainId }, payee, 1_000_000);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.source' });
    expect(await lamports(wallet)).toBe(before);

    const sent = await sendLamports({ offchainId: wallet.offchainId }, payee, 1_000_000, allowed.apiKey);
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ success: true });
    expect(await lamports(wallet)).toBe(before - 1_000_000);
  });

  it('lets only the listed API key transfer or burn tokens; network currency of the same account stays open to any key', async () => {
    const allowed = await ownKey();
    const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const mint = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 2 },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    const holder = await account({ managed: true, seed: { lamports: 20_000_000 }, tokenDebitApiKeys: [allowed.id] });
    const other = await account({ managed: true });
    const at = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
    for (const owner of [holder, other])
      expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner) } })).status).toBe(201);
    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(holder), value: { lamports: '1000' } } })).body).toMatchObject({
      success: true,
    });
    const units = async (owner: Ref) =>
      (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner) } })).body.onchain.balance.lamports as number;

    const transfer = { source: at(holder), destination: at(other), value: { lamports: '300' } };
    const refused = await stack.call('POST', '/api/v1/positions/transfer', { itemData: transfer });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.source' });
    const burn = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: at(holder), value: { lamports: '1' } } });
    expect(burn.status).toBe(403);
    expect(burn.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.burnFrom' });
    expect(await units(holder)).toBe(1000);

    expect((await as(allowed.apiKey)('POST', '/api/v1/positions/transfer', { itemData: transfer })).body).toMatchObject({ success: true });
    expect([await units(holder), await units(other)]).toEqual([700, 300]);
    // Only tokenDebitApiKeys is set: its network currency moves with any key.
    expect((await sendLamports({ offchainId: holder.offchainId }, other, 1_000_000)).body).toMatchObject({ success: true });
  });
});

describe('fee payers', () => {
  it("pays an organization's writes that name no fee payer with the account listing it in globalFeePayerForOrgs", async () => {
    const x = org();
    const xKey = await stack.newApiKey(x, [...writer]);
    // Held by the stack's organization, paying for organization x.
    const payer = await account({ managed: true, canPayFees: true, globalFeePayerForOrgs: [x], seed: { lamports: 50_000_000 } });
    const before = await lamports(payer);
    const created = await as(xKey)('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 2_000_000 } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ svmTransaction: { success: true } });
    expect(await lamports(payer)).toBe(before - 2_000_000 - 2 * 5000);
    // The stack's own organization is not listed: its writes leave the payer alone.
    await account({ managed: true, seed: { lamports: 1_000_000 } });
    expect(await lamports(payer)).toBe(before - 2_000_000 - 2 * 5000);
  });

  it('respects canPayFees: a listed account that may not pay fees pays nothing, and is refused when named', async () => {
    const y = org();
    const yKey = await stack.newApiKey(y, [...writer]);
    const notPayer = await account({ managed: true, canPayFees: false, globalFeePayerForOrgs: [y], seed: { lamports: 10_000_000 } });
    const before = await lamports(notPayer);
    expect((await as(yKey)('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 1_000_000 } } })).status).toBe(201);
    expect(await lamports(notPayer)).toBe(before);

    const refused = await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: true },
      svmTransactionConfig: { feePayer: { offchainId: notPayer.offchainId } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('svmTransactionConfig.feePayer');
  });
});

describe('sharing across tenants', () => {
  it('lets another organization open positions of a shared instrument and mint with a shared authority; the unshared stay invisible', async () => {
    const b = org();
    const bKey = await stack.newApiKey(b, [...writer]);
    const home = stack.organizationExternalId;
    // The authority is shared with b and b may sign with its key.
    const authority = await account({
      managed: true,
      offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' },
      shareAcrossTenants: true,
      orgsAllowedToSignWithPrivateKey: [b],
    });
    const instrument = async (shareAcrossTenants: boolean) =>
      (
        await stack.call('POST', '/api/v1/financial-instruments', {
          itemData: {
            version: 'SPL',
            onchainData: { decimals: 0 },
            mintAuthority: { offchainId: authority.offchainId },
            shareAcrossTenants,
            mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
          },
        })
      ).body.newFinancialInstrument as Ref;
    const shared = await instrument(true);
    const own = await instrument(false);

    const alice = await account({ managed: true }, bKey);
    const bob = await account({ managed: true }, bKey);
    const at = (owner: Ref, mint: Ref, tenant?: string) => ({
      owner: { offchainId: owner.offchainId },
      financialInstrument: { onchainId: mint.onchainId, ...(tenant ? { otherTenantOrganizationExternalId: tenant } : {}) },
    });
    const open = (owner: Ref, mint: Ref, tenant?: string) =>
      as(bKey)('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, mint, tenant) } });

    // Without naming the other tenant nothing is found; the unshared instrument is invisible even when named.
    for (const refused of [await open(alice, shared), await open(alice, own, home)]) {
      expect(refused.status).toBe(404);
      expect(refused.body.errors[0].field).toBe('itemData.positionToInitialize.financialInstrument');
    }
    expect((await open(alice, shared, home)).status).toBe(201);
    expect((await open(bob, shared, home)).status).toBe(201);

    // b mints with the shared authority's key and moves the units between its own positions.
    const minted = await as(bKey)('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(alice, shared, home), value: { lamports: '10' } } });
    expect(minted.body).toMatchObject({ success: true });
    const moved = await as(bKey)('POST', '/api/v1/positions/transfer', {
      itemData: { source: at(alice, shared, home), destination: at(bob, shared, home), value: { lamports: '4' } },
    });
    expect(moved.body).toMatchObject({ success: true });
    const units = async (owner: Ref) =>
      (await as(bKey)('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, shared, home) } })).body.onchain.balance.lamports as number;
    expect([await units(alice), await units(bob)]).toEqual([6, 4]);

    // Shared is usable, not b's to change: Update Financial Instrument (offchain fields need no signature) is 403, nothing changed.
    const changed = await as(bKey)('PATCH', '/api/v1/financial-instruments', {
      itemData: { financialInstrument: { onchainId: shared.onchainId, otherTenantOrganizationExternalId: home }, comments: 'changed by b' },
    });
    expect(changed.status).toBe(403);
    expect(changed.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.financialInstrument' });
    const details = await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { offchainId: shared.offchainId } } });
    expect(details.body.comments).toBeNull();

    // The home organization's records stay invisible to b: its unshared account and b's view of the instrument's owner.
    const payee = await account({ managed: true });
    const seen = await as(bKey)('POST', '/api/v1/accounts/single', {
      itemData: { account: { offchainId: payee.offchainId, otherTenantOrganizationExternalId: home } },
    });
    expect(seen.status).toBe(404);
    const plain = await as(bKey)('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: payee.offchainId } } });
    expect(plain.status).toBe(404);
  });

  it('lets an organization listed in orgsAllowedToSignWithPrivateKey debit a shared account', async () => {
    const c = org();
    const cKey = await stack.newApiKey(c, [...writer]);
    const wallet = await account({ managed: true, seed: { lamports: 10_000_000 }, shareAcrossTenants: true, orgsAllowedToSignWithPrivateKey: [c] });
    const payee = await account({ managed: true }, cKey);
    const before = await lamports(wallet);
    const sent = await sendLamports({ offchainId: wallet.offchainId, otherTenantOrganizationExternalId: stack.organizationExternalId }, payee, 1_000_000, cKey);
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(await lamports(wallet)).toBe(before - 1_000_000);
  });
});

describe('what another tenant sees of a shared account', () => {
  it("leaves the owner's configuration out of the account record, wherever it is shown to another organization", async () => {
    const b = org();
    const third = org();
    const bKey = await stack.newApiKey(b, [...writer]);
    const home = stack.organizationExternalId;
    const approver = await ownKey();
    const limits = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 5, approversForOverride: [approver.id] } }];
    // Shared with b, signing for b and a third organization, paying fees for the third, with debit keys and approvers of its own.
    // A wallet (debit limits apply only to wallets) that is also the instrument's authorities.
    const authority = await account({
      managed: true,
      shareAcrossTenants: true,
      networkCurrencyDebitLimits: limits,
      tokenDebitLimits: limits,
      canPayFees: true,
      orgsAllowedToSignWithPrivateKey: [b, third],
      globalFeePayerForOrgs: [third],
      networkCurrencyDebitApiKeys: [approver.id],
      tokenDebitApiKeys: [approver.id],
    });
    const shared = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 0 },
          mintAuthority: { offchainId: authority.offchainId },
          shareAcrossTenants: true,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument as Ref;

    // The owner sees everything.
    const own = (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: authority.offchainId } } })).body;
    expect(own).toMatchObject({
      orgsAllowedToSignWithPrivateKey: [b, third],
      globalFeePayerForOrgs: [third],
      solDebitApiKeys: [approver.id],
      tokenDebitApiKeys: [approver.id],
    });
    expect(own.networkCurrencyDebitLimits[0].maxAllowedDebit.approversForOverride).toEqual([approver.id]);
    for (const field of accountOwnerOnlyFields) expect(own).toHaveProperty(field);

    // b sees the shared account and the instrument's authority records without them.
    const named = { offchainId: authority.offchainId, otherTenantOrganizationExternalId: home };
    const seen = await as(bKey)('POST', '/api/v1/accounts/single', { itemData: { account: named } });
    expect(seen.status).toBe(200);
    const instrument = await as(bKey)('POST', '/api/v1/financial-instruments/single', {
      itemData: { financialInstrument: { offchainId: shared.offchainId, otherTenantOrganizationExternalId: home } },
    });
    expect(instrument.status).toBe(200);
    const records = { 'Fetch Account Details': seen.body, mintAuthority: instrument.body.mintAuthority, mintAccount: instrument.body.mintAccount };
    for (const [where, record] of Object.entries(records)) {
      expect([where, record.onchain.id]).toEqual([where, where === 'mintAccount' ? shared.onchainId : authority.onchainId]);
      expect([where, accountOwnerOnlyFields.filter((field) => field in record)]).toEqual([where, []]);
      expect([where, JSON.stringify(record)]).toEqual([where, expect.not.stringContaining(third)]);
      expect([where, JSON.stringify(record)]).toEqual([where, expect.not.stringContaining(approver.id)]);
    }
    // What b may see stays: the record is the same account, shared, able to pay fees.
    expect(seen.body).toMatchObject({ sharedAcrossTenants: true, canPayFees: true, managed: true, offchain: { id: authority.offchainId } });

    // An instrument of b's own whose authority is the shared account (b may sign with it): b's bulk read nests the record, without the owner's configuration.
    const bInstrument = await as(bKey)('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 0 },
        mintAuthority: named,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    });
    expect(bInstrument.status).toBe(201);
    const page = await as(bKey)('POST', '/api/v1/financial-instruments/bulk/detailed', { itemQuery: { limit: 10 } });
    const nested = page.body.items.find(
      (i: { offchain: { id: string } }) => i.offchain.id === bInstrument.body.newFinancialInstrument.offchainId,
    ).mintAuthority;
    expect(nested.onchain.id).toBe(authority.onchainId);
    expect(accountOwnerOnlyFields.filter((field) => field in nested)).toEqual([]);
  });
});

describe('approvers for override', () => {
  it("refuses another organization's API key or an unknown id at Create and Update Account, naming the entry; nothing changes", async () => {
    const x = org();
    await stack.newApiKey(x, [...writer]);
    const em = forkEm(stack.runtime.orm);
    const other = await em.findOneOrFail(Organization, { externalId: x });
    const foreignId = (await createApiKey(em, other, ['APPROVE'], stack.config.platformName)).id;
    const approver = await ownKey();
    const limits = (ids: string[]) => [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1, approversForOverride: ids } }];

    const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, networkCurrencyDebitLimits: limits([approver.id, foreignId]) } });
    expect(created.status).toBe(400);
    expect(created.body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.approversForOverride.1',
    });

    const wallet = await account({ managed: true, networkCurrencyDebitLimits: limits([approver.id]) });
    for (const ids of [[foreignId], [approver.id, '3f2504e0-4f89-11d3-9a0c-0305e82c3301']]) {
      const updated = await stack.call('PATCH', '/api/v1/accounts', {
        itemData: { account: { offchainId: wallet.offchainId }, tokenDebitLimits: limits(ids) },
      });
      expect(updated.status).toBe(400);
      expect(updated.body.errors[0]).toMatchObject({
        code: 'VALIDATION_ERROR',
        field: `itemData.tokenDebitLimits.0.maxAllowedDebit.approversForOverride.${ids.length - 1}`,
      });
    }
    const kept = (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: wallet.offchainId } } })).body;
    expect(kept.tokenDebitLimits).toBeNull();
    expect(kept.networkCurrencyDebitLimits[0].maxAllowedDebit.approversForOverride).toEqual([approver.id]);
  });
});

describe("another tenant's position at the same address", () => {
  it("moves with the chain when the owner's organization mints and transfers, keeping its own last transaction", async () => {
    const b = org();
    const bKey = await stack.newApiKey(b, [...writer]);
    const home = stack.organizationExternalId;
    const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const shared = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 0 },
          mintAuthority: { offchainId: authority.offchainId },
          shareAcrossTenants: true,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument as Ref;
    const holder = await account({ managed: true });
    const payee = await account({ managed: true });
    const at = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: shared.onchainId } });
    for (const owner of [holder, payee])
      expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner) } })).status).toBe(201);
    // b keeps a record of the same token account: the holder's address is public, the instrument shared.
    const bAt = {
      owner: { offPlatform: true, onchainId: holder.onchainId },
      financialInstrument: { onchainId: shared.onchainId, otherTenantOrganizationExternalId: home },
    };
    const opened = await as(bKey)('POST', '/api/v1/positions', { itemData: { positionToInitialize: bAt } });
    expect(opened.status).toBe(201);
    const bPosition = opened.body.newPosition as Ref;
    expect(bPosition.onchainId).toBe((await stack.call('POST', '/api/v1/positions/single', { itemData: { position: at(holder) } })).body.onchain.id);
    const bRecord = async () =>
      (await as(bKey)('POST', '/api/v1/positions/single', { itemData: { position: { position: { offchainId: bPosition.offchainId } } } })).body;
    const initial = await bRecord();

    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(holder), value: { lamports: '10' } } })).body).toMatchObject({
      success: true,
    });
    const afterMint = await bRecord();
    expect(afterMint.offchain.balance.lamports).toBe(10);
    expect(afterMint.onchain.lastTransactionAt > initial.onchain.lastTransactionAt).toBe(true);

    expect(
      (await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(holder), destination: at(payee), value: { lamports: '4' } } })).body,
    ).toMatchObject({ success: true });
    const afterTransfer = await bRecord();
    expect(afterTransfer.offchain.balance.lamports).toBe(6);
    // The writer's transactions are not b's to see: b's record still names its own last transaction.
    expect(afterTransfer.offchain.lastTransactionId).toBe(initial.offchain.lastTransactionId);
    const balance = (await as(bKey)('POST', '/api/v1/positions/balance', { itemData: { position: { position: { offchainId: bPosition.offchainId } } } })).body;
    expect(balance.offchain.balance.lamports).toBe(balance.onchain.balance.lamports);
    // The owner's records moved as before.
    const units = async (owner: Ref) =>
      (await stack.call('POST', '/api/v1/positions/single', { itemData: { position: at(owner) } })).body.offchain.balance.lamports as number;
    expect([await units(holder), await units(payee)]).toEqual([6, 4]);
  });
});
