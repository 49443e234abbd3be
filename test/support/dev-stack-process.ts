/**
 * The dev stack (`scripts/dev-stack.ts`, what `npm start` runs) in its own OS process, with a data folder and
 * ports of its own, for tests that use the platform the way a person who typed `npm start` does.
 *
 * `stop()` leaves nothing behind, even when the stack hangs or a test failed half-way: Ctrl-C (SIGINT) first,
 * which stops the API, the worker, Temporal and PostgreSQL in order; if the stack has not exited in time, its
 * process tree is killed, then whatever its data folder's pid files still name (PostgreSQL runs as a daemon
 * that is nobody's child), then the folder is removed.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './global-setup.ts';
import { spawnLogged, type LoggedProcess } from './logged-process.ts';
import { isProcessAlive } from '../../src/dev/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface DevStack {
  process: LoggedProcess;
  /** Resolves once the stack printed its banner; rejects (with its output) if it exits first. */
  ready: Promise<void>;
  dataDir: string;
  /** The variables that point a process at this stack's local services; the CLI needs only these. */
  env: Record<string, string>;
  /** What the stack printed once it was running (the start banner). */
  banner(): string;
  stop(): Promise<void>;
}

/** Every live descendant of `pid`, read from /proc (children of children included). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces, inside parentheses): state, then ppid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** The pid in the first line of a pid file the stack's services wrote, if that process still runs. */
function pidFrom(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return pid > 0 && isProcessAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isProcessAlive)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * Starts the stack; `ready` resolves once it printed its banner. The handle comes first so that a test can
 * stop the stack even when it never becomes ready. `extraEnv` is added to the stack's environment (not to
 * `env`, which is only what a client of the stack needs).
 */
export async function launchDevStack(extraEnv: Record<string, string> = {}): Promise<DevStack> {
  const dataDir = path.join(ROOT, '.data', 'test', `dev-stack-${randomBytes(4).toString('hex')}`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    HTTP_PORT: String(await freePort()),
  };
  const stack = spawnLogged('scripts/dev-stack.ts', { ...env, ...extraEnv }, 'Press Ctrl-C to stop.', 'dev stack');

  const stop = async () => {
    const tree = stack.child.pid ? [stack.child.pid, ...descendants(stack.child.pid)] : [];
    const exited = await Promise.race([stack.kill('SIGINT').then(() => true), sleep(60_000).then(() => false)]);
    if (!exited) for (const pid of tree.filter(isProcessAlive)) process.kill(pid, 'SIGKILL');
    // What the pid files still name outlived the stack (a hang, a kill): PostgreSQL's fast shutdown, Temporal.
    const postgres = pidFrom(path.join(dataDir, 'postgres', 'postmaster.pid'));
    if (postgres) process.kill(postgres, 'SIGINT');
    const temporal = pidFrom(path.join(dataDir, 'temporal', 'temporal.pid'));
    if (temporal) process.kill(temporal, 'SIGKILL');
    await waitGone([...tree, postgres ?? 0, temporal ?? 0].filter(Boolean), 30_000);
    await fs.rm(dataDir, { recursive: true, force: true });
  };

  return { process: stack, ready: stack.ready, dataDir, env, banner: () => stack.output(), stop };
}
