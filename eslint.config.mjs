// Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node built-ins, no ORM, no chain client.
// Layering (docs/architecture.md): nothing below the API imports it, the domain holds no persistence, only the entry points use the CLI.
import tseslint from 'typescript-eslint';

// Type imports count too: a type from src/api below it is the dependency this rule exists to stop.
const layers = {
  api: {
    group: ['**/api', '**/api/*', '**/api/**', '!@opentelemetry/api'],
    message: 'Nothing below the API imports src/api: request shapes live in src/domain/inputs, persistence in src/db, key hashing in src/custody.',
  },
  db: {
    group: ['**/db', '**/db/*', '**/db/**'],
    message: 'src/domain is pure and does no persistence: no src/db imports (keep the type it needs in the domain).',
  },
  cli: {
    group: ['**/cli', '**/cli/*', '**/cli/**'],
    message: 'src/cli is the CLI front-end: only src/main and src/cli import it (shared admin code lives in src/custody and src/db).',
  },
  dev: {
    group: ['**/dev', '**/dev/*', '**/dev/**'],
    message: 'src/ never imports dev/: the local node and the dev bootstrap sit beside the service (dev/, test/ and bench/ may import src/).',
  },
};
const belowTheApi = ['src/client', 'src/domain', 'src/db', 'src/activities', 'src/custody', 'src/network', 'src/config', 'src/storage'];
const restrictImports = (patterns, paths = []) => ({ '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] });
// Writes are started, joined and answered by the write client (src/client), never by the HTTP layer itself.
const temporalClient = {
  name: '@temporalio/client',
  message:
    'src/api calls Temporal only through the write client (src/client), not even for a type: ApiDeps names the connection as the write client declares it.',
};

const forbiddenInWorkflows = [
  { group: ['node:*'], message: 'Workflows are deterministic: no Node built-ins.' },
  { group: ['@mikro-orm/*'], message: 'Workflows do no I/O: MikroORM belongs in activities.' },
  { group: ['@solana/*', '@solana-program/*', 'litesvm'], message: 'Workflows do no I/O: the chain client belongs in activities.' },
  {
    group: ['**/activities', '**/activities/*', '**/db/*', '**/network/*', '**/custody/*', '**/api/*', '**/main/*'],
    message: 'Import activities and I/O modules only with `import type`.',
    allowTypeImports: true,
  },
];
const nodeBuiltins = [
  'fs',
  'path',
  'crypto',
  'http',
  'https',
  'net',
  'os',
  'child_process',
  'stream',
  'url',
  'util',
  'events',
  'buffer',
  'zlib',
  'dns',
  'tls',
  'worker_threads',
];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', '.data', 'coverage'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Tests and the bench's checker read arbitrary JSON answers field by field: `any` there warns.
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'warn' } },
  // One no-restricted-imports setting applies per file (a later block replaces an earlier one), so each block lists all of its folder's rules.
  { files: ['**/*.ts'], ignores: ['src/**'], rules: restrictImports([layers.cli]) },
  { files: ['src/**/*.ts'], ignores: ['src/main/**', 'src/cli/**'], rules: restrictImports([layers.cli, layers.dev]) },
  { files: ['src/main/**/*.ts', 'src/cli/**/*.ts'], rules: restrictImports([layers.dev]) },
  { files: ['src/api/**/*.ts'], rules: restrictImports([layers.cli, layers.dev], [temporalClient]) },
  ...belowTheApi.map((folder) => ({
    files: [`${folder}/**/*.ts`],
    rules: restrictImports(folder === 'src/domain' ? [layers.api, layers.db, layers.cli, layers.dev] : [layers.api, layers.cli, layers.dev]),
  })),
  {
    files: ['src/workflows/**/*.ts'],
    rules: restrictImports(
      [...forbiddenInWorkflows, layers.cli, layers.dev],
      nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' })),
    ),
  },
);
