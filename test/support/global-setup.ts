// One Temporal server for the whole integration run: the one named by TEMPORAL_ADDRESS, else an in-memory dev server.
import { startTemporalDevServer } from '../../dev/temporal/dev-server';
import { keepDevServer } from './temporal';

export default async function globalSetup(): Promise<void> {
  if (process.env.TEMPORAL_ADDRESS) {
    process.env.TEMPORAL_NAMESPACE ||= 'default';
    return;
  }
  const verbose = Boolean(process.env.TEMPORAL_TEST_LOG);
  const server = await startTemporalDevServer({
    port: 0,
    // The UI costs start time; TEMPORAL_TEST_UI=1 puts it on a free port for debugging a run.
    ui: Boolean(process.env.TEMPORAL_TEST_UI),
    uiPort: 0,
    log: (message) => {
      if (verbose || !message.startsWith('temporal: ')) process.stderr.write(`[temporal-dev-server] ${message}\n`);
    },
  });
  // Workers inherit this process's environment.
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = server.namespace;
  keepDevServer(server);
}
