/** The lint rule that keeps workflow code deterministic: no Node built-ins, MikroORM or kit in src/workflows. */
import path from 'node:path';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: path.join(__dirname, '../..') });

async function problems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(__dirname, '../..', file) });
  return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

it.each([
  ["import fs from 'node:fs';", 'Node built-ins'],
  ["import { randomUUID } from 'crypto';", 'Node built-ins'],
  ["import { MikroORM } from '@mikro-orm/postgresql';", 'MikroORM'],
  ["import { createSolanaRpc } from '@solana/kit';", 'chain client'],
  ["import { createActivities } from '../activities';", 'import type'],
  ["import { Account } from '../db/entities';", 'import type'],
])('refuses %s in src/workflows', async (code, reason) => {
  const found = await problems(`${code}\nexport const x = 1;\n`, 'src/workflows/example.workflow.ts');
  expect(found.join(' ')).toContain(reason);
});

it('allows type-only imports of activities and I/O modules in workflows, and anything elsewhere', async () => {
  expect(await problems("import type { Account } from '../db/entities';\nexport type A = Account;\n", 'src/workflows/example.workflow.ts')).toEqual([]);
  expect(await problems("import fs from 'node:fs';\nexport const x = fs;\n", 'src/activities/example.ts')).toEqual([]);
});

it('holds for the workflows the project has', async () => {
  const results = await eslint.lintFiles(['src/workflows']);
  expect(results.flatMap((r) => r.messages)).toEqual([]);
});
