/**
 * A real platform for a test file: its own database (cloned from the migrated template), the shared Temporal
 * server with a task queue of its own, the real Koa application listening on a free port, and — when asked —
 * a real worker on that task queue.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import pg from 'pg';
import { loadConfig, type Config, type Env } from '../../src/config.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { createHttpApp, type HttpApp } from '../../src/http/app.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { analyticsScheduleId } from '../../src/temporal/analytics-schedule.ts';
import { channelMetricsScheduleId } from '../../src/temporal/channel-metrics-schedule.ts';
import { startWorker, type RunningWorker } from '../../src/worker.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { freePort } from './global-setup.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (global set-up provides it)`);
  return value;
}

/** Clones the migrated template into a fresh database for one test file. */
export async function createTestDatabase(label = 'db'): Promise<string> {
  const adminUrl = required('TEST_DATABASE_ADMIN_URL');
  const name = `cp_test_${required('TEST_RUN_ID')}_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(
      `create database ${admin.escapeIdentifier(name)} template ${admin.escapeIdentifier(required('TEST_TEMPLATE_DATABASE'))}`,
    );
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const TEST_COOKIE_SECRET = 'test-cookie-secret-0123456789abcdefghijklmnop';
export const TEST_CREDENTIAL_KEY = 'test-credential-key-0123456789abcdefghijklmnop';

/** A validated config for tests; `overrides` are environment variables. */
export function testConfig(port: number, databaseUrl: string, overrides: Env = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_PORT: String(port),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: required('TEST_TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    WORKFLOW_BUNDLE_PATH: required('TEST_WORKFLOW_BUNDLE'),
    COOKIE_SECRETS: TEST_COOKIE_SECRET,
    CREDENTIAL_KEYS: TEST_CREDENTIAL_KEY,
    DATA_DIR: '.data/test',
    ...overrides,
  });
}

export interface TestPlatform {
  config: Config;
  container: Container;
  port: number;
  /** Base URLs with the real port, e.g. `http://app.localhost:41234`. */
  urls: Config['urls'];
  /** The Koa application alone (`app.callback()` skips the brand hot path the served listener runs first). */
  app: HttpApp['app'];
  worker: RunningWorker | null;
  startWorker(): Promise<RunningWorker>;
  close(): Promise<void>;
}

let runtimeInstalled = false;

/** The Temporal runtime of this test process, installed once and logging errors only (workers, replays). */
export function installQuietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  runtimeInstalled = true;
}

export async function startTestPlatform(
  options: { worker?: boolean; env?: Env; label?: string; log?: Logger } = {},
): Promise<TestPlatform> {
  const port = await freePort();
  const config = testConfig(port, await createTestDatabase(options.label), options.env);
  // A test that reads the log (the access log, say) passes its own.
  const log = options.log ?? createLogger({ level: config.logLevel, name: 'test' });
  const container = await createContainer(config, { log, migrate: false });
  const { app, listener, close: closeApp } = createHttpApp(container);
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  void (server.address() as AddressInfo);

  const platform: TestPlatform = {
    config,
    container,
    port,
    urls: config.urls,
    app,
    worker: null,
    async startWorker() {
      installQuietTemporalRuntime();
      platform.worker = await startWorker(config, log);
      return platform.worker;
    },
    async close() {
      if (platform.worker) await platform.worker.shutdown();
      // Each platform has its own task queue and so its own rollup schedule on the shared Temporal server;
      // left behind, it would start a run every minute that no worker ever picks up.
      for (const scheduleId of [
        analyticsScheduleId(config.temporal.taskQueue),
        channelMetricsScheduleId(config.temporal.taskQueue),
      ]) {
        await container.temporal.client.schedule
          .getHandle(scheduleId)
          .delete()
          .catch(() => undefined);
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await closeApp();
      await container.close();
    },
  };
  if (options.worker) await platform.startWorker();
  return platform;
}

/** The tool server's URL with a fresh call code for `profile` (any workspace): `…/api/mcp?profile=<code>`. */
export async function profileUrl(platform: TestPlatform, profile: string): Promise<string> {
  const { code } = await platform.container.services.callCodes.issue(
    acrossWorkspaces(platform.container.orm.em),
    { profile, workspaceId: null },
    'test',
  );
  return `${platform.urls.mcp}?profile=${encodeURIComponent(code)}`;
}
