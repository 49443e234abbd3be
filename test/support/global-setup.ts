/**
 * Once per test run: a real PostgreSQL and a real Temporal server, plus a workflow bundle built from the
 * current sources.
 *
 * - PostgreSQL: `DATABASE_URL` if set (a server where we may create databases), else an embedded cluster of
 *   this run's own in `.data/test/`. A template database is migrated once; every test file clones it into
 *   a database of its own.
 * - Temporal: `TEMPORAL_ADDRESS` if set, else a dev server on a free port with its SQLite file in a fresh
 *   folder of `.data/test/`.
 * - The Versity S3 gateway binary (built on first use), which the S3 media store's tests start.
 * - The test tools of `test-tools/atproto` (installed into `TOOLS_DIR` on first use; checking that the copy is
 *   current takes milliseconds), with which each Bluesky test file starts an AT Protocol network
 *   (`bluesky-network.ts`).
 * What the test files need is handed to them through environment variables (`TEST_*`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import pg from 'pg';
import { createOrm, migrateToLatest } from '../../src/db/orm.ts';
import { ensureChromium } from '../../src/dev/chromium.ts';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { locateS3Gateway } from '../../src/dev/s3-gateway.ts';
import { locateTemporalCli } from '../../src/dev/temporal-cli.ts';
import { startTemporalDevServer } from '../../src/dev/temporal-dev-server.ts';
import { loadInspectorWidget } from '../../src/mcp/ui/inspector-bundle.ts';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../src/temporal/workflows-path.ts';
import { addTeardown } from './global-state.ts';
import { ensureAtprotoTestTools } from './test-tools.ts';

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

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEST_DATA = path.join(ROOT, '.data', 'test');

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  await fs.mkdir(TEST_DATA, { recursive: true });
  const stops: (() => Promise<void>)[] = [];

  ensureChromium((line) => process.stdout.write(`[global-setup] ${line}\n`));

  // PostgreSQL
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    // A cluster per run (initdb takes a second or two): concurrent runs never share or stop each other's server.
    const dataDir = path.join(TEST_DATA, `postgres-${runId}`);
    const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
    adminUrl = postgres.url;
    stops.push(async () => {
      await postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    });
  }
  const template = `cp_test_${runId}_template`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${admin.escapeIdentifier(template)}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const orm = await createOrm({ url: templateUrl.toString() });
  await migrateToLatest(orm);
  await orm.close();

  // Temporal
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  const goTools = {
    toolsDir: path.resolve(ROOT, process.env.TOOLS_DIR ?? '.tools'),
    searchPath: process.env.PATH,
    onLog: (line: string) => process.stdout.write(`[global-setup] ${line}\n`),
  };
  const temporalCli = await locateTemporalCli({ ...goTools, cliPath: process.env.TEMPORAL_CLI_PATH });
  // A real S3-compatible server for the S3 media store's tests (each test file starts its own).
  process.env.TEST_S3_GATEWAY = await locateS3Gateway({ ...goTools, explicitPath: process.env.S3_GATEWAY_PATH });
  process.env.TEST_ATPROTO_NODE_MODULES = await ensureAtprotoTestTools(goTools);
  if (!temporalAddress) {
    const temporal = await startTemporalDevServer({
      cliPath: temporalCli,
      dataDir: path.join(TEST_DATA, `temporal-${runId}`),
      port: await freePort(),
      uiPort: null,
      namespace: 'default',
    });
    temporalAddress = temporal.address;
    stops.push(async () => {
      await temporal.stop();
      await fs.rm(path.join(TEST_DATA, `temporal-${runId}`), { recursive: true, force: true });
    });
  }

  // One workflow bundle from the current sources, shared by every worker the tests start.
  const bundlePath = path.join(TEST_DATA, `workflow-bundle-${runId}.js`);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: new DefaultLogger('WARN'),
  });
  await fs.writeFile(bundlePath, code);
  stops.push(() => fs.rm(bundlePath, { force: true }));
  // The inspector widget's bundle (dist/, keyed by its sources): built here when they changed, so no test's
  // server waits for the build at boot.
  loadInspectorWidget();

  process.env.TEST_RUN_ID = runId;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
  process.env.TEST_TEMPLATE_DATABASE = template;
  process.env.TEST_TEMPORAL_ADDRESS = temporalAddress;
  process.env.TEST_TEMPORAL_CLI = temporalCli;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;

  addTeardown(async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [
      `cp_test_${runId}_%`,
    ]);
    for (const { datname } of rows) {
      await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
    }
    await client.end();
    for (const stop of stops.reverse()) await stop();
  });
  process.stdout.write(
    `\n[global-setup] PostgreSQL, Temporal, workflow bundle and test tools ready in ${Date.now() - started} ms\n`,
  );
}
