/**
 * A platform entry point (`src/main.ts`, `src/worker.ts`) in its own OS process, ready once it has logged a
 * given line: what the API and worker process helpers share.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LoggedProcess {
  child: ChildProcess;
  /** Resolves once the process logged `readyLine`; rejects (with its output) if it exits first. */
  ready: Promise<void>;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<ProcessExit>;
  output(): string;
  /** Sends `signal` (unless the process is gone already) and resolves with how it exited. */
  kill(signal: NodeJS.Signals): Promise<ProcessExit>;
}

/**
 * With `stdin: 'pipe'` the child's stdin stays open for as long as this process lives: a child that exits when
 * its stdin closes (the AT Protocol network does) never outlives a test process that was killed.
 */
export function spawnLogged(
  entry: string,
  env: Record<string, string>,
  readyLine: string,
  name: string,
  options: { stdin?: 'ignore' | 'pipe' } = {},
): LoggedProcess {
  const child = spawn(process.execPath, [entry], { env, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal: signal as NodeJS.Signals | null })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(readyLine)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => reject(new Error(`${name} exited early (${signal ?? code}):\n${output}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    ready,
    exited,
    output: () => output,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
