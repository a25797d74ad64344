/**
 * The API contract as a client developer meets it: the OpenAPI document (built in-process from the
 * route declarations) names every operation, types every answer, shows an example of each request
 * and answer that the codecs accept, passes a standard OpenAPI linter, and generates a client whose
 * create-and-list round trip type-checks.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as t from 'io-ts';
import { apiRoutes, openApiDocument } from '../../src/api/app';
import type { ApiDeps } from '../../src/api/context';
import { operationExamples } from '../../src/domain/examples/operation-examples';
import { reportErrors } from '../../src/domain/responses/building-blocks';
import type { RouteSpec } from '../../src/api/route';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const bin = (file: string) => path.join(root, 'node_modules', file);

const doc = openApiDocument('LEDGER') as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
const routes: RouteSpec[] = apiRoutes(
  { platformName: 'LEDGER' } as Pick<ApiDeps, 'platformName'> as ApiDeps,
  () => ({}),
  async () => '',
);
const operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([method, op]) => ({ path: p, method, op })));
const isCodec = (response: RouteSpec['response']): response is t.Mixed => response instanceof t.Type;
const problemsOf = (result: t.Validation<unknown>) => (result._tag === 'Left' ? reportErrors(result.left).map((e) => `${e.field} ${e.message}`) : []);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-contract-'));
  fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the document', () => {
  it('gives every operation a unique operationId: the operation name in camelCase that leads its summary', () => {
    expect(operations).toHaveLength(routes.length);
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // The spec's operations are named first in their summaries ("Fetch Account Details: ...").
    for (const { op } of operations.filter(({ op }) => op.tags[0] !== 'System' && op.tags[0] !== 'Files')) {
      expect({
        id: op.operationId,
        summary: op.summary
          .toLowerCase()
          .replace(/[^a-z0-9]/g, '')
          .startsWith(op.operationId.toLowerCase()),
      }).toEqual({ id: op.operationId, summary: true });
    }
    expect(ids).toEqual(
      expect.arrayContaining([
        'createAccount',
        'fetchAccounts',
        'fetchAccountDetails',
        'transferNetworkCurrency',
        'initializePosition',
        'mint',
        'transferFinancialInstrument',
        'trade',
        'fetchTransactionStatus',
      ]),
    );
  });

  it('types every success answer, and every error with the error body', () => {
    for (const { path: p, method, op } of operations) {
      const [status, success] = Object.entries(op.responses).find(([s]) => s.startsWith('2'))! as [string, any];
      const [mediaType, content] = Object.entries(success.content)[0] as [string, any];
      expect({ op: op.operationId, status, mediaType, schema: Object.keys(content.schema).length > 0 }).toEqual({
        op: op.operationId,
        status,
        mediaType,
        schema: true,
      });
      for (const [code, answer] of Object.entries(op.responses) as [string, any][]) {
        if (Number(code) >= 400 && !(p === '/ready' && code === '503'))
          expect({ op: `${method} ${p} ${code}`, ref: answer.$ref }).toEqual({
            op: `${method} ${p} ${code}`,
            ref: expect.stringMatching(/^#\/components\/responses\//),
          });
      }
    }
    const ready = doc.paths['/ready'].get.responses['503'].content['application/json'].schema;
    expect(ready).toEqual({ $ref: '#/components/schemas/ReadinessResponse' });
    const writes = operations.filter(({ op }) => op.responses['202']);
    expect(writes.every(({ op }) => ['400', '401', '403', '404', '409', '429', '500', '503'].every((s) => op.responses[s]))).toBe(true);
  });

  it('gives bulk items the record type of each detail level', () => {
    const page = doc.components.schemas.AccountPage;
    expect(page.properties.items.items.anyOf).toEqual([
      { $ref: '#/components/schemas/RecordIdentifiers' },
      { $ref: '#/components/schemas/AccountCompact' },
      { $ref: '#/components/schemas/AccountDetailed' },
    ]);
    const fetchAccounts = doc.paths['/api/v1/accounts/bulk/{detailLevel}'].post;
    expect(fetchAccounts.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AccountPage' });
    for (const name of ['FinancialInstrumentPage', 'PositionPage', 'TransactionPage'])
      expect(doc.components.schemas[name].properties.items.items.anyOf).toHaveLength(3);
  });

  it('declares every path parameter (GET /api/v1/files/{fileId})', () => {
    for (const { path: p, op } of operations) {
      const declared = op.parameters.filter((q: any) => q.in === 'path').map((q: any) => q.name);
      expect({ p, declared }).toEqual({ p, declared: [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]) });
    }
    expect(doc.paths['/api/v1/files/{fileId}'].get.parameters[0]).toMatchObject({
      name: 'fileId',
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    });
  });

  it('documents amounts as exact decimals that may be sent as strings, and answers them as numbers', () => {
    const amount = doc.components.schemas.ValueInput.properties.amount;
    expect(amount).toMatchObject({ type: ['number', 'string'], description: expect.stringContaining('exact decimal') });
    expect(doc.components.schemas.ValueInput.properties.lamports).toMatchObject({ type: ['integer', 'string'], minimum: 0 });
    expect(doc.components.schemas.TokenAmount.properties.amount).toMatchObject({ type: 'number', description: expect.stringContaining('exact decimal') });
  });
});

describe('examples', () => {
  it('has a request example for every operation with a body and a response example for every operation', () => {
    for (const { op } of operations) {
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))![1] as any;
      const body = op.requestBody?.content['application/json'];
      expect({
        op: op.operationId,
        request: body ? body.example !== undefined : 'no body',
        response: (Object.values(success.content)[0] as any).example !== undefined,
      }).toEqual({ op: op.operationId, request: body ? true : 'no body', response: true });
    }
    expect(Object.keys(operationExamples).sort()).toEqual(routes.map((r) => r.operationId).sort());
  });

  it("decodes every request example with the route's body codec and every response example with its response codec", () => {
    const problems = routes.flatMap((route) => {
      const example = operationExamples[route.operationId];
      return [
        ...(route.body ? problemsOf(route.body.decode(example.request)).map((p) => `${route.operationId} request: ${p}`) : []),
        ...(isCodec(route.response) ? problemsOf(route.response.decode(example.response)).map((p) => `${route.operationId} response: ${p}`) : []),
        ...Object.entries(route.otherResponses ?? {}).flatMap(([status, other]) =>
          problemsOf(other.body.decode(example.otherResponses?.[status])).map((p) => `${route.operationId} ${status}: ${p}`),
        ),
      ];
    });
    expect(problems).toEqual([]);
  });
});

describe('tools a client developer uses', () => {
  it('passes the OpenAPI linter (Redocly, recommended-strict) with no error and no warning', async () => {
    const { stdout } = await run(
      process.execPath,
      [bin('@redocly/cli/bin/cli.js'), 'lint', path.join(dir, 'openapi.json'), '--config', path.join(root, 'redocly.yaml'), '--format=json'],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NODE_OPTIONS: '' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; message: string }) => ({ stdout: error.stdout ?? error.message }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('generates a client (openapi-typescript) whose create-and-list round trip type-checks, and whose types catch a wrong request', async () => {
    await run(process.execPath, [bin('openapi-typescript/bin/cli.js'), path.join(dir, 'openapi.json'), '-o', path.join(dir, 'generated', 'ledger-api.ts')], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    fs.copyFileSync(path.join(root, 'test/client/round-trip.ts'), path.join(dir, 'round-trip.ts'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    // Each line below must be a type error; were the generated types loose (any), the directives would be unused: an error too.
    fs.writeFileSync(
      path.join(dir, 'wrong.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './generated/ledger-api';
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });
export async function wrong() {
  // @ts-expect-error managed is a boolean
  await client.POST('/api/v1/accounts', { body: { itemData: { managed: 'yes' } } });
  // @ts-expect-error no such detail level
  await client.POST('/api/v1/accounts/bulk/{detailLevel}', { params: { path: { detailLevel: 'everything' } }, body: {} });
  const list = await client.POST('/api/v1/transactions/bulk/{detailLevel}', { params: { path: { detailLevel: 'detailed' } }, body: {} });
  // @ts-expect-error count is a number
  const count: string = list.data!.count;
  return count;
}
`,
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'preserve',
          moduleResolution: 'bundler',
          types: [],
          skipLibCheck: true,
        },
        files: ['round-trip.ts', 'wrong.ts'],
      }),
    );
    const checked = await run(process.execPath, [bin('typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: '' },
    }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(checked).toBe('');
    expect(fs.readFileSync(path.join(dir, 'generated', 'ledger-api.ts'), 'utf8')).toContain('createAccount: {');
  });
});
