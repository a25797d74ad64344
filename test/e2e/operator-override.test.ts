/**
 * tenancyConfig.overrideOrganizationExternalId is for the platform's operators (docs/tenancy.md): only
 * an ADMIN key of the organization named by OPERATOR_ORGANIZATION may act for another organization,
 * and then only with the operation's role held explicitly (ADMIN does not stand in for it, nor for a
 * role a handler checks itself). Any other key's override is 403 naming the field, whether or not the
 * organization exists. An operator's export of another organization's private key is audited with
 * the acting key, its organization and the organization acted for.
 */
import { randomBytes } from 'node:crypto';
import { getAddressFromPublicKey, generateKeyPair } from '@solana/kit';
import pino from 'pino';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { roleNames, type Role } from '../../src/domain/roles';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

const FIELD = 'tenancyConfig.overrideOrganizationExternalId';
const OPERATORS = `operators-${randomBytes(4).toString('hex')}`;
const lines: string[] = [];
let stack: Stack;
/** A: the organization acted for (the stack's own), and its managed account. */
let A: string;
let account: { offchainId: string; onchainId: string };
const keys = {} as Record<'adminOnly' | 'exporter' | 'readerWriter' | 'operatorWithoutAdmin' | 'otherAdmin' | 'ownExporter', { apiKey: string; id: string }>;

async function keyOf(organization: string, roles: Role[]) {
  const { organization: org } = await ensureOrganization(forkEm(stack.runtime.orm), stack.runtime.sealer, organization);
  return createApiKey(forkEm(stack.runtime.orm), org, roles, stack.config.platformName);
}

const asA = { tenancyConfig: { overrideOrganizationExternalId: '' } };
const exportKey = (apiKey: string, requestId: string, override?: string) =>
  stack.call(
    'POST',
    '/api/v1/accounts/private-key',
    { itemData: { account: { offchainId: account.offchainId } }, ...(override ? { tenancyConfig: { overrideOrganizationExternalId: override } } : {}) },
    { apiKey, headers: { 'x-request-id': requestId } },
  );
const auditLine = (requestId: string) =>
  waitFor(async () =>
    lines.map((line) => JSON.parse(line) as Record<string, any>).find((entry) => entry.audit === true && String(entry.msg).includes(requestId)),
  );
const refusal = (r: { status: number; body: any }) => ({ status: r.status, code: r.body?.errors?.[0]?.code, field: r.body?.errors?.[0]?.field });

beforeAll(async () => {
  const logger = pino({ level: 'info', name: 'api' }, { write: (line: string) => void lines.push(line) });
  stack = await startStack({ operatorOrganization: OPERATORS, logger });
  A = stack.organizationExternalId;
  asA.tenancyConfig.overrideOrganizationExternalId = A;
  const everyRoleButAdmin = roleNames.filter((r) => r !== 'ADMIN');
  Object.assign(keys, {
    adminOnly: await keyOf(OPERATORS, ['ADMIN']),
    exporter: await keyOf(OPERATORS, ['ADMIN', 'FETCH_PRIVATE_KEY']),
    readerWriter: await keyOf(OPERATORS, ['ADMIN', 'READ', 'WRITE']),
    operatorWithoutAdmin: await keyOf(OPERATORS, everyRoleButAdmin),
    otherAdmin: await keyOf(`not-operators-${randomBytes(4).toString('hex')}`, ['ADMIN']),
    ownExporter: await keyOf(A, ['FETCH_PRIVATE_KEY']),
  });
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } });
  expect(created.status).toBe(201);
  account = created.body.newAccount;
});
afterAll(async () => {
  await stack?.close();
});

describe("An operator's key export for another organization", () => {
  it("is 403 for an operator ADMIN key without FETCH_PRIVATE_KEY: ADMIN does not stand in for the route's role there", async () => {
    const refused = await exportKey(keys.adminOnly.apiKey, 'op-export-admin-only', A);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('FORBIDDEN');
    expect(JSON.stringify(refused.body)).not.toContain('privateKey"');
    expect(lines.some((line) => line.includes('"audit":true') && line.includes('op-export-admin-only'))).toBe(false);
  });

  it("answers A's key to an operator key with ADMIN and FETCH_PRIVATE_KEY, audited with the acting key, its organization and A", async () => {
    const own = await exportKey(keys.ownExporter.apiKey, 'op-export-own');
    expect(own.status).toBe(200);
    const exported = await exportKey(keys.exporter.apiKey, 'op-export-operator', A);
    expect(exported.status).toBe(200);
    expect(exported.body.privateKey).toBe(own.body.privateKey);
    expect(exported.body.account).toMatchObject({ offchain: { id: account.offchainId } });

    const audit = await auditLine('op-export-operator');
    expect(audit.msg).toBe(
      `private key of ${account.onchainId} (${account.offchainId}) fetched by API key ${keys.exporter.id} of organization ${OPERATORS} for organization ${A}, request op-export-operator`,
    );
    // A's own export names its organization once.
    expect((await auditLine('op-export-own')).msg).toBe(
      `private key of ${account.onchainId} (${account.offchainId}) fetched by API key ${keys.ownExporter.id} of organization ${A}, request op-export-own`,
    );
    expect(lines.join('\n')).not.toContain(exported.body.privateKey);
  });
});

describe('Overriding the organization', () => {
  it("is 403 naming the field for an operator organization's key without ADMIN, even one holding every other role", async () => {
    expect(refusal(await exportKey(keys.operatorWithoutAdmin.apiKey, 'op-no-admin', A))).toEqual({ status: 403, code: 'FORBIDDEN', field: FIELD });
    expect(refusal(await stack.call('POST', '/api/v1/accounts/bulk/identifiers', asA, { apiKey: keys.operatorWithoutAdmin.apiKey }))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      field: FIELD,
    });
  });

  it("is 403 naming the field for another organization's ADMIN key, and answers alike whether the organization exists", async () => {
    const existing = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', asA, { apiKey: keys.otherAdmin.apiKey });
    const missing = await stack.call(
      'POST',
      '/api/v1/accounts/bulk/identifiers',
      { tenancyConfig: { overrideOrganizationExternalId: `nobody-${randomBytes(4).toString('hex')}` } },
      { apiKey: keys.otherAdmin.apiKey },
    );
    expect(refusal(existing)).toEqual({ status: 403, code: 'FORBIDDEN', field: FIELD });
    expect(refusal(missing)).toEqual(refusal(existing));
    expect(missing.body.errors[0].message).toBe(existing.body.errors[0].message);
    expect(refusal(await exportKey(keys.otherAdmin.apiKey, 'op-other-admin', A))).toEqual({ status: 403, code: 'FORBIDDEN', field: FIELD });
    // Naming the key's own organization changes nothing.
    expect(
      (
        await stack.call(
          'POST',
          '/api/v1/accounts/bulk/identifiers',
          { tenancyConfig: { overrideOrganizationExternalId: OPERATORS } },
          { apiKey: keys.operatorWithoutAdmin.apiKey },
        )
      ).status,
    ).toBe(200);
  });

  it("lets an operator with READ and WRITE read and write inside A: A's accounts listed, a new account A's", async () => {
    const onchainId = await getAddressFromPublicKey((await generateKeyPair()).publicKey);
    const created = await stack.call(
      'POST',
      '/api/v1/accounts',
      { itemData: { managed: false, alreadyOnchain: true, onchainId, skipBlockchainExistenceVerification: true }, ...asA },
      { apiKey: keys.readerWriter.apiKey },
    );
    expect(created.status).toBe(201);
    const listed = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', asA, { apiKey: keys.readerWriter.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: any) => i.offchain.id).sort()).toEqual([account.offchainId, created.body.newAccount.offchainId].sort());
    // A sees the new account as its own; the operators' organization has none.
    const ofA = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {});
    expect(ofA.body.items.map((i: any) => i.offchain.id)).toContain(created.body.newAccount.offchainId);
    expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {}, { apiKey: keys.readerWriter.apiKey })).body.count).toBe(0);
  });

  it("needs a role a handler checks itself held explicitly too (UPDATE_DEBIT_API_KEYS), and the route's role (no READ: 403)", async () => {
    const refused = await stack.call(
      'POST',
      '/api/v1/accounts',
      { itemData: { managed: true, networkCurrencyDebitApiKeys: ['k1'] }, ...asA },
      { apiKey: keys.readerWriter.apiKey },
    );
    expect(refusal(refused)).toEqual({ status: 403, code: 'FORBIDDEN', field: 'itemData.networkCurrencyDebitApiKeys' });
    expect(refusal(await stack.call('POST', '/api/v1/accounts/bulk/identifiers', asA, { apiKey: keys.exporter.apiKey }))).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
  });

  it('answers 404 naming the field to an operator naming an organization that does not exist', async () => {
    const missing = await stack.call(
      'POST',
      '/api/v1/accounts/bulk/identifiers',
      { tenancyConfig: { overrideOrganizationExternalId: `nobody-${randomBytes(4).toString('hex')}` } },
      { apiKey: keys.readerWriter.apiKey },
    );
    expect(refusal(missing)).toEqual({ status: 404, code: 'NOT_FOUND', field: FIELD });
  });
});
