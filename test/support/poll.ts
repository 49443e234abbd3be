/**
 * The one polling helper: read until a condition holds or a deadline passes. Tests wait for work that
 * happens elsewhere (a worker, a republish, a browser) this way instead of sleeping a guessed time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions<T> {
  timeoutMs: number;
  /** Pause between reads. */
  intervalMs: number;
  /** The error message when time runs out, given the last value read. */
  timeoutMessage: string | ((last: T) => string);
}

/** Reads until `done(value)`; returns that value, or throws with `timeoutMessage` once `timeoutMs` passed. */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: PollOptions<T>,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      const { timeoutMessage } = options;
      throw new Error(typeof timeoutMessage === 'string' ? timeoutMessage : timeoutMessage(value));
    }
    await sleep(options.intervalMs);
  }
}

/** Reads until `probe` returns something other than undefined or null, and returns it. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null> | T | undefined | null,
  what: string,
  { timeoutMs, intervalMs = 200 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const value = await pollUntil(probe, (found) => found !== undefined && found !== null, {
    timeoutMs,
    intervalMs,
    timeoutMessage: `timed out waiting for ${what}`,
  });
  return value as T;
}
