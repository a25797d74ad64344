/**
 * The admin CLI. Scripts depend on this contract:
 *   organizations create --external-id <id> [--name <n>]
 *   api-keys create --organization <externalId> --roles <ROLE[,ROLE...]>   (creates the organization when missing)
 *   migrate
 *   keys rotate-kek --new-key-env <ENV_NAME>   (re-wraps every sealed key, share and credential under the KEK in that variable)
 * Each prints one JSON object on stdout; errors go to stderr with exit code 1.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config';
import { parseRoles } from '../domain/roles';
import { openRuntime, forkEm, keyEncryptionKey, secretsDirectory, thresholdShareStores } from '../main/runtime';
import { createSealer } from '../custody/sealing';
import { createKeystoreDirectory } from '../custody/secret-store';
import { rotateKek } from '../custody/kek-rotation';
import { resolveDatabase } from '../main/database';
import { migrate } from '../db/orm';
import { createApiKey, ensureOrganization } from '../custody/credentials';

const usage = `usage:
  cli organizations create --external-id <id> [--name <name>]
  cli api-keys create --organization <externalId> --roles <ROLE[,ROLE...]>
  cli migrate
  cli keys rotate-kek --new-key-env <ENV_NAME>`;

async function main(argv: string[]): Promise<unknown> {
  const [resource, action, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { 'external-id': { type: 'string' }, name: { type: 'string' }, organization: { type: 'string' }, roles: { type: 'string' }, 'new-key-env': { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const database = await resolveDatabase(config, log);
  const runtime = await openRuntime({ ...config, databaseUrl: database.url, databasePoolSize: database.poolSize ?? config.databasePoolSize, clusters: [{ name: 'NONE', rpcUrl: 'http://127.0.0.1:1', allowsAirdrop: false }], defaultCluster: 'NONE' }, log, { migrate: resource !== 'migrate' });
  try {
    const em = forkEm(runtime.orm);
    if (resource === 'migrate' && !action) return { applied: await migrate(runtime.orm) };
    if (resource === 'organizations' && action === 'create') {
      if (!values['external-id']) throw new Error('--external-id is required');
      const { organization, created } = await ensureOrganization(em, runtime.sealer, values['external-id'], values.name);
      return { organization: { id: organization.id, externalId: organization.externalId, name: organization.name ?? null }, created };
    }
    if (resource === 'api-keys' && action === 'create') {
      if (!values.organization) throw new Error('--organization is required');
      if (!values.roles) throw new Error('--roles is required');
      const roles = parseRoles(config.platformName, values.roles);
      const { organization } = await ensureOrganization(em, runtime.sealer, values.organization);
      const key = await createApiKey(em, organization, roles, config.platformName);
      return { apiKey: key.apiKey, id: key.id, organization: organization.externalId, roles: key.roles };
    }
    if (resource === 'keys' && action === 'rotate-kek') {
      const name = values['new-key-env'];
      if (!name) throw new Error('--new-key-env is required');
      // The new KEK comes from the environment, never from the command line (process lists, shell history).
      const newKek = process.env[name];
      if (!newKek) throw new Error(`environment variable ${name} is not set`);
      const sealer = createSealer(newKek, [keyEncryptionKey(config, log), ...(config.previousKeyEncryptionKeys ?? [])]);
      return await rotateKek(em, sealer, { secrets: createKeystoreDirectory(secretsDirectory(config), sealer), shares: thresholdShareStores(config, sealer) });
    }
    throw new Error(usage);
  } finally {
    await runtime.close();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
  },
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  },
);
