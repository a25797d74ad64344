/** Polls until `probe` returns something truthy (conditions, not sleeps); fails after the timeout. */
export async function waitFor<T>(probe: () => Promise<T | undefined | false | null>, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
