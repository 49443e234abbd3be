/**
 * Ingestion under load with restarts: 120 visitors (each with its own first-party session cookie) send
 * impression, click and conversion beacons to a brand site served by an API in its own OS process, while
 * analytics rollups run on a worker in its own OS process. In the middle, the API is SIGKILLed and started
 * again on the same port, and the worker is SIGKILLed during a rollup and replaced.
 *
 * The delivery contract is the browser's: a beacon is resent until it is acknowledged with a 202 (the events
 * are written before the 202, and a resend is deduplicated by event id). Afterwards every event sent exists
 * exactly once, and the rollups equal the exact counts: nothing lost, nothing doubled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '../../src/config.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import type { AnalyticsRollupResult } from '../../workflows/analytics-rollup.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { freePort } from '../support/global-setup.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { spawnWorker, workerEnv, type WorkerProcess } from '../support/worker-process.ts';

const VISITORS = 120;
const BEACONS_PER_VISITOR = 6;

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let apiPort: number;
let siteUrl: string;
const children: { kill(signal: NodeJS.Signals): Promise<void> }[] = [];

interface ApiProcess {
  child: ChildProcess;
  ready: Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The real API entry point (`node src/main.ts`) against the test platform's database and Temporal. */
function spawnApi(port: number): ApiProcess {
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: { ...workerEnv(platform.config), HTTP_PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('API listening')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`API exited early (${signal ?? code}):\n${output}`)));
  });
  ready.catch(() => undefined);
  const api: ApiProcess = {
    child,
    ready,
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  children.push(api);
  return api;
}

async function startWorkerProcess(): Promise<WorkerProcess> {
  const worker = spawnWorker(platform.config);
  children.push(worker);
  await worker.ready;
  return worker;
}

beforeAll(async () => {
  // The in-process worker publishes the seeded site; it stops before the load starts.
  platform = await startTestPlatform({ worker: true, label: 'ingest-restarts' });
  tenant = await createTenant(platform.container, { name: 'Load Co' });
  seeded = await seedWorkspace(platform.container, tenant, 'Load');
  apiPort = await freePort();
  const apiConfig = loadConfig({ ...workerEnv(platform.config), HTTP_PORT: String(apiPort) });
  const em = platform.container.orm.em.fork();
  siteUrl = brandSiteUrl(apiConfig, (await em.findOneOrFail(Workspace, { id: tenant.workspaceId })).slug);
  const slug = (await em.findOneOrFail(Campaign, { id: seeded.campaignId })).slug;
  const localSite = brandSiteUrl(platform.config, (await em.findOneOrFail(Workspace, { id: tenant.workspaceId })).slug);
  for (let i = 0; i < 300; i++) {
    if ((await testFetch(`${localSite}/campaigns/${slug}`)).status === 200) break;
    await sleep(100);
  }
  await platform.worker!.shutdown();
  platform.worker = null;
}, 120_000);

afterAll(async () => {
  for (const child of children.splice(0)) await child.kill('SIGKILL');
  await platform?.close();
  await closeTestFetch();
});

interface SentEvent {
  eventId: string;
  type: 'impression' | 'click' | 'conversion';
  variantId: string;
  visitor: string;
}

test('beacons from many sessions survive an API and a worker killed mid-stream: counts exact', async () => {
  let api = spawnApi(apiPort);
  await api.ready;
  const worker = await startWorkerProcess();

  const sent: SentEvent[] = [];
  let acknowledged = 0;
  let retries = 0;
  /** Resends one beacon until it is acknowledged, like the page's beacon script on a flaky connection. */
  const deliver = async (visitor: string, events: SentEvent[]) => {
    const body = JSON.stringify({
      events: events.map((event) => ({
        type: event.type,
        eventId: event.eventId,
        campaignId: seeded.campaignId,
        variantId: event.variantId,
        ...(event.type === 'conversion' ? { goal: 'purchase', value: 20 } : { zoneId: seeded.zoneId }),
      })),
    });
    for (;;) {
      try {
        const response = await testFetch(`${siteUrl}/_cp/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `cp_vid=${visitor}` },
          body,
        });
        const answer = (await response.json()) as { accepted?: number; rejected?: unknown[] };
        if (response.status === 202) {
          expect(answer.rejected).toEqual([]);
          acknowledged += 1;
          return;
        }
        expect(response.status).toBeGreaterThanOrEqual(500);
      } catch {
        // Connection refused or reset while the API restarts: resend.
      }
      retries += 1;
      await sleep(50);
    }
  };

  const visitor = async (index: number) => {
    const id = `visitor-${String(index).padStart(14, '0')}`;
    const variantId = index % 2 === 0 ? seeded.variantId : seeded.secondVariantId;
    for (let b = 0; b < BEACONS_PER_VISITOR; b++) {
      const events: SentEvent[] = [{ eventId: uuidv7(), type: 'impression', variantId, visitor: id }];
      if ((index + b) % 4 === 0) events.push({ eventId: uuidv7(), type: 'click', variantId, visitor: id });
      if (b === BEACONS_PER_VISITOR - 1 && index % 5 === 0) {
        events.push({ eventId: uuidv7(), type: 'conversion', variantId, visitor: id });
      }
      sent.push(...events);
      await deliver(id, events);
      await sleep(5 + ((index * 7 + b * 13) % 40));
    }
  };

  // Rollups keep running during the load, in small batches, so the worker kill lands inside a pass.
  let loadDone = false;
  const rollupRuns: AnalyticsRollupResult[] = [];
  const rollups = (async () => {
    while (!loadDone) {
      rollupRuns.push(
        await platform.container.temporal.client.workflow.execute('analyticsRollupWorkflow', {
          workflowId: `rollup-under-load-${uuidv7()}`,
          taskQueue: platform.config.temporal.taskQueue,
          args: [{ limitEvents: 40, maxBatches: 1, heartbeatTimeout: '2s' }],
        }),
      );
    }
  })();

  const load = Promise.all(Array.from({ length: VISITORS }, (_, i) => visitor(i)));
  const total = VISITORS * BEACONS_PER_VISITOR;
  const until = async (fraction: number) => {
    while (acknowledged < total * fraction) await sleep(20);
  };

  await until(0.3);
  await api.kill('SIGKILL');
  const killedApiAt = acknowledged;
  api = spawnApi(apiPort);
  await api.ready;

  await until(0.6);
  await worker.kill('SIGKILL');
  // The replacement picks up the killed worker's rollup activity once its heartbeat times out (2 s).
  const replacement = await startWorkerProcess();
  expect(replacement.child.pid).not.toBe(worker.child.pid);

  await load;
  loadDone = true;
  await rollups;
  expect(killedApiAt).toBeLessThan(total);
  expect(retries).toBeGreaterThan(0);
  expect(acknowledged).toBe(total);

  // Every event sent exists exactly once.
  const ids = sent.map((event) => event.eventId);
  const sql = async <Row>(text: string, params: unknown[] = []) =>
    (await platform.container.orm.em.getConnection().getClient().executeQuery<Row>(CompiledQuery.raw(text, params)))
      .rows as Row[];
  const [stored] = await sql<{ rows: string; distinct_ids: string; ours: string }>(
    `select count(*) as rows, count(distinct event_id) as distinct_ids,
       count(*) filter (where event_id = any($1::uuid[])) as ours
     from analytics_events where workspace_id = $2`,
    [ids, tenant.workspaceId],
  );
  expect(stored).toEqual({ rows: String(ids.length), distinct_ids: String(ids.length), ours: String(ids.length) });

  // The rollups (partly done by a worker that was killed) equal the exact counts once caught up.
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  const totals = await sql<Record<string, string>>(
    `select variant_id, impressions, clicks, conversions, exposed_sessions, converted_sessions
     from analytics_variant_totals where workspace_id = $1 order by variant_id`,
    [tenant.workspaceId],
  );
  const expected = [seeded.variantId, seeded.secondVariantId].sort().map((variantId) => {
    const mine = sent.filter((event) => event.variantId === variantId);
    const count = (type: SentEvent['type']) => String(mine.filter((event) => event.type === type).length);
    const sessions = (type: SentEvent['type']) =>
      String(new Set(mine.filter((event) => event.type === type).map((event) => event.visitor)).size);
    return {
      variant_id: variantId,
      impressions: count('impression'),
      clicks: count('click'),
      conversions: count('conversion'),
      exposed_sessions: sessions('impression'),
      converted_sessions: sessions('conversion'),
    };
  });
  expect(totals).toEqual(expected);
  const [watermark] = await sql<{ events_total: string }>(
    `select events_total from analytics_rollup_watermarks where name = 'events'`,
  );
  expect(Number(watermark!.events_total)).toBe(ids.length);
  // Rollups did run during the load (and across the worker kill), not only in the final pass.
  expect(rollupRuns.reduce((sum, run) => sum + run.events, 0)).toBeGreaterThan(0);
  console.log(
    `ingestion under restarts: ${ids.length} events in ${total} beacons from ${VISITORS} sessions; ` +
      `${retries} resends; API killed after ${killedApiAt} acknowledged; ${rollupRuns.length} rollup runs during load`,
  );
}, 240_000);
