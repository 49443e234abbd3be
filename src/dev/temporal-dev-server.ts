/**
 * The embedded Temporal server used when `TEMPORAL_ADDRESS` is unset: `temporal server start-dev` with a
 * SQLite file (so workflows survive a server restart), the web UI on, and the platform's search attributes.
 *
 * The server gets a generous start deadline (a cold SQLite schema set-up on a busy 2-core machine can take
 * longer than the 5 s the Temporal test harness allows) and is stopped with SIGTERM, then SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { CUSTOM_SEARCH_ATTRIBUTES, ensureSearchAttributes } from '../temporal/search-attributes.ts';
import { isProcessAlive } from './processes.ts';

export interface TemporalDevServerOptions {
  cliPath: string;
  /** Folder for the SQLite file and the pid file. */
  dataDir: string;
  port: number;
  /** Web UI port; `null` runs headless. */
  uiPort: number | null;
  namespace: string;
  ip?: string;
  startTimeoutMs?: number;
  onLog?: (line: string) => void;
}

export interface RunningTemporal {
  address: string;
  uiUrl: string | null;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
  /** The child process, when this process started it (tests kill it to simulate a crash). */
  process: ChildProcess | null;
}

async function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until the frontend answers `GetSystemInfo` (the server is really up, not just listening). */
export async function waitForTemporal(address: string, timeoutMs: number, exited?: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exited?.()) throw new Error('the Temporal dev server exited during start-up');
    try {
      const connection = await Connection.connect({ address, connectTimeout: '2s' });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await sleep(250);
    }
  }
  throw new Error(`Temporal at ${address} did not become ready within ${timeoutMs} ms: ${String(lastError)}`);
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<RunningTemporal> {
  const ip = options.ip ?? '127.0.0.1';
  const address = `${ip}:${options.port}`;
  const uiUrl = options.uiPort ? `http://${ip === '0.0.0.0' ? '127.0.0.1' : ip}:${options.uiPort}` : null;
  const log = options.onLog ?? (() => undefined);
  await fs.mkdir(options.dataDir, { recursive: true });
  const pidFile = path.join(options.dataDir, 'temporal.pid');

  // A server left running by an earlier run (e.g. after a hard kill) is reused rather than fought over.
  if (existsSync(pidFile)) {
    const pid = Number(await fs.readFile(pidFile, 'utf8'));
    if (pid && isProcessAlive(pid) && (await portOpen(ip, options.port))) {
      await waitForTemporal(address, options.startTimeoutMs ?? 60_000);
      log(`reusing the Temporal dev server already running at ${address} (pid ${pid})`);
      return { address, uiUrl, stop: async () => undefined, process: null };
    }
    await fs.rm(pidFile, { force: true });
  }
  if (await portOpen(ip, options.port)) {
    throw new Error(
      `Port ${options.port} is taken by another process; set TEMPORAL_DEV_PORT to a free port, or TEMPORAL_ADDRESS to use that server`,
    );
  }

  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
    '--db-filename',
    path.join(options.dataDir, 'temporal.sqlite'),
    '--log-level',
    'warn',
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    ...CUSTOM_SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
  ];
  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(line);
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  if (child.pid) await fs.writeFile(pidFile, String(child.pid));

  const stop = async () => {
    if (exited) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timedOut = await Promise.race([gone.then(() => false), sleep(10_000).then(() => true)]);
    if (timedOut) {
      child.kill('SIGKILL');
      await gone;
    }
    await fs.rm(pidFile, { force: true });
  };

  try {
    await waitForTemporal(address, options.startTimeoutMs ?? 60_000, () => exited);
    const connection = await Connection.connect({ address });
    try {
      await ensureSearchAttributes(connection.operatorService, options.namespace);
    } finally {
      await connection.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, uiUrl, stop, process: child };
}
