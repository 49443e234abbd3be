/** Hands the teardown closure from global set-up to global teardown (both run in jest's parent process). */
const KEY = Symbol.for('campaign-platform.test.teardown');

export function setTeardown(teardown: () => Promise<void>): void {
  (globalThis as Record<symbol, unknown>)[KEY] = teardown;
}

export async function runTeardown(): Promise<void> {
  const teardown = (globalThis as Record<symbol, unknown>)[KEY] as (() => Promise<void>) | undefined;
  if (teardown) await teardown();
}
