/**
 * Ingestion under load with restarts. Simulated visitors browse a brand site served by the API in its own OS
 * process (`node src/main.ts`): each first page view gets the site's anonymous visitor cookie, and every page
 * view reports what the beacon script reports — one impression per rendered slot, a click now and then, a
 * conversion at the end for some — with event ids minted by the client (UUIDv7). Rollups run on a worker in
 * its own OS process (`node src/worker.ts`). In the middle, the API is SIGKILLed and started again on the same
 * port, and the worker is SIGKILLed while a rollup pass is committing batches, then replaced.
 *
 * The delivery contract is the browser's: a beacon is resent until it is acknowledged with a 202 (events are
 * written before the 202; a resend is deduplicated by event id). Afterwards every event sent exists exactly
 * once, and every rollup counter equals the exact count over the raw events: nothing lost, nothing doubled.
 * Markdown twins (impressions recorded server-side through a buffer) are checked across a graceful stop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '../../src/config.ts';
import { ROLLUP_LAG_MS, runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { analyticsScheduleId } from '../../src/temporal/analytics-schedule.ts';
import type { AnalyticsRollupInput, AnalyticsRollupResult } from '../../workflows/analytics-rollup.ts';
import { apiEnv, spawnApi, type ApiProcess } from '../support/api-process.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { freePort } from '../support/global-setup.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { eventually, pollUntil } from '../support/poll.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

const VISITORS = 150;
const VIEWS_PER_VISITOR = 8;
/** Visitors arrive over the first ~3 s and think 300–900 ms between page views: the load lasts ~8 s. */
const ARRIVAL_MS = 20;
const thinkMs = (visitor: number, view: number) => 300 + ((visitor * 37 + view * 101) % 600);
/** Events per rollup batch while the worker is killed: small, so a pass is many transactions long. */
const SMALL_BATCH = 10;

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let apiPort: number;
let siteUrl: string;
let campaignPath: string;
const processes: { kill(signal: NodeJS.Signals): Promise<unknown> }[] = [];

async function sql<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  const client = platform.container.orm.em.getConnection().getClient();
  return (await client.executeQuery<Row>(CompiledQuery.raw(text, params))).rows as Row[];
}

async function startApi(): Promise<ApiProcess> {
  const api = spawnApi(platform.config, { port: apiPort });
  processes.push(api);
  await api.ready;
  return api;
}

async function startWorkerProcess(): Promise<WorkerProcess> {
  const worker = spawnWorker(platform.config);
  processes.push(worker);
  await worker.ready;
  return worker;
}

beforeAll(async () => {
  // The in-process worker renders the seeded site (the real republish workflow); it stops before the load.
  platform = await startTestPlatform({ worker: true, label: 'ingest-restarts' });
  tenant = await createTenant(platform.container, { name: 'Load Co' });
  seeded = await seedWorkspace(platform.container, tenant, 'Load');
  const em = acrossWorkspaces(platform.container.orm.em);
  const slug = (await em.findOneOrFail(Workspace, { id: tenant.workspaceId })).slug;
  campaignPath = `/campaigns/${(await em.findOneOrFail(Campaign, { id: seeded.campaignId })).slug}`;
  const inProcessSite = brandSiteUrl(platform.config, slug);
  // Publishing, creating the surface and deploying each trigger a render; the deployment is rendered once the
  // surface page (and the campaign page) carry a slot.
  await pollUntil(
    () =>
      Promise.all(
        ['/home', campaignPath].map(async (path) => {
          const response = await testFetch(`${inProcessSite}${path}`);
          return response.status === 200 && (await response.text()).includes('class="cp-slot"');
        }),
      ),
    (pages) => pages.every(Boolean),
    // Never gives up before the hook's own timeout would.
    { timeoutMs: 120_000, intervalMs: 100, timeoutMessage: 'the deployment never showed on the brand site' },
  );
  await platform.worker!.shutdown();
  platform.worker = null;
  // Only the rollups this test starts may run: the every-minute schedule would otherwise drain the backlog in
  // one big batch whenever it fires. (An API start updates the schedule and keeps it paused.)
  const schedule = platform.container.temporal.client.schedule.getHandle(
    analyticsScheduleId(platform.config.temporal.taskQueue),
  );
  await schedule.pause('analytics-ingestion-restarts test');
  for (const action of (await schedule.describe()).info.runningActions) {
    await platform.container.temporal.client.workflow
      .getHandle(action.workflow.workflowId)
      .terminate('test: only the test rollups run')
      .catch(() => undefined);
  }
  apiPort = await freePort();
  siteUrl = brandSiteUrl(loadConfig(apiEnv(platform.config, apiPort)), slug);
}, 120_000);

afterAll(async () => {
  for (const child of processes.splice(0)) await child.kill('SIGKILL');
  await platform?.close();
  await closeTestFetch();
});

type EventType = 'impression' | 'click' | 'conversion';

interface Slot {
  campaignId: string;
  variantId: string;
  zoneId?: string;
  surfaceId?: string;
}

interface SentEvent {
  eventId: string;
  type: EventType;
  session: string;
}

/** The slots of a served HTML page, as the beacon script finds them (`[data-cp-campaign][data-cp-variant]`). */
function slotsOf(html: string): Slot[] {
  return [...html.matchAll(/<div class="cp-slot"([^>]*)>/g)].map(([, attributes]) => {
    const attribute = (name: string) => new RegExp(`data-cp-${name}="([^"]+)"`).exec(attributes!)?.[1];
    return {
      campaignId: attribute('campaign')!,
      variantId: attribute('variant')!,
      ...(attribute('zone') ? { zoneId: attribute('zone') } : {}),
      ...(attribute('surface') ? { surfaceId: attribute('surface') } : {}),
    };
  });
}

test('beacons from many sessions survive the API and the worker killed mid-stream: counts exact', async () => {
  const started = Date.now();
  const phases: string[] = [];
  const mark = (what: string) => phases.push(`${what} ${Date.now() - started}`);
  const client = platform.container.temporal.client;
  const [firstApi, firstWorker] = await Promise.all([startApi(), startWorkerProcess()]);
  let api = firstApi;
  mark('api and worker ready');

  const sent: SentEvent[] = [];
  const stats = { pageViews: 0, beacons: 0, acknowledged: 0, failedAttempts: 0, resentBeacons: 0, reloads: 0 };
  /** Slots per path, as served to each visitor: what the markdown twin of the same page must record. */
  const slotsSeen = new Map<string, number>();
  const cookies: string[] = [];
  let loadError: unknown = null;

  /**
   * Waits for the test's own steps, giving up at once if the load failed; the deadline only turns a hang into a
   * readable failure.
   */
  const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
    eventually(
      async () => {
        if (await condition()) return true;
        if (loadError) throw loadError;
        return undefined;
      },
      what,
      { timeoutMs: 60_000, intervalMs: 20 },
    );

  /** One request; null when the connection was refused or dropped (the API is down or restarting). */
  const request = async (path: string, init: RequestInit = {}) => {
    try {
      const response = await testFetch(`${siteUrl}${path}`, init);
      return { status: response.status, headers: response.headers, body: await response.text() };
    } catch {
      return null;
    }
  };
  // The simulated visitors' own pause before trying again (capped exponential backoff, as a browser's beacon
  // resend would): part of the load, not a wait of the test's.
  const backoff = (attempt: number) => sleep(Math.min(500, 25 * 2 ** attempt));

  /** GET until a 200, as a visitor reloads a page that did not load. */
  const loadPage = async (path: string, cookie: string | null) => {
    for (let attempt = 0; ; attempt++) {
      const response = await request(path, { headers: cookie ? { cookie } : {} });
      if (response?.status === 200) return response;
      if (response && response.status < 500)
        throw new Error(`GET ${path} answered ${response.status}: ${response.body}`);
      stats.reloads += 1;
      await backoff(attempt);
    }
  };

  /** POST until a 202, as the delivery contract says; a 4xx would be a lost event and fails the test. */
  const deliver = async (cookie: string, events: Record<string, unknown>[]) => {
    stats.beacons += 1;
    // The beacon script sends text/plain (a simple request, no CORS preflight).
    const init = {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie },
      body: JSON.stringify({ events }),
    };
    for (let attempt = 0; ; attempt++) {
      const response = await request('/_cp/events', init);
      if (response?.status === 202) {
        const { accepted, rejected } = JSON.parse(response.body) as { accepted: number; rejected: unknown[] };
        if (accepted !== events.length || rejected.length > 0) throw new Error(`beacon not accepted: ${response.body}`);
        stats.acknowledged += 1;
        if (attempt > 0) stats.resentBeacons += 1;
        return;
      }
      if (response && response.status < 500) throw new Error(`beacon answered ${response.status}: ${response.body}`);
      stats.failedAttempts += 1;
      await backoff(attempt);
    }
  };

  const event = (session: string, type: EventType, fields: Record<string, unknown>) => {
    const eventId = uuidv7();
    sent.push({ eventId, type, session });
    return { type, eventId, ...fields };
  };

  const visit = async (index: number) => {
    await sleep(index * ARRIVAL_MS);
    let cookie: string | null = null;
    for (let view = 0; view < VIEWS_PER_VISITOR; view++) {
      const path = view % 2 === 0 ? '/home' : campaignPath;
      const page = await loadPage(path, cookie);
      stats.pageViews += 1;
      if (!cookie) {
        // The first page with slots sets the anonymous visitor id; every later request carries it.
        cookie = /^(cp_vid=[A-Za-z0-9_-]{22});/.exec(page.headers.get('set-cookie') ?? '')?.[1] ?? null;
        if (!cookie) {
          throw new Error(`the first view of ${path} set no visitor cookie (${page.headers.get('cache-control')})`);
        }
        cookies.push(cookie);
      }
      const session = cookie.slice('cp_vid='.length);
      const slots = slotsOf(page.body);
      if (slots.length === 0) throw new Error(`no slots on ${path}`);
      slotsSeen.set(path, slots.length);
      await deliver(
        cookie,
        slots.map((slot) => event(session, 'impression', { ...slot })),
      );
      if ((index + view) % 3 === 0) await deliver(cookie, [event(session, 'click', { ...slots[0]! })]);
      if (view === VIEWS_PER_VISITOR - 1 && index % 4 === 0) {
        // `cpConvert('purchase', 49.5)`: no campaign named; attribution goes through the session's exposures.
        await deliver(cookie, [event(session, 'conversion', { goal: 'purchase', value: 49.5 })]);
      }
      if (view === VIEWS_PER_VISITOR - 1 && index % 6 === 1) {
        const { campaignId, variantId } = slots[0]!;
        await deliver(cookie, [event(session, 'conversion', { goal: 'signup', campaignId, variantId })]);
      }
      await sleep(thinkMs(index, view));
    }
  };

  const load = Promise.all(Array.from({ length: VISITORS }, (_, index) => visit(index))).catch((error: unknown) => {
    loadError = error;
    throw error;
  });
  load.catch(() => undefined);

  // 1. The API dies without warning once the load is under way; visitors keep retrying until it is back.
  const minimumBeacons = VISITORS * VIEWS_PER_VISITOR;
  await waitFor(() => stats.acknowledged >= minimumBeacons * 0.15, '15% of the beacons acknowledged');
  expect((await api.kill('SIGKILL')).signal).toBe('SIGKILL');
  const acknowledgedAtApiKill = stats.acknowledged;
  // Refused is refused, beacon or page: a visitor between beacons only meets the dead API on its next page
  // (and keeps reloading it until the API is back), so waiting for a beacon alone could wait forever.
  const [failuresBefore, reloadsBefore] = [stats.failedAttempts, stats.reloads];
  await waitFor(
    () => stats.failedAttempts > failuresBefore || stats.reloads > reloadsBefore,
    'a request refused while the API is down',
  );
  mark('api killed');
  api = await startApi();
  mark('api ready');

  // 2. A rollup pass in small batches over a backlog of hundreds of events; the worker dies once it has
  // committed at least one batch (the pass has tens of batches left, and more events keep arriving).
  const backlog = async () =>
    Number(
      (
        await sql<{ n: string }>(
          `select count(*) as n from analytics_events e, analytics_rollup_watermarks w
           where w.name = 'events' and (e.received_at, e.event_id) > (w.received_at, w.event_id)
             and e.received_at <= now() - make_interval(secs => $1)`,
          [ROLLUP_LAG_MS / 1000],
        )
      )[0]!.n,
    );
  const rolledUp = async () =>
    Number(
      (await sql<{ n: string }>(`select events_total as n from analytics_rollup_watermarks where name = 'events'`))[0]!
        .n,
    );
  await waitFor(async () => (await backlog()) >= 40 * SMALL_BATCH, 'a rollup backlog of 40 small batches');
  const rolledUpBefore = await rolledUp();
  const input: AnalyticsRollupInput = { limitEvents: SMALL_BATCH, maxBatches: 1_000_000, heartbeatTimeout: '2s' };
  const rollup = await client.workflow.start('analyticsRollupWorkflow', {
    workflowId: `rollup-under-load-${uuidv7()}`,
    taskQueue: platform.config.temporal.taskQueue,
    args: [input],
  });
  await waitFor(async () => (await rolledUp()) > rolledUpBefore, 'the first committed rollup batch');
  await firstWorker.kill('SIGKILL');
  mark('worker killed');
  const rolledUpAtWorkerKill = (await rolledUp()) - rolledUpBefore;
  const backlogAtWorkerKill = await backlog();
  await startWorkerProcess();
  mark('worker ready');

  await load;
  const loadMs = Date.now() - started;
  // The killed attempt did not finish: the pass was completed by a retry on the second worker.
  const result = (await rollup.result()) as AnalyticsRollupResult;
  mark('rollup done');
  expect(result.caughtUp).toBe(true);
  const history = await rollup.fetchHistory();
  const activityTypes = new Map<string, string>();
  const rollupAttempts: number[] = [];
  for (const entry of history.events ?? []) {
    const scheduled = entry.activityTaskScheduledEventAttributes;
    if (scheduled) activityTypes.set(String(entry.eventId), scheduled.activityType?.name ?? '');
    const attempt = entry.activityTaskStartedEventAttributes;
    if (attempt && activityTypes.get(String(attempt.scheduledEventId)) === 'rollupAnalytics') {
      rollupAttempts.push(attempt.attempt ?? 1);
    }
  }
  expect(Math.max(...rollupAttempts)).toBeGreaterThanOrEqual(2);
  expect(rolledUpAtWorkerKill).toBeGreaterThan(0);

  // 3. Markdown twins, read by the same visitors, then a graceful stop: their impressions are buffered in the
  // API and must be written before it exits.
  const markdownReaders = cookies.slice(0, 50);
  let markdownExpected = 0;
  await Promise.all(
    markdownReaders.map(async (cookie) => {
      for (const path of ['/home', campaignPath]) {
        const response = await testFetch(`${siteUrl}${path}.md`, { headers: { cookie } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        await response.text();
        markdownExpected += slotsSeen.get(path)!;
      }
    }),
  );
  mark('markdown read');
  expect(await api.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  mark('api stopped');
  expect(api.output()).toContain('"API shutting down"');

  // Every event sent exists exactly once; nothing else was recorded but the markdown impressions.
  const ids = sent.map((entry) => entry.eventId);
  const [stored] = await sql<{ rows: string; distinct_ids: string; sent: string; markdown: string }>(
    `select count(*) as rows, count(distinct event_id) as distinct_ids,
       count(*) filter (where event_id = any($1::uuid[])) as sent,
       count(*) filter (where properties ->> 'source' = 'markdown') as markdown
     from analytics_events where workspace_id = $2`,
    [ids, tenant.workspaceId],
  );
  expect(stored).toEqual({
    rows: String(ids.length + markdownExpected),
    distinct_ids: String(ids.length + markdownExpected),
    sent: String(ids.length),
    markdown: String(markdownExpected),
  });
  const storedByType = await sql<{ type: EventType; n: string }>(
    `select type, count(*) as n from analytics_events
     where workspace_id = $2 and event_id = any($1::uuid[]) group by type order by type`,
    [ids, tenant.workspaceId],
  );
  const sentByType = (type: EventType) => sent.filter((entry) => entry.type === type).length;
  expect(storedByType).toEqual(
    (['click', 'conversion', 'impression'] as const).map((type) => ({ type, n: String(sentByType(type)) })),
  );

  // 4. A last pass now that no writer is left (so no lag is needed for in-flight inserts to commit); then
  // every counter equals the exact count over the raw events.
  const final = await runRollupPass(platform.container.orm, { lagMs: 0 });
  expect(final.caughtUp).toBe(true);
  mark('final rollup done');
  const [{ total }] = (await sql<{ total: string }>(`select count(*) as total from analytics_events`)) as [
    { total: string },
  ];
  expect(await rolledUp()).toBe(Number(total));

  const COUNTERS = `count(*) filter (where type = 'impression')::int as impressions,
    count(*) filter (where type = 'impression' and session_id is null)::int as unattributed_impressions,
    count(*) filter (where type = 'click')::int as clicks,
    count(*) filter (where type = 'conversion')::int as conversions`;
  const ROLLED = 'impressions::int, unattributed_impressions::int, clicks::int, conversions::int';
  const byKey = <Row extends Record<string, unknown>>(rows: Row[], key: (keyof Row)[]) =>
    Object.fromEntries(
      rows
        .filter((row) => Number(row.impressions) + Number(row.clicks) + Number(row.conversions) > 0)
        .map((row) => [key.map((column) => String(row[column])).join('|'), row]),
    );

  // Per UTC day × campaign × variant × zone.
  const dailyKey = ['day', 'campaign_id', 'variant_id', 'zone_id'];
  const rawDaily = await sql<Record<string, unknown>>(
    `select (occurred_at at time zone 'UTC')::date::text as day, coalesce(campaign_id, '') as campaign_id,
       coalesce(variant_id, '') as variant_id, coalesce(zone_id, '') as zone_id, ${COUNTERS}
     from analytics_events where workspace_id = $1 group by 1, 2, 3, 4`,
    [tenant.workspaceId],
  );
  const rolledDaily = await sql<Record<string, unknown>>(
    `select day::text as day, campaign_id, variant_id, zone_id, ${ROLLED}
     from analytics_rollups_daily where workspace_id = $1`,
    [tenant.workspaceId],
  );
  expect(byKey(rolledDaily, dailyKey)).toEqual(byKey(rawDaily, dailyKey));

  // Per UTC day (the summary's totals).
  const rawReach = await sql<Record<string, unknown>>(
    `select (occurred_at at time zone 'UTC')::date::text as day, ${COUNTERS}
     from analytics_events where workspace_id = $1 group by 1`,
    [tenant.workspaceId],
  );
  const rolledReach = await sql<Record<string, unknown>>(
    `select day::text as day, ${ROLLED} from analytics_reach_daily where workspace_id = $1`,
    [tenant.workspaceId],
  );
  expect(byKey(rolledReach, ['day'])).toEqual(byKey(rawReach, ['day']));

  // Per campaign × variant, with the experiment units: a session is exposed to the variant of its first
  // impression of the campaign, and converted when it converted after that (no conversion goals are set on
  // the campaign, so every goal counts; a conversion naming a campaign counts only for that one).
  const rawVariants = await sql<Record<string, unknown>>(
    `with events as (
       select * from analytics_events where workspace_id = $1
     ), exposures as (
       select distinct on (campaign_id, session_id) campaign_id, session_id, variant_id, occurred_at as exposed_at
       from events where type = 'impression' and session_id is not null and campaign_id is not null
       order by campaign_id, session_id, occurred_at, event_id
     ), units as (
       select x.campaign_id, x.variant_id, count(*)::int as exposed_sessions,
         count(*) filter (where exists (
           select 1 from events c where c.type = 'conversion' and c.session_id = x.session_id
             and (c.campaign_id is null or c.campaign_id = x.campaign_id) and c.occurred_at >= x.exposed_at
         ))::int as converted_sessions
       from exposures x group by 1, 2
     ), counters as (
       select campaign_id, variant_id, ${COUNTERS} from events where campaign_id is not null group by 1, 2
     )
     select c.*, coalesce(u.exposed_sessions, 0) as exposed_sessions, coalesce(u.converted_sessions, 0) as converted_sessions
     from counters c left join units u using (campaign_id, variant_id)`,
    [tenant.workspaceId],
  );
  const rolledVariants = await sql<Record<string, unknown>>(
    `select campaign_id, variant_id, ${ROLLED}, exposed_sessions::int, converted_sessions::int
     from analytics_variant_totals where workspace_id = $1`,
    [tenant.workspaceId],
  );
  expect(byKey(rolledVariants, ['campaign_id', 'variant_id'])).toEqual(
    byKey(rawVariants, ['campaign_id', 'variant_id']),
  );

  // And the totals are the events the visitors sent (plus the markdown impressions).
  const sum = (rows: Record<string, unknown>[], column: string) =>
    rows.reduce((total, row) => total + Number(row[column]), 0);
  expect({
    impressions: sum(rolledReach, 'impressions'),
    clicks: sum(rolledReach, 'clicks'),
    conversions: sum(rolledReach, 'conversions'),
    exposed: sum(rolledVariants, 'exposed_sessions'),
  }).toEqual({
    impressions: sentByType('impression') + markdownExpected,
    clicks: sentByType('click'),
    conversions: sentByType('conversion'),
    // One campaign, and every visitor saw it.
    exposed: cookies.length,
  });

  console.log(
    `ingestion under restarts: ${ids.length} beacon events (${sentByType('impression')} impressions, ` +
      `${sentByType('click')} clicks, ${sentByType('conversion')} conversions) in ${stats.beacons} beacons and ` +
      `${stats.pageViews} page views from ${cookies.length} sessions, + ${markdownExpected} markdown impressions; ` +
      `API SIGKILLed after ${acknowledgedAtApiKill} acknowledged beacons: ${stats.failedAttempts} failed beacon ` +
      `attempts, ${stats.resentBeacons} beacons resent, ${stats.reloads} page reloads; worker SIGKILLed after ` +
      `${rolledUpAtWorkerKill} events rolled up by the pass with ${backlogAtWorkerKill} waiting; rollup attempts ` +
      `${rollupAttempts.join(',')}; load ${loadMs} ms, test ${Date.now() - started} ms; ${phases.join(', ')}`,
  );
}, 180_000);
