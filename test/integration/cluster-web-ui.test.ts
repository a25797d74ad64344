/**
 * The production-shaped cluster (temporal-config/cluster) starts the Temporal Web UI beside the
 * server, with the ledger namespace as default, and stop.sh stops both. Runs on a port range and
 * databases of its own. Building the server and the UI takes minutes to half an hour, which a test
 * run cannot afford: without the binaries start.sh would build (docs: temporal-config/cluster), the
 * test is skipped and says so.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const cluster = path.join(__dirname, '..', '..', 'temporal-config', 'cluster');
const goBin = (() => {
  try {
    return path.join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim().split(':')[0]!, 'bin');
  } catch {
    return undefined;
  }
})();
const binaries = goBin ? [path.join(goBin, 'server'), path.join(goBin, 'sql'), path.join(goBin, 'temporal-ui-v2.42.1', 'server')] : [];
const built = binaries.length > 0 && binaries.every((file) => fs.existsSync(file));
if (!built) console.warn(`cluster Web UI test skipped: build the cluster once with ${cluster}/start.sh (missing: ${binaries.join(', ') || 'go'})`);

const PORT = 17233;
const UI_PORT = 18234;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-cluster-ui-'));
const env = {
  ...process.env,
  PATH: `${process.env.PATH}:${goBin ?? ''}`,
  TEMPORAL_CLUSTER_PORT: String(PORT),
  TEMPORAL_CLUSTER_UI_PORT: String(UI_PORT),
  TEMPORAL_CLUSTER_DIR: dir,
  TEMPORAL_CLUSTER_DB: 'temporal_cluster_ui_test',
  TEMPORAL_CLUSTER_VISIBILITY_DB: 'temporal_cluster_ui_test_visibility',
};
const ui = (route: string) => fetch(`http://127.0.0.1:${UI_PORT}${route}`);

afterAll(async () => {
  await run(path.join(cluster, 'stop.sh'), { env }).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

(built ? it : it.skip)(
  'serves the Web UI against the cluster with the ledger namespace and its search attributes; stop.sh stops it',
  async () => {
    const started = await run(path.join(cluster, 'start.sh'), ['--background'], { env, timeout: 150_000 });
    expect(started.stdout).toContain(`Web UI http://127.0.0.1:${UI_PORT}`);

    const page = await ui('/namespaces/ledger/workflows');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await (await ui('/api/v1/settings')).json()).toMatchObject({ DefaultNamespace: 'ledger', Auth: { Enabled: false } });
    const attributes = (await (await ui('/api/v1/namespaces/ledger/search-attributes')).json()) as { customAttributes: Record<string, string> };
    expect(Object.keys(attributes.customAttributes)).toEqual(expect.arrayContaining(['LedgerStatus', 'LedgerOperation', 'LedgerLender']));

    await run(path.join(cluster, 'stop.sh'), { env, timeout: 60_000 });
    await expect(ui('/api/v1/settings')).rejects.toThrow();
  },
  240_000,
);
