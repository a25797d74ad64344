/**
 * The confirm loops' shared clock: a loop waits for the first wake-up on a 50 ms grid at least `ms`
 * away, and all loops of the process waiting for one wake-up are woken by one timer in one callback.
 * Their status polls then fall in one tick, which the network sends as one getSignatureStatuses
 * (src/network/json-rpc-network.ts): status requests per second stay at most 20 per process however
 * many writes wait.
 */
const GRID_MS = 50;
const wakeUps = new Map<number, Promise<void>>();

export function nextPoll(ms: number): Promise<void> {
  const at = Math.ceil((Date.now() + ms) / GRID_MS) * GRID_MS;
  let wakeUp = wakeUps.get(at);
  if (!wakeUp) {
    wakeUp = new Promise<void>((resolve) =>
      setTimeout(() => {
        wakeUps.delete(at);
        resolve();
      }, at - Date.now()),
    );
    wakeUps.set(at, wakeUp);
  }
  return wakeUp;
}
