/** Workflow ids name the organization by its external id, and never let two organizations or operations share an id. */
import { organizationSegment } from '../../src/domain/workflow-ids';
import { writeWorkflowId } from '../../src/domain/write';
import { legacyLoanWorkflowId, loanWorkflowId } from '../../src/domain/loan-lifecycle';
import { operations } from '../../src/domain/operations/registry';

const org = (externalId: string, id = '1e4b7c2a-9d3f-4a6e-8b1c-5f2d9a7e3c18') => ({ id, externalId });

describe('organizationSegment', () => {
  it('keeps a plain external id readable, its dashes as underscores', () => {
    expect(organizationSegment(org('acme-capital'))).toBe('acme_capital');
    expect(organizationSegment(org('Acme.Bank2'))).toBe('Acme.Bank2');
  });

  it('percent-encodes everything else, so the segment holds no separator and no two external ids share one', () => {
    expect(organizationSegment(org('a/b c_ü~'))).toBe('a%2Fb%20c%5F%C3%BC%7E');
    const externalIds = ['acme-x', 'acme_x', 'acme%5Fx', 'acme x', 'acme+x', 'acme-', 'acme', '', '-', '_', 'é', 'e\u0301'];
    const segments = externalIds.map((e) => organizationSegment(org(e)));
    expect(new Set(segments).size).toBe(externalIds.length);
    for (const s of segments) expect(s).toMatch(/^[A-Za-z0-9_.%]*$/);
  });

  it('names an external id too long for an id by the internal id, which no external id can imitate', () => {
    const long = 'x'.repeat(101);
    expect(organizationSegment(org(long))).toBe('~1e4b7c2a9d3f4a6e8b1c5f2d9a7e3c18');
    expect(organizationSegment(org('x'.repeat(100)))).toBe('x'.repeat(100));
    expect(organizationSegment(org('~1e4b7c2a9d3f4a6e8b1c5f2d9a7e3c18'))).not.toBe(organizationSegment(org(long)));
  });
});

describe('writeWorkflowId', () => {
  it('is <operation>-<organization>-<key>', () => {
    expect(writeWorkflowId('TRANSFER_NETWORK_CURRENCY', org('acme-capital'), 'k-1')).toBe('transfer_network_currency-acme_capital-k-1');
  });

  it('never gives two (operation, organization, key) the same id', () => {
    // Split at a dash, an organization and key could rebuild another's id if either part held one.
    expect(writeWorkflowId('MINT', org('acme'), 'x-1')).not.toBe(writeWorkflowId('MINT', org('acme-x'), '1'));
    expect(writeWorkflowId('TRANSFER', org('network'), 'currency-acme-k')).not.toBe(writeWorkflowId('TRANSFER_NETWORK_CURRENCY', org('acme'), 'k'));
    for (const operation of operations) expect(operation.toLowerCase()).not.toContain('-');
  });
});

it('loans: the current id names the external id, the legacy one the internal id', () => {
  expect(loanWorkflowId(org('acme-capital'), 'Escrow111')).toBe('loan-acme_capital-Escrow111');
  expect(legacyLoanWorkflowId('1e4b7c2a-9d3f-4a6e-8b1c-5f2d9a7e3c18', 'Escrow111')).toBe('loan-1e4b7c2a-9d3f-4a6e-8b1c-5f2d9a7e3c18-Escrow111');
});
