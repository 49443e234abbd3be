/**
 * Hands teardown closures from the global set-ups to the global teardown (all run in jest's parent process).
 * A list: when a run selects several projects (`npm test`), each project's set-up adds its own, and the one
 * shared teardown module runs them all, newest first.
 */
const KEY = Symbol.for('campaign-platform.test.teardown');

function teardowns(): (() => Promise<void>)[] {
  const state = globalThis as Record<symbol, (() => Promise<void>)[] | undefined>;
  return (state[KEY] ??= []);
}

export function addTeardown(teardown: () => Promise<void>): void {
  teardowns().push(teardown);
}

export async function runTeardown(): Promise<void> {
  const pending = teardowns().splice(0).reverse();
  for (const teardown of pending) await teardown();
}
