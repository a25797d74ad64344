/**
 * `npm run local-node`: the local SVM node alone. LOCAL_NODE_PORT (default 8899),
 * LOCAL_NODE_BLOCK_TIME_MS (default 400), LOCAL_NODE_PROGRAMS (extra programs, `<programId>=<path.so>,...`),
 * LOCAL_NODE_FAULT_CONTROLS (`true`: the fork hook as the RPC method localNode_dropUnfinalizedBlocks, for the chaos checker),
 * state under $DATA_DIR/local-node (default .data).
 */
import path from 'node:path';
import { programsFromSpec, startLocalNode } from './index';

async function main(): Promise<void> {
  const port = Number(process.env.LOCAL_NODE_PORT ?? 8899);
  const node = await startLocalNode({
    port,
    dataDir: path.resolve(process.env.DATA_DIR ?? '.data', 'local-node'),
    blockTimeMs: Number(process.env.LOCAL_NODE_BLOCK_TIME_MS ?? 400),
    programs: programsFromSpec(process.env.LOCAL_NODE_PROGRAMS),
    faultControls: process.env.LOCAL_NODE_FAULT_CONTROLS === 'true',
    log: (message) => console.log(message),
  });
  console.log(`Local SVM node at ${node.url} (PubSub ${node.wsUrl})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: saving state and stopping`);
    node.close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
