/**
 * Infrastructure for benchmarks: the same real PostgreSQL and Temporal server the platform uses. Uses
 * DATABASE_URL / TEMPORAL_ADDRESS when set; otherwise starts an embedded PostgreSQL and a headless Temporal dev
 * server of the benchmark's own (removed afterwards).
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { createOrm, migrateToLatest } from '../../src/db/orm.ts';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { locateTemporalCli } from '../../src/dev/temporal-cli.ts';
import { startTemporalDevServer } from '../../src/dev/temporal-dev-server.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface BenchStack {
  databaseUrl: string;
  temporalAddress: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * `temporal: false` for benchmarks that only need PostgreSQL (`temporalAddress` is then empty). `keepDir` keeps
 * the embedded PostgreSQL's data (and the database, by a fixed name) in that folder across runs, for a benchmark
 * whose seed takes long to build; the folder is left in place at `stop()`. `postgresSettings` are server settings
 * of the embedded PostgreSQL (ignored with `DATABASE_URL`).
 */
export async function startBenchStack(
  name: string,
  options: { temporal?: boolean; keepDir?: string; postgresSettings?: Readonly<Record<string, string>> } = {},
): Promise<BenchStack> {
  const id = options.keepDir ? name : `${name}-${Date.now().toString(36)}`;
  const dir = options.keepDir ? path.resolve(options.keepDir) : path.join(ROOT, '.data', 'bench', id);
  await fs.mkdir(dir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'postgres'),
      port: await freePort(),
      database: 'postgres',
      ...(options.postgresSettings ? { settings: options.postgresSettings } : {}),
    });
    adminUrl = postgres.url;
    stops.push(postgres.stop);
  }
  const database = `bench_${id.replace(/[^a-z0-9]/gi, '_')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
  if (!options.keepDir || exists.rowCount === 0)
    await admin.query(`create database ${admin.escapeIdentifier(database)}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const orm = await createOrm({ url: url.toString() });
  await migrateToLatest(orm);
  await orm.close();

  let temporalAddress = process.env.TEMPORAL_ADDRESS ?? (options.temporal === false ? '' : undefined);
  if (temporalAddress === undefined) {
    const cli = await locateTemporalCli({
      cliPath: process.env.TEMPORAL_CLI_PATH,
      toolsDir: path.resolve(ROOT, process.env.TOOLS_DIR ?? '.tools'),
      searchPath: process.env.PATH,
    });
    const temporal = await startTemporalDevServer({
      cliPath: cli,
      dataDir: path.join(dir, 'temporal'),
      port: await freePort(),
      uiPort: null,
      namespace: 'default',
    });
    temporalAddress = temporal.address;
    stops.push(temporal.stop);
  }
  return {
    databaseUrl: url.toString(),
    temporalAddress,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      if (!options.keepDir) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
