/**
 * The API in its own OS process (`node src/main.ts`, the production entry point), for tests that kill it the
 * hard way or stop it with a signal. It uses the test platform's database, Temporal namespace, task queue and
 * data folders, on a port of its own (brand hosts are then `http://<slug>.sites.localhost:<port>`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Config, Env } from '../../src/config.ts';
import { workerEnv } from './worker-process.ts';

export interface ApiExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ApiProcess {
  child: ChildProcess;
  port: number;
  /** Resolves once the API logged that it is listening. */
  ready: Promise<void>;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<ApiExit>;
  output(): string;
  /** Sends `signal` (unless the process is gone already) and resolves with how it exited. */
  kill(signal: NodeJS.Signals): Promise<ApiExit>;
}

/** The environment of an API process for `config`'s platform on `port`; `overrides` are extra variables. */
export function apiEnv(config: Config, port: number, overrides: Env = {}): Record<string, string> {
  const env: Record<string, string> = { ...workerEnv(config), HTTP_PORT: String(port) };
  for (const [name, value] of Object.entries(overrides)) if (value !== undefined) env[name] = value;
  return env;
}

export function spawnApi(config: Config, options: { port: number; env?: Env }): ApiProcess {
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: apiEnv(config, options.port, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<ApiExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal: signal as NodeJS.Signals | null })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"API listening"')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) =>
      reject(new Error(`API exited before listening (${signal ?? code}):\n${output}`)),
    );
  });
  ready.catch(() => undefined);
  return {
    child,
    port: options.port,
    ready,
    exited,
    output: () => output,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
