/**
 * A worker in its own OS process (`node src/worker.ts`), for tests that kill it the hard way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Config } from '../../src/config.ts';

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves once the worker logged that it is polling. */
  ready: Promise<void>;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export function workerEnv(config: Config): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HTTP_PORT: String(config.http.port),
    DATABASE_URL: config.database.url!,
    TEMPORAL_ADDRESS: config.temporal.address!,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    WORKFLOW_BUNDLE_PATH: config.temporal.workflowBundlePath!,
    COOKIE_SECRETS: config.secrets.cookieKeys.join(','),
    // The same data and media folders as the platform that spawned it, so what the worker stores (renders,
    // images) is what the platform's media store reads (the defaults would be `.data`, not the test's folder).
    DATA_DIR: config.dataDir,
    ...(config.media.store === 'local' ? { MEDIA_DIR: config.media.dir } : {}),
  };
}

export function spawnWorker(config: Config): WorkerProcess {
  const child = spawn(process.execPath, ['src/worker.ts'], {
    env: workerEnv(config),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"worker running"')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`worker exited early (${signal ?? code}):\n${output}`)));
  });
  ready.catch(() => undefined);
  return {
    child,
    ready,
    output: () => output,
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
