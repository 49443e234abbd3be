/** Runs a benchmark server in its own process and waits for its `{ ready: true, ... }` line. */
import { spawn, type ChildProcess } from 'node:child_process';

export async function startServerProcess<T>(
  script: string,
  env: Record<string, string>,
): Promise<{
  info: T;
  child: ChildProcess;
  /** Resolves with the next line the server prints that starts with `prefix`; rejects if it exits first. */
  nextLine(prefix: string): Promise<string>;
  stop(): Promise<void>;
}> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiters: { prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const index = waiters.findIndex((waiter) => line.startsWith(waiter.prefix));
      if (index >= 0) waiters.splice(index, 1)[0]!.resolve(line);
    }
  });
  child.once('exit', (code) => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`${script} exited with ${code}`));
  });
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => waiters.push({ prefix, resolve, reject }));
  const info = JSON.parse(await nextLine('{"ready":true')) as T;
  return {
    info,
    child,
    nextLine,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
