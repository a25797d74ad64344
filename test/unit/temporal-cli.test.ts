import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli } from '../../dev/temporal/temporal-cli';

describe('findTemporalCli', () => {
  const savedEnv = {
    TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
    PATH: process.env.PATH,
    GONOSUMDB: process.env.GONOSUMDB,
    FAKE_GOBIN: process.env.FAKE_GOBIN,
  };
  let dir: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'temporal-cli-test-'));
  });
  afterEach(async () => {
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function fakeCli(file: string): Promise<string> {
    await fs.writeFile(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return file;
  }

  it('uses TEMPORAL_CLI_PATH first and says so', async () => {
    const fake = await fakeCli(path.join(dir, 'my-temporal'));
    await fakeCli(path.join(dir, 'temporal')); // also on PATH: the override must still win
    process.env.TEMPORAL_CLI_PATH = fake;
    process.env.PATH = dir;
    const log = jest.fn();

    await expect(findTemporalCli(log)).resolves.toEqual({ path: fake, source: 'TEMPORAL_CLI_PATH' });
    expect(log).toHaveBeenCalledWith(expect.stringContaining('TEMPORAL_CLI_PATH'));
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable', async () => {
    process.env.TEMPORAL_CLI_PATH = path.join(dir, 'missing');
    await expect(findTemporalCli(() => undefined)).rejects.toThrow(/TEMPORAL_CLI_PATH=.*missing/);
  });

  it('falls back to temporal on PATH', async () => {
    delete process.env.TEMPORAL_CLI_PATH;
    const onPath = await fakeCli(path.join(dir, 'temporal'));
    process.env.PATH = dir;
    await expect(findTemporalCli(() => undefined)).resolves.toEqual({ path: onPath, source: 'PATH' });
  });

  it('builds with go install, retrying without the checksum database for the CLI module only', async () => {
    delete process.env.TEMPORAL_CLI_PATH;
    delete process.env.GONOSUMDB;
    const gobin = path.join(dir, 'gobin');
    process.env.FAKE_GOBIN = gobin;
    process.env.PATH = dir;
    // A fake `go`: fails like an unreachable sum.golang.org unless GONOSUMDB exempts the CLI module.
    await fs.writeFile(
      path.join(dir, 'go'),
      [
        '#!/bin/sh',
        'if [ "$1" = env ]; then echo "$FAKE_GOBIN"; echo /nonexistent; exit 0; fi',
        'case "$GONOSUMDB" in *github.com/temporalio/cli*) ;; *)',
        '  echo "verifying github.com/temporalio/cli@v1.5.1: Get https://sum.golang.org/lookup: dial tcp: i/o timeout" >&2; exit 1;;',
        'esac',
        'printf "#!/bin/sh\\n" > "$FAKE_GOBIN/temporal" && /bin/chmod 755 "$FAKE_GOBIN/temporal"',
      ].join('\n') + '\n',
      { mode: 0o755 },
    );
    const messages: string[] = [];

    await expect(findTemporalCli((m) => messages.push(m))).resolves.toEqual({ path: path.join(gobin, 'temporal'), source: 'go-install' });
    expect(messages.join('\n')).toMatch(/GONOSUMDB=github\.com\/temporalio\/cli/);
    await expect(fs.readdir(gobin)).resolves.toEqual(['temporal']); // lock file removed
    await expect(findTemporalCli(() => undefined)).resolves.toEqual({ path: path.join(gobin, 'temporal'), source: 'go-bin' });
  });
});
