/** Drives block production: one tick per block time, never overlapping, errors logged not thrown. */
export interface Ticker {
  stop(): void;
}

export function startTicker(intervalMs: number, onTick: () => void, log: (message: string) => void): Ticker {
  const timer = setInterval(() => {
    try {
      onTick();
    } catch (error) {
      log(`local node: tick failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }, intervalMs);
  return { stop: () => clearInterval(timer) };
}
