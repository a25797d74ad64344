// Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node built-ins, no ORM, no chain client.
import tseslint from 'typescript-eslint';

const forbiddenInWorkflows = [
  { group: ['node:*'], message: 'Workflows are deterministic: no Node built-ins.' },
  { group: ['@mikro-orm/*'], message: 'Workflows do no I/O: MikroORM belongs in activities.' },
  { group: ['@solana/*', '@solana-program/*', 'litesvm'], message: 'Workflows do no I/O: the chain client belongs in activities.' },
  { group: ['**/activities', '**/activities/*', '**/db/*', '**/network/*', '**/custody/*', '**/api/*', '**/main/*'], message: 'Import activities and I/O modules only with `import type`.', allowTypeImports: true },
];
const nodeBuiltins = ['fs', 'path', 'crypto', 'http', 'https', 'net', 'os', 'child_process', 'stream', 'url', 'util', 'events', 'buffer', 'zlib', 'dns', 'tls', 'worker_threads'];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', '.data', 'coverage'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' })), patterns: forbiddenInWorkflows }],
    },
  },
);
