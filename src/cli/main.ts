/**
 * The admin CLI (commander). Scripts depend on this contract: each command prints one JSON object on
 * stdout; a failure prints its message on stderr with exit code 1; a usage error (unknown command or
 * option, missing argument, an unknown role) prints the command's usage on stderr with exit code 2; `--help` prints
 * on stdout with exit code 0. See `npm run --silent cli -- --help` and docs/cli.md.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type Config } from '../config/config';
import { parseRoles, type Role } from '../domain/roles';
import { openRuntime, forkEm, keyEncryptionKey, secretsDirectory, thresholdShareStores, type Runtime } from '../main/runtime';
import { createSealer } from '../custody/sealing';
import { createKeystoreDirectory } from '../custody/secret-store';
import { rotateKek } from '../custody/kek-rotation';
import { resolveDatabase } from '../main/database';
import { migrate, pendingMigrations } from '../db/orm';
import { createApiKey, ensureOrganization } from '../custody/credentials';
import { findOrganization, listApiKeys, listOrganizations, revokeApiKey } from '../db/repositories/organizations.repository';
import type { ApiKey, Organization } from '../db/entities';
import { listFindings, type FindingStatus } from '../db/repositories/drift-findings.repository';
import { reconcileNow } from './reconcile';

type Action = (context: { config: Config; runtime: Runtime; em: ReturnType<typeof forkEm>; log: (m: string) => void }) => Promise<unknown>;

/**
 * What a command needs of the schema: one that writes brings it up to date first (`migrate`); one
 * that only reads changes nothing and refuses (exit 1) when migrations are pending (`check`); the
 * `migrate` command itself does its own (`none`).
 */
type SchemaNeed = 'migrate' | 'check' | 'none';

/** Opens the database (its schema as `schema` says), runs the action, prints its result. `networks`: the configured clusters (SVM_CLUSTERS) instead of none. */
async function withRuntime(action: Action, schema: SchemaNeed = 'migrate', options: { networks?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const database = await resolveDatabase(config, log);
  const runtime = await openRuntime(
    {
      ...config,
      databaseUrl: database.url,
      databasePoolSize: database.poolSize ?? config.databasePoolSize,
      ...(options.networks ? {} : { clusters: [{ name: 'NONE', rpcUrl: 'http://127.0.0.1:1', allowsAirdrop: false }], defaultCluster: 'NONE' }),
    },
    log,
    { migrate: schema === 'migrate' },
  );
  try {
    if (schema === 'check') {
      const pending = await pendingMigrations(runtime.orm);
      if (pending.length)
        throw new Error(`the database schema is not current (${pending.length} migrations pending: ${pending.join(', ')}); apply them with: migrate`);
    }
    const result = await action({ config, runtime, em: forkEm(runtime.orm), log });
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await runtime.close();
    await database.close();
  }
}

const organizationJson = (o: Organization) => ({ id: o.id, externalId: o.externalId, name: o.name ?? null, createdAt: o.createdAt });
const apiKeyJson = (k: ApiKey, organizationExternalId: string) => ({
  id: k.id,
  organization: organizationExternalId,
  roles: k.roles,
  keyPrefix: k.keyPrefix,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt ?? null,
});

async function existingOrganization(em: ReturnType<typeof forkEm>, externalId: string): Promise<Organization> {
  const organization = await findOrganization(em, externalId);
  if (!organization) throw new Error(`no organization "${externalId}" (list them with: organizations list; create it with --create or organizations create)`);
  return organization;
}

/** `--roles`: an unknown role is a usage error (exit 2, with the command's usage), found before the database is opened. */
function rolesArgument(text: string): Role[] {
  const platform = loadConfig().platformName; // an invalid configuration stays a failure (exit 1)
  try {
    return parseRoles(platform, text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function program(): Command {
  const cli = new Command('cli')
    .description('Ledger Asset Service admin CLI: organizations, API keys, migrations, key-encryption keys, reconciliation.')
    .showHelpAfterError()
    .exitOverride();
  // Usage errors name the command; output goes where scripts expect it.
  cli.configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  const organizations = cli.command('organizations').description('tenants');
  organizations
    .command('create')
    .description('creates an organization (idempotent by external id)')
    .requiredOption('--external-id <id>', "the organization's external id")
    .option('--name <name>', 'display name')
    .action((o: { externalId: string; name?: string }) =>
      withRuntime(async ({ runtime, em }) => {
        const { organization, created } = await ensureOrganization(em, runtime.sealer, o.externalId, o.name);
        return { organization: organizationJson(organization), created };
      }),
    );
  organizations
    .command('list')
    .description('every organization, oldest first')
    .action(() => withRuntime(async ({ em }) => ({ organizations: (await listOrganizations(em)).map(organizationJson) }), 'check'));

  const apiKeys = cli.command('api-keys').description('API keys (shown once; stored as a hash)');
  apiKeys
    .command('create')
    .description('a new API key of an organization')
    .requiredOption('--organization <externalId>', 'the organization (must exist unless --create)')
    .addOption(new Option('--roles <roles>', 'comma-separated roles, e.g. LEDGER_READ,LEDGER_WRITE').argParser(rolesArgument).makeOptionMandatory())
    .option('--create', 'create the organization when it does not exist')
    .action((o: { organization: string; roles: Role[]; create?: boolean }) =>
      withRuntime(async ({ config, runtime, em }) => {
        const organization = o.create
          ? (await ensureOrganization(em, runtime.sealer, o.organization)).organization
          : await existingOrganization(em, o.organization);
        const key = await createApiKey(em, organization, o.roles, config.platformName);
        return { apiKey: key.apiKey, id: key.id, organization: organization.externalId, roles: key.roles };
      }),
    );
  apiKeys
    .command('list')
    .description('API keys (never the keys themselves), oldest first')
    .option('--organization <externalId>', "only this organization's")
    .option('--include-revoked', 'revoked ones too')
    .action((o: { organization?: string; includeRevoked?: boolean }) =>
      withRuntime(async ({ em }) => {
        const only = o.organization ? await existingOrganization(em, o.organization) : null;
        const byId = new Map((only ? [only] : await listOrganizations(em)).map((org) => [org.id, org.externalId]));
        const keys = await listApiKeys(em, { organizationId: only?.id, includeRevoked: Boolean(o.includeRevoked) });
        return { apiKeys: keys.map((k) => apiKeyJson(k, byId.get(k.organizationId) ?? k.organizationId)) };
      }, 'check'),
    );
  apiKeys
    .command('revoke')
    .description('revokes an API key at once, in every running API (idempotent)')
    .requiredOption('--id <apiKeyId>', "the key's id (as api-keys create and list print it)")
    .action((o: { id: string }) =>
      withRuntime(async ({ em }) => {
        const key = await revokeApiKey(em, o.id, new Date());
        if (!key) throw new Error(`no API key with id ${o.id}`);
        return { id: key.id, revokedAt: key.revokedAt };
      }),
    );
  apiKeys
    .command('rotate')
    .description('a new key with the same organization and roles; the old one is revoked')
    .requiredOption('--id <apiKeyId>', 'the key to replace')
    .action((o: { id: string }) =>
      withRuntime(async ({ config, em }) => {
        const [old] = (await listApiKeys(em, { includeRevoked: false })).filter((k) => k.id === o.id);
        if (!old) throw new Error(`no unrevoked API key with id ${o.id}`);
        const organization = (await listOrganizations(em)).find((org) => org.id === old.organizationId)!;
        const key = await createApiKey(em, organization, parseRoles(config.platformName, old.roles.join(',')), config.platformName);
        await revokeApiKey(em, old.id, new Date());
        return { apiKey: key.apiKey, id: key.id, organization: organization.externalId, roles: key.roles, revoked: old.id };
      }),
    );

  cli
    .command('migrate')
    .description('applies pending database migrations')
    .action(() => withRuntime(async ({ runtime }) => ({ applied: await migrate(runtime.orm) }), 'none'));

  cli
    .command('reconcile')
    .description(
      'compares every ACTIVE account and position with the chain now and prints the summary; --report lists the findings instead (docs/reconciliation.md)',
    )
    .option('--cluster <name>', 'only this cluster (default: every cluster in SVM_CLUSTERS)')
    .option('--report', 'list the drift findings, OPEN first, without running a pass')
    .addOption(new Option('--status <status>', 'with --report: only findings in this state').choices(['OPEN', 'REPAIRED', 'RESOLVED']))
    .option('--no-repair', 'find drift without repairing subscribed records (repairs need TEMPORAL_ADDRESS to start their events)')
    .action((o: { cluster?: string; report?: boolean; status?: FindingStatus; repair: boolean }) =>
      o.report
        ? withRuntime(async ({ em }) => ({ findings: await listFindings(em, { cluster: o.cluster?.toUpperCase(), status: o.status }) }), 'check')
        : withRuntime(async ({ config, runtime }) => reconcileNow(config, runtime, { cluster: o.cluster, repair: o.repair }), 'migrate', { networks: true }),
    );

  const keys = cli.command('keys').description('key-encryption keys (docs/key-custody.md)');
  keys
    .command('rotate-kek')
    .description('re-wraps every sealed key, share and credential under the KEK in the named variable')
    .addOption(
      new Option('--new-key-env <ENV_NAME>', 'the environment variable holding the new KEK (never the key itself on the command line)').makeOptionMandatory(),
    )
    .action((o: { newKeyEnv: string }) =>
      withRuntime(async ({ config, em, log }) => {
        const newKek = process.env[o.newKeyEnv];
        if (!newKek) throw new Error(`environment variable ${o.newKeyEnv} is not set`);
        const sealer = createSealer(newKek, [keyEncryptionKey(config, log), ...(config.previousKeyEncryptionKeys ?? [])]);
        return rotateKek(em, sealer, { secrets: createKeystoreDirectory(secretsDirectory(config), sealer), shares: thresholdShareStores(config, sealer) });
      }),
    );

  return cli;
}

export async function run(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; everything else commander refuses is usage.
      return error.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
