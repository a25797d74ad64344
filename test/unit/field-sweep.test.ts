/**
 * No silent fields: every request field of the served OpenAPI document is proven to act or to be
 * refused, by a test case that sends it (or names it in a refusal) or by a rule that refuses it.
 * A field added to a request codec without either fails here. `FIELD_SWEEP_REPORT=<file>` writes
 * the whole table (field → the tests or the rule) as Markdown.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../../src/api/app';
import { proves, requestFields, testCases } from '../support/field-evidence';
import { ruleProofs } from '../support/field-rule-proofs';

const root = path.join(__dirname, '..', '..');
const fields = requestFields(openApiDocument('LEDGER') as unknown as Parameters<typeof requestFields>[0]);
// This file's own synthetic document proves nothing.
const cases = testCases(root, ['test/unit', 'test/e2e', 'test/integration']).filter((c) => !c.name.startsWith('test/unit/field-sweep.test.ts'));

const proofOf = (field: string) => {
  const property = field.slice(field.lastIndexOf('.') + 1);
  return {
    tests: cases.filter((c) => proves(c, property, fields.get(field)!)).map((c) => c.name),
    rule: ruleProofs[field] ?? ruleProofs[`*.${property}`],
  };
};

describe('the field sweep', () => {
  it('finds the request fields of the OpenAPI document', () => {
    expect(fields.size).toBeGreaterThan(400);
    expect(fields.has('CreateAccountItemData.managed')).toBe(true);
  });

  it('counts a test case only for the operation it calls: a field no case sends to its route or names is unproven', () => {
    const document = {
      paths: {
        '/api/v1/widgets': { post: { operationId: 'createWidget', requestBody: { content: { 'application/json': { schema: { $ref: '#/x/Widget' } } } } } },
      },
      components: { schemas: { Widget: { properties: { managed: {}, neverSentByAnyTest: {} } } } },
    };
    const widgetFields = requestFields(document);
    expect([...widgetFields.keys()]).toEqual(['Widget.managed', 'Widget.neverSentByAnyTest']);
    expect(widgetFields.get('Widget.managed')).toEqual([{ route: '/api/v1/widgets', name: 'CREATE_WIDGET' }]);
    // `managed` is sent by many cases, but to other routes: it proves nothing for createWidget.
    expect(cases.some((c) => c.names.has('managed'))).toBe(true);
    expect(cases.filter((c) => proves(c, 'managed', widgetFields.get('Widget.managed')!))).toEqual([]);
  });

  it('proves every request field acts or is refused, by a test or a rule', () => {
    const unproven = [...fields.keys()].filter((field) => {
      const proof = proofOf(field);
      return proof.tests.length === 0 && !proof.rule;
    });
    if (process.env.FIELD_SWEEP_REPORT) {
      const rows = [...fields.keys()].sort().map((field) => {
        const proof = proofOf(field);
        return `| \`${field}\` | ${proof.rule ? `rule \`${proof.rule}\`` : `${proof.tests.length} tests, e.g. ${proof.tests[0] ?? '—'}`} |`;
      });
      fs.writeFileSync(process.env.FIELD_SWEEP_REPORT, ['| Field | Proof |', '|---|---|', ...rows].join('\n') + '\n');
    }
    expect(unproven).toEqual([]);
  });

  it('names proofs that exist: test files that name the field, rules that are exported', () => {
    for (const [field, proof] of Object.entries(ruleProofs)) {
      const [file, name] = proof.split('#');
      const source = fs.readFileSync(path.join(root, file!), 'utf8');
      const property = field.slice(field.lastIndexOf('.') + 1);
      const found = name ? new RegExp(`export (async )?(function|const) ${name}\\b`).test(source) : new RegExp(`\\b${property}\\b`).test(source);
      expect({ field, proof, found }).toEqual({ field, proof, found: true });
    }
  });
});
