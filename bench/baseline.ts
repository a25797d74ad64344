/**
 * BENCH_BASELINE=<git ref>: the previous code beside today's in the same bench run. The ref is
 * checked out in a temporary git worktree (its dependencies: this checkout's node_modules when its
 * package-lock.json is the same, else `npm ci` there), gets its own database migrated by its own
 * CLI (`api-keys create --create`, which migrates first), and runs its own API and worker
 * processes on the same Temporal server, local node and fee payer as today's, on a task queue of its
 * own. The refs it can run: any with `src/cli/main.ts api-keys create` and the bench's entry points
 * (issue 16 onwards).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repository = path.join(__dirname, '..');
const git = (args: string[], cwd = repository) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

export interface BaselineCheckout {
  /** The ref as given and the commit it names (short). */
  ref: string;
  commit: string;
  root: string;
  remove(): void;
}

/** Checks `ref` out in a temporary worktree with its dependencies installed. */
export function checkoutBaseline(ref: string, log: (m: string) => void): BaselineCheckout {
  const commit = git(['rev-parse', '--short', `${ref}^{commit}`]);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `ledger-bench-baseline-${commit}-`));
  git(['worktree', 'add', '--detach', '--force', root, commit]);
  const remove = () => {
    try {
      git(['worktree', 'remove', '--force', root]);
    } catch {
      fs.rmSync(root, { recursive: true, force: true });
      git(['worktree', 'prune']);
    }
  };
  try {
    const lock = (dir: string) => fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    const modules = path.join(root, 'node_modules');
    if (lock(root) === lock(repository)) {
      fs.symlinkSync(path.join(repository, 'node_modules'), modules, 'dir');
      log(`baseline ${ref} (${commit}) in ${root}, with this checkout's node_modules (same package-lock.json)`);
    } else {
      // Installed once per lockfile and kept (~/.cache/ledger-bench), so the next run against the same ref starts at once.
      // Named node_modules itself: packages find each other by walking up to a directory of that name from their real path.
      const cached = path.join(os.homedir(), '.cache', 'ledger-bench', createHash('sha256').update(lock(root)).digest('hex').slice(0, 16), 'node_modules');
      if (!fs.existsSync(cached)) {
        const started = performance.now();
        execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'ignore' });
        fs.mkdirSync(path.dirname(cached), { recursive: true });
        fs.renameSync(modules, cached);
        log(`baseline ${ref}: npm ci for its package-lock.json (${((performance.now() - started) / 1000).toFixed(0)} s), kept in ${cached}`);
      }
      fs.symlinkSync(cached, modules, 'dir');
      log(`baseline ${ref} (${commit}) in ${root}, with the node_modules of its package-lock.json (${cached})`);
    }
  } catch (error) {
    remove();
    throw error;
  }
  return { ref, commit, root, remove };
}

/** An API key with `roles` in the baseline's own database, made by its own CLI (which migrates the database first). */
export function baselineApiKey(checkout: BaselineCheckout, env: Record<string, string>, roles: readonly string[]): string {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(checkout.root, 'src/cli/main.ts'), 'api-keys', 'create', '--organization', 'bench', '--create', '--roles', roles.join(',')],
    { cwd: checkout.root, env: { ...process.env, ...env, NODE_OPTIONS: '' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { apiKey } = JSON.parse(output.trim().split('\n').pop()!) as { apiKey: string };
  return apiKey;
}
