import { takeDevServer } from './temporal';

export default async function globalTeardown(): Promise<void> {
  await takeDevServer()?.close();
}
