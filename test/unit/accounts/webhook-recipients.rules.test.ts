/** Whose webhooks hear a write (docs/webhooks.md "Whose webhooks"): the writer's, and a shared account's owner's. */
import { hearsWrite, type RecipientRecord } from '../../../src/domain/operations/accounts/webhook-recipients.rules';

const writer = { organizationId: 'org-b', organizationExternalId: 'b' };
const record = (over: Partial<RecipientRecord>): RecipientRecord => ({
  organizationId: 'org-a',
  sharedAcrossTenants: false,
  orgsAllowedToSignWithPrivateKey: [],
  globalFeePayerForOrgs: [],
  ...over,
});

it("hears the writer's own records", () => {
  expect(hearsWrite(record({ organizationId: 'org-b' }), writer)).toBe(true);
});

it.each([
  ['shared across tenants', { sharedAcrossTenants: true }],
  ['signing for the writer', { orgsAllowedToSignWithPrivateKey: ['c', 'b'] }],
  ["the writer's fee payer", { globalFeePayerForOrgs: ['b'] }],
])("hears another organization's record %s", (_, over) => {
  expect(hearsWrite(record(over), writer)).toBe(true);
});

it("does not hear another organization's record of the address that shares nothing with the writer", () => {
  expect(hearsWrite(record({ orgsAllowedToSignWithPrivateKey: ['c'], globalFeePayerForOrgs: ['c'] }), writer)).toBe(false);
});
