/** A turn: runs `step` once every step that asked before it has ended, and answers what it answers. */
export type Turn = <T>(step: () => Promise<T>) => Promise<T>;

/** Steps that run one at a time, in the order they asked: each starts once the one before has ended, however it ended. */
export function oneAtATime(): Turn {
  let last: Promise<unknown> = Promise.resolve();
  return (step) => {
    const run = last.then(step);
    last = run.catch(() => undefined);
    return run;
  };
}
