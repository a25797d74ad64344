/** The lint rule that keeps the layers apart: nothing below the API imports src/api, src/domain imports no src/db, only src/main and src/cli import src/cli, src/ never imports dev/. */
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.join(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function problems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

const belowTheApi = [
  ['src/domain/example.ts', '../api/codecs/common.codecs'],
  ['src/domain/inputs/example.inputs.ts', '../../api/codecs/account.codecs'],
  ['src/db/repositories/example.repository.ts', '../../api/codecs/position.codecs'],
  ['src/activities/pipeline/example.activity.ts', '../../api/middleware'],
  ['src/custody/example.ts', '../api/middleware'],
  ['src/network/example.ts', '../api/context'],
  ['src/network/rpc/example.ts', '../../api/app'],
  ['src/config/example.ts', '../api/context'],
  ['src/storage/example.ts', '../api/route'],
  ['src/client/example.ts', '../api/context'],
];

describe('nothing below the API imports src/api', () => {
  it.each(belowTheApi)('refuses a value import in %s', async (file, from) => {
    expect((await problems(`import { x } from '${from}';\nexport const y = x;\n`, file)).join(' ')).toContain('Nothing below the API imports src/api');
  });

  it.each(belowTheApi)('refuses a type import in %s too', async (file, from) => {
    expect((await problems(`import type { X } from '${from}';\nexport type Y = X;\n`, file)).join(' ')).toContain('Nothing below the API imports src/api');
  });

  it.each(belowTheApi)('is quiet on the layers below in %s', async (file) => {
    const depth = file.split('/').length - 2;
    const up = '../'.repeat(depth);
    const code = `import type { AccountLookupInput } from '${up}domain/inputs/common.inputs';\nimport { LedgerError } from '${up}domain/errors';\nexport type A = AccountLookupInput;\nexport const e = LedgerError;\n`;
    expect(await problems(code, file)).toEqual([]);
  });

  it('lets src/api and src/main import src/api', async () => {
    expect(await problems("import { tenancyConfig } from './common.codecs';\nexport const t = tenancyConfig;\n", 'src/api/codecs/example.codecs.ts')).toEqual(
      [],
    );
    expect(await problems("import { createApp } from '../api/app';\nexport const a = createApp;\n", 'src/main/example.ts')).toEqual([]);
  });
});

describe('src/domain imports no src/db', () => {
  it.each([
    ["import { Account } from '../db/entities';", 'src/domain/example.ts'],
    ["import type { Account } from '../db/entities';", 'src/domain/example.ts'],
    ["import { findAccountByLookup } from '../../db/repositories/accounts.repository';", 'src/domain/operations/example.operation.ts'],
  ])('refuses %s in %s', async (code, file) => {
    expect((await problems(`${code}\nexport const x = 1;\n`, file)).join(' ')).toContain('src/domain is pure');
  });

  it('is quiet on the domain itself, and lets the layers above import src/db', async () => {
    expect(
      await problems("import { validationError } from '../errors';\nexport const v = validationError;\n", 'src/domain/operations/example.operation.ts'),
    ).toEqual([]);
    expect(await problems("import { Account } from '../../db/entities';\nexport const a = Account;\n", 'src/activities/operations/example.handler.ts')).toEqual(
      [],
    );
    expect(await problems("import { Account } from '../db/entities';\nexport const a = Account;\n", 'src/api/example.ts')).toEqual([]);
  });
});

describe('only src/main and src/cli import src/cli', () => {
  it.each([
    ['src/api/example.ts', '../cli/main'],
    ['src/domain/example.ts', '../cli/main'],
    ['src/db/example.ts', '../cli/main'],
    ['src/activities/example.ts', '../cli/main'],
    ['src/custody/example.ts', '../cli/main'],
    ['src/network/example.ts', '../cli/main'],
    ['src/workflows/example.workflow.ts', '../cli/main'],
    ['test/unit/example.test.ts', '../../src/cli/main'],
    ['bench/example.ts', '../src/cli/main'],
  ])('refuses it in %s', async (file, from) => {
    expect((await problems(`import '${from}';\n`, file)).join(' ')).toContain('src/cli is the CLI front-end');
  });

  it('allows it in src/main and src/cli', async () => {
    expect(await problems("import '../cli/main';\n", 'src/main/example.ts')).toEqual([]);
    expect(await problems("import { x } from './example';\nexport const y = x;\n", 'src/cli/other.ts')).toEqual([]);
  });
});

describe('src/ never imports dev/', () => {
  it.each([
    ['src/main/example.ts', '../../dev/local-node'],
    ['src/cli/example.ts', '../../dev/temporal/dev-server'],
    ['src/api/example.ts', '../../dev/launcher'],
    ['src/network/example.ts', '../../dev/local-node/base58'],
    ['src/domain/example.ts', '../../dev/local-node'],
    ['src/workflows/example.workflow.ts', '../../dev/local-node'],
  ])('refuses it in %s', async (file, from) => {
    expect((await problems(`import { x } from '${from}';\nexport const y = x;\n`, file)).join(' ')).toContain('src/ never imports dev/');
    expect((await problems(`import type { X } from '${from}';\nexport type Y = X;\n`, file)).join(' ')).toContain('src/ never imports dev/');
  });

  it('lets dev/, test/ and bench/ import src/ and dev/', async () => {
    expect(
      await problems(
        "import { startApi } from '../src/main/api';\nimport { startLocalNode } from './local-node';\nexport const s = [startApi, startLocalNode];\n",
        'dev/example.ts',
      ),
    ).toEqual([]);
    expect(
      await problems("import { startLocalNode } from '../../dev/local-node';\nexport const s = startLocalNode;\n", 'test/integration/example.test.ts'),
    ).toEqual([]);
    expect(
      await problems("import { startTemporalDevServer } from '../dev/temporal/dev-server';\nexport const s = startTemporalDevServer;\n", 'bench/example.ts'),
    ).toEqual([]);
  });
});

it('holds for the code the project has', async () => {
  const results = await eslint.lintFiles(['src', 'dev', 'test', 'bench']);
  expect(
    results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => `${path.relative(root, r.filePath)}: ${m.message}`),
    ),
  ).toEqual([]);
});

describe('src/api reaches Temporal only through the write client', () => {
  it('refuses @temporalio/client in a route, a value or a type', async () => {
    expect(
      (
        await problems(
          "import { WorkflowNotFoundError } from '@temporalio/client';\nexport const e = WorkflowNotFoundError;\n",
          'src/api/routes/example.routes.ts',
        )
      ).join(' '),
    ).toContain('only through the write client');
    expect(
      (await problems("import type { WorkflowHandle } from '@temporalio/client';\nexport type H = WorkflowHandle;\n", 'src/api/example.ts')).join(' '),
    ).toContain('only through the write client');
  });

  it('refuses it everywhere in src/api: the deps wiring, the error middleware, the approval and webhook routes', async () => {
    for (const file of ['src/api/context.ts', 'src/api/middleware.ts', 'src/api/routes/approvals.routes.ts', 'src/api/routes/webhook-deliveries.routes.ts']) {
      expect((await problems("import type { Client } from '@temporalio/client';\nexport type C = Client;\n", file)).join(' ')).toContain(
        'only through the write client',
      );
    }
  });

  it('lets the write client name it', async () => {
    expect(
      await problems("import { WorkflowNotFoundError } from '@temporalio/client';\nexport const e = WorkflowNotFoundError;\n", 'src/client/example.ts'),
    ).toEqual([]);
  });
});
