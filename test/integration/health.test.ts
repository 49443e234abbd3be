/**
 * `/healthz` and `/readyz` against dependencies that really go away: a PostgreSQL and a Temporal dev server of
 * this file's own (the run's shared ones must never stop) are stopped and started again, and readiness follows
 * on the platform host and on the worker's WORKER_HEALTH_PORT listener, while `/healthz` (no I/O) stays 200
 * throughout. The API process's own HEALTH_PORT listener is checked once, on `node src/main.ts`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createOrm, migrateToLatest } from '../../src/db/orm.ts';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/dev/embedded-postgres.ts';
import type { ReadinessReport } from '../../src/domain/platform/readiness.ts';
import { freePort } from '../support/global-setup.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startOwnTemporal, type OwnTemporal } from '../support/own-temporal.ts';
import { spawnApi } from '../support/api-process.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';

const pgDataDir = path.resolve('.data/test', `postgres-health-${randomBytes(4).toString('hex')}`);
let pgPort: number;
let postgres: RunningPostgres;
let temporal: OwnTemporal;
let platform: TestPlatform;
let apiHealthPort: number;
let workerHealthPort: number;

async function startPostgres(): Promise<RunningPostgres> {
  return startEmbeddedPostgres({ dataDir: pgDataDir, port: pgPort, database: 'campaign_platform' });
}

beforeAll(async () => {
  pgPort = await freePort();
  [postgres, temporal] = await Promise.all([startPostgres(), startOwnTemporal('health')]);
  const orm = await createOrm({ url: postgres.url });
  await migrateToLatest(orm);
  await orm.close();
  [apiHealthPort, workerHealthPort] = [await freePort(), await freePort()];
  platform = await startTestPlatform({
    label: 'health',
    worker: true,
    env: {
      DATABASE_URL: postgres.url,
      TEMPORAL_ADDRESS: temporal.address,
      HEALTH_PORT: String(apiHealthPort),
      WORKER_HEALTH_PORT: String(workerHealthPort),
    },
  });
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
  await temporal?.stop();
  // A failed test may have left it stopped.
  await postgres?.stop().catch(() => undefined);
  await fs.rm(pgDataDir, { recursive: true, force: true });
});

interface Probe {
  status: number;
  report: ReadinessReport;
}

const endpoints = () => ({
  'platform host': `${platform.urls.platform}/readyz`,
  worker: `http://127.0.0.1:${workerHealthPort}/readyz`,
});

async function readyz(url: string): Promise<Probe> {
  const response = await testFetch(url);
  return { status: response.status, report: (await response.json()) as ReadinessReport };
}

/** Polls every endpoint until each answers `status`; returns what each said. */
async function allAnswer(status: 200 | 503): Promise<Record<string, Probe>> {
  const answers: Record<string, Probe> = {};
  for (const [name, url] of Object.entries(endpoints())) {
    answers[name] = await pollUntil(
      () => readyz(url),
      (probe) => probe.status === status,
      {
        timeoutMs: 30_000,
        intervalMs: 200,
        timeoutMessage: (last) => `${name} /readyz stayed ${last.status}: ${JSON.stringify(last.report)}`,
      },
    );
  }
  return answers;
}

const downChecks = (report: ReadinessReport) =>
  Object.entries(report.checks)
    .filter(([, check]) => check.status === 'down')
    .map(([name]) => name)
    .sort();

async function expectAlive() {
  for (const url of [`${platform.urls.platform}/healthz`, `http://127.0.0.1:${workerHealthPort}/healthz`]) {
    const response = await testFetch(url);
    expect([url, response.status, await response.json()]).toEqual([url, 200, { status: 'alive' }]);
  }
}

it('is ready with every dependency up, naming each check with its latency', async () => {
  const answers = await allAnswer(200);
  expect(Object.keys(answers['platform host']!.report.checks).sort()).toEqual(['media', 'postgres', 'temporal']);
  expect(Object.keys(answers.worker!.report.checks).sort()).toEqual(['media', 'postgres', 'temporal', 'worker']);
  for (const { report } of Object.values(answers)) {
    expect(report.status).toBe('ready');
    for (const check of Object.values(report.checks)) expect(check.latencyMs).toBeGreaterThanOrEqual(0);
  }
  await expectAlive();
});

it('answers on HEALTH_PORT from the API process (`node src/main.ts`)', async () => {
  const api = spawnApi(platform.config, { port: await freePort(), env: { HEALTH_PORT: String(apiHealthPort) } });
  try {
    await api.ready;
    const ready = await pollUntil(
      () => readyz(`http://127.0.0.1:${apiHealthPort}/readyz`),
      (probe) => probe.status === 200,
      { timeoutMs: 15_000, intervalMs: 200, timeoutMessage: (last) => JSON.stringify(last) },
    );
    expect(Object.keys(ready.report.checks).sort()).toEqual(['media', 'postgres', 'temporal']);
    const alive = await testFetch(`http://127.0.0.1:${apiHealthPort}/healthz`);
    expect(alive.status).toBe(200);
    // Only the probes are served there: nothing of the platform leaks onto the private port.
    expect((await testFetch(`http://127.0.0.1:${apiHealthPort}/api/mcp`)).status).toBe(404);
  } finally {
    await api.kill('SIGTERM');
  }
});

it('turns unready naming postgres while PostgreSQL is stopped, and ready once it is back', async () => {
  await postgres.stop();
  const down = await allAnswer(503);
  for (const [name, { report }] of Object.entries(down)) {
    expect([name, report.status, downChecks(report)]).toEqual([name, 'unready', ['postgres']]);
  }
  await expectAlive();

  postgres = await startPostgres();
  const up = await allAnswer(200);
  for (const { report } of Object.values(up)) expect(downChecks(report)).toEqual([]);
});

it('turns unready naming temporal while Temporal is down, and ready once it is back', async () => {
  await temporal.kill();
  const down = await allAnswer(503);
  for (const [name, { report }] of Object.entries(down)) {
    expect([name, report.status, downChecks(report)]).toEqual([name, 'unready', ['temporal']]);
  }
  await expectAlive();

  await temporal.start();
  const up = await allAnswer(200);
  for (const { report } of Object.values(up)) expect(downChecks(report)).toEqual([]);
});
