/**
 * A Temporal dev server of one test file's own, on a SQLite file, for tests that kill it the hard way and start
 * it again on the same file (the shared server of the test run must never go down).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTemporalDevServer, type RunningTemporal } from '../../src/dev/temporal-dev-server.ts';
import { freePort } from './global-setup.ts';

export interface OwnTemporal {
  /** `host:port`, the same across restarts. */
  readonly address: string;
  /** Starts the server (again) on the same file and port. */
  start(): Promise<void>;
  /** SIGKILLs the server and waits until it is gone. */
  kill(): Promise<void>;
  /** Stops it and removes its file. */
  stop(): Promise<void>;
}

export async function startOwnTemporal(label: string): Promise<OwnTemporal> {
  const dataDir = path.resolve('.data/test', `temporal-${label}-${randomBytes(4).toString('hex')}`);
  const port = await freePort();
  let running: RunningTemporal | null = null;
  const start = async () => {
    running = await startTemporalDevServer({
      cliPath: process.env.TEST_TEMPORAL_CLI!,
      dataDir,
      port,
      uiPort: null,
      namespace: 'default',
    });
    if (!running.process) throw new Error(`a Temporal server already runs on ${running.address}`);
  };
  await start();
  return {
    address: running!.address,
    start,
    async kill() {
      const server = running!.process!;
      const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
      server.kill('SIGKILL');
      await exited;
    },
    async stop() {
      await running?.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
