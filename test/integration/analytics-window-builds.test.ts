/**
 * Window builds (window-reach.ts) and the concierge rollup on a real PostgreSQL: 100 days of seeded traffic,
 * rolled up by the real rollup code with a pinned clock. A snapshot read through the builds must equal, field
 * for field, the same snapshot read from every daily sketch (a HyperLogLog union is exact register-wise, so
 * the two are the same sketch), through late events, through midnight, and before any build exists.
 */
import { v7 as uuidv7 } from 'uuid';
import { createAnalyticsQueryService, type Snapshot } from '../../src/domain/analytics/analytics-query.service.ts';
import { resolveWindow, shiftDay, utcDay } from '../../src/domain/analytics/analytics-window.ts';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { keptSketchCounts, readWindowBuild } from '../../src/domain/analytics/window-reach.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seededRandom } from '../support/random.ts';
import { workspaceScope, actors } from '../../src/domain/shared/scope.ts';

const WORKSPACE = 'ws_window_fixture';
const OTHER = 'ws_window_other';
const VARIANTS = { cmp_w1: ['var_w1a', 'var_w1b'], cmp_w2: ['var_w2a', 'var_w2b'], cmp_w3: ['var_w3a'] } as const;
const ZONES = ['zone_top', 'zone_side', 'zone_foot', null] as const;
const ALL_SECTIONS = ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'];
const DAY_MS = 86_400_000;
/** Noon today (UTC): the pinned clock of the rollups and of the reads. */
const NOW = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 12));
const TODAY = utcDay(NOW);
const TOMORROW_NOON = new Date(NOW.getTime() + DAY_MS);

let platform: TestPlatform;

/** Visits over `days` days before `end` (returning sessions, several zones, a few cookie-less reads). */
function traffic(options: { visits: number; days: number; end: Date; seed: number; prefix: string }): SiteEvent[] {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sessions: string[] = [];
  const events: SiteEvent[] = [];
  for (let v = 0; v < options.visits; v++) {
    const returning = sessions.length > 0 && random() < 0.3;
    const sessionId = returning ? pick(sessions) : `${options.prefix}${v.toString(36)}`;
    if (!returning) sessions.push(sessionId);
    const at = new Date(options.end.getTime() - Math.floor(random() * options.days * DAY_MS));
    const workspaceId = random() < 0.9 ? WORKSPACE : OTHER;
    const cookieless = random() < 0.03;
    for (const [campaignId, variants] of Object.entries(VARIANTS)) {
      if (random() < 0.4) continue;
      const variantId = pick(variants);
      for (let i = 0; i < 1 + Math.floor(random() * 3); i++) {
        events.push({
          eventId: uuidv7(),
          workspaceId,
          type: 'impression',
          occurredAt: at,
          sessionId: cookieless ? null : sessionId,
          campaignId,
          variantId,
          surfaceId: 'srf_home',
          zoneId: pick(ZONES),
        });
      }
      // Clicks and conversions after the impressions, so every counter (and the attributed conversions) of the
      // builds is compared with the daily rows, late events included.
      const base = { workspaceId, sessionId: cookieless ? null : sessionId, campaignId, variantId };
      if (random() < 0.2) {
        const clickAt = new Date(at.getTime() + 1000);
        events.push({ ...base, eventId: uuidv7(), type: 'click', occurredAt: clickAt, zoneId: pick(ZONES) });
      }
      if (random() < 0.08) {
        const value = Math.round(random() * 10_000) / 100;
        const convertedAt = new Date(at.getTime() + 2000);
        events.push({ ...base, eventId: uuidv7(), type: 'conversion', occurredAt: convertedAt, goal: 'buy', value });
      }
    }
    if (random() < 0.05) {
      events.push({
        eventId: uuidv7(),
        workspaceId,
        type: 'concierge_question',
        occurredAt: at,
        sessionId,
        properties: {
          query: pick(['Do you ship to Norway?', 'do you ship to NORWAY? ', 'Gift cards?']),
          answered: random() < 0.4,
        },
      });
    }
  }
  return events;
}

function sql<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  return platform.container.orm.em.getConnection().execute<Row[]>(text, params);
}

function snapshot(now: Date, window: string, sections: string[]): Promise<Snapshot> {
  const service = createAnalyticsQueryService({ now: () => now });
  const scope = workspaceScope(platform.container.orm.em, WORKSPACE, actors.operator);
  return service.snapshot(scope, { window, sections, limit: 100 });
}

/** The same snapshot read from every daily sketch: the builds are made stale for the read, then restored. */
async function snapshotFromDailyRows(now: Date, window: string, sections: string[]): Promise<Snapshot> {
  await sql(`update analytics_window_builds set through_day = through_day - 1000`);
  try {
    return await snapshot(now, window, sections);
  } finally {
    await sql(`update analytics_window_builds set through_day = through_day + 1000`);
  }
}

const comparable = (snapshot: Snapshot) => ({ ...snapshot, freshness: null });

async function expectBuildsMatchDailyRows(now: Date): Promise<void> {
  for (const window of ['1d', '7d', '28d', '90d']) {
    for (const sections of [
      ALL_SECTIONS,
      ['summary'],
      ['campaigns', 'variants', 'surfaces'],
      ['summary', 'timeseries', 'campaigns'],
    ]) {
      const fromBuilds = await snapshot(now, window, sections);
      expect(comparable(fromBuilds)).toEqual(comparable(await snapshotFromDailyRows(now, window, sections)));
    }
  }
}

const buildDays = () =>
  sql<{ window_days: number; through_day: string }>(
    `select window_days, through_day::text as through_day from analytics_window_builds
     where workspace_id = ? order by window_days`,
    [WORKSPACE],
  );

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'window-builds' });
  await sql(`select analytics_ensure_partitions(?::date - 101, ?::date + 2)`, [TODAY, TODAY]);
  await createSiteEventRecorder(platform.container.orm).record(
    traffic({ visits: 6_000, days: 100, end: NOW, seed: 7, prefix: 'sess_' }),
  );
}, 120_000);

afterAll(async () => {
  await platform?.close();
});

test('a rollup pass builds the 7d, 28d and 90d windows through yesterday, and the next pass leaves them', async () => {
  const first = await runRollupPass(platform.container.orm, { lagMs: 0, now: () => NOW });
  expect(first.windowBuilds).toBeGreaterThanOrEqual(3); // both workspaces have traffic: 3 each
  const yesterday = shiftDay(TODAY, -1);
  expect(await buildDays()).toEqual([
    { window_days: 7, through_day: yesterday },
    { window_days: 28, through_day: yesterday },
    { window_days: 90, through_day: yesterday },
  ]);
  const slices = await sql<{ slice: string; n: string }>(
    `select slice, count(*) as n from analytics_window_reach where workspace_id = ? and window_days = 90
     group by slice order by slice`,
    [WORKSPACE],
  );
  // 3 campaigns, 5 variants, 4 zones ('' = the campaign page), the workspace.
  expect(slices.map((row) => [row.slice, Number(row.n)])).toEqual([
    ['campaign', 3],
    ['variant', 5],
    ['workspace', 1],
    ['zone', 4],
  ]);
  const again = await runRollupPass(platform.container.orm, { lagMs: 0, now: () => NOW });
  expect(again).toMatchObject({ events: 0, windowBuilds: 0 });
}, 120_000);

test('every window and section read through the builds equals the same read from every daily sketch', async () => {
  await expectBuildsMatchDailyRows(NOW);
}, 120_000);

test('a short list section shows the first rows of the full list, Reach included, built or not', async () => {
  const scope = workspaceScope(platform.container.orm.em, WORKSPACE, actors.operator);
  const service = createAnalyticsQueryService({ now: () => NOW });
  const read = (window: string, limit: number) =>
    service.snapshot(scope, { window, sections: ['campaigns', 'variants'], limit });
  for (const window of ['1d', '7d', '90d']) {
    const full = await read(window, 100);
    expect(full.campaigns).toHaveLength(3);
    expect(full.variants).toHaveLength(5);
    for (const limit of [1, 2]) {
      const short = await read(window, limit);
      expect(short.campaigns).toEqual(full.campaigns!.slice(0, limit));
      expect(short.variants).toEqual(full.variants!.slice(0, limit));
      expect(short.truncated).toEqual({ campaigns: 3 - limit, variants: 5 - limit });
    }
    // Reach is there (the shown rows are not left with counters only).
    expect(full.campaigns!.every((row) => row.metrics.reach > 0)).toBe(true);
  }
}, 120_000);

test('the builds are what the long windows read: emptied, the 90d Reach falls to what today alone gives', async () => {
  const before = await snapshot(NOW, '90d', ['summary', 'variants']);
  const today = await snapshot(NOW, '1d', ['summary', 'variants']);
  await sql(`create table saved_reach as select * from analytics_window_reach`);
  try {
    // An empty sparse sketch (format 1, precision 14): the builds' sessions are gone, today's remain.
    await sql(`update analytics_window_reach set reach_sketch = '\\x010e'::bytea`);
    const emptied = await snapshot(NOW, '90d', ['summary', 'variants']);
    expect(emptied.summary!.impressions).toBe(before.summary!.impressions);
    expect(emptied.summary!.reach).toBe(today.summary!.reach);
    expect(emptied.summary!.reach).toBeLessThan(before.summary!.reach / 5);
    // The closed days' counters come from the builds too: zeroed, each variant keeps only today's impressions.
    await sql(`update analytics_window_reach set impressions = 0`);
    const uncounted = await snapshot(NOW, '90d', ['variants']);
    const todayOf = new Map(today.variants!.map((row) => [row.variantId, row.metrics.impressions]));
    for (const row of uncounted.variants!) expect(row.metrics.impressions).toBe(todayOf.get(row.variantId) ?? 0);
    expect(uncounted.variants!.reduce((sum, row) => sum + row.metrics.impressions, 0)).toBeLessThan(
      before.variants!.reduce((sum, row) => sum + row.metrics.impressions, 0) / 5,
    );
  } finally {
    await sql(`delete from analytics_window_reach`);
    await sql(`insert into analytics_window_reach select * from saved_reach`);
    await sql(`drop table saved_reach`);
  }
  expect(comparable(await snapshot(NOW, '90d', ['summary', 'variants']))).toEqual(comparable(before));
}, 120_000);

test('a build sketch read once is not sent again while its row is unchanged, and is sent again once it changes', async () => {
  const scope = workspaceScope(platform.container.orm.em, WORKSPACE, actors.operator);
  const window = resolveWindow('28d', NOW);
  const read = async () => {
    const before = { ...keptSketchCounts };
    const build = await readWindowBuild(scope, window, ['workspace', 'campaign'], { sketchesOf: ['cmp_w1', 'cmp_w2'] });
    return {
      build: build!,
      sent: keptSketchCounts.sent - before.sent,
      kept: keptSketchCounts.kept - before.kept,
    };
  };
  const first = await read();
  const second = await read();
  // The workspace's sketch and the two campaigns': sent at most once, then kept (an earlier test may have read them).
  expect(first.sent + first.kept).toBe(3);
  expect(second).toMatchObject({ sent: 0, kept: 3 });
  for (const campaignId of ['cmp_w1', 'cmp_w2']) {
    expect(second.build.campaigns.get(campaignId)!.registers).toEqual(first.build.campaigns.get(campaignId)!.registers);
  }
  expect(second.build.workspace.estimate()).toBe(first.build.workspace.estimate());
  // The reader gets a copy: merging into it (as the snapshot does with today's sketches) leaves the kept one alone.
  second.build.campaigns.get('cmp_w1')!.registers.fill(51);
  expect((await read()).build.campaigns.get('cmp_w1')!.registers).toEqual(
    first.build.campaigns.get('cmp_w1')!.registers,
  );

  const [saved] = await sql<{ reach_sketch: Buffer }>(
    `select reach_sketch from analytics_window_reach
     where workspace_id = ? and window_days = 28 and slice = 'campaign' and campaign_id = 'cmp_w1'`,
    [WORKSPACE],
  );
  try {
    // The row changes (as a late event or a rebuild changes it): its new sketch is sent, the other two stay kept.
    await sql(
      `update analytics_window_reach set reach_sketch = '\\x010e'::bytea
       where workspace_id = ? and window_days = 28 and slice = 'campaign' and campaign_id = 'cmp_w1'`,
      [WORKSPACE],
    );
    const changed = await read();
    expect(changed).toMatchObject({ sent: 1, kept: 2 });
    expect(changed.build.campaigns.get('cmp_w1')!.estimate()).toBe(0);
    expect(changed.build.campaigns.get('cmp_w2')!.registers).toEqual(first.build.campaigns.get('cmp_w2')!.registers);
  } finally {
    await sql(
      `update analytics_window_reach set reach_sketch = ?
       where workspace_id = ? and window_days = 28 and slice = 'campaign' and campaign_id = 'cmp_w1'`,
      [saved!.reach_sketch, WORKSPACE],
    );
  }
  const restored = await read();
  expect(restored).toMatchObject({ sent: 1, kept: 2 });
  expect(restored.build.campaigns.get('cmp_w1')!.registers).toEqual(first.build.campaigns.get('cmp_w1')!.registers);
}, 60_000);

test('late events for a closed day join the builds in their own batch, without a rebuild', async () => {
  const before = await snapshot(NOW, '7d', ['summary', 'variants']);
  const threeDaysAgo = new Date(NOW.getTime() - 3 * DAY_MS);
  await createSiteEventRecorder(platform.container.orm).record(
    traffic({ visits: 400, days: 1, end: threeDaysAgo, seed: 11, prefix: 'late_' }),
  );
  const pass = await runRollupPass(platform.container.orm, { lagMs: 0, now: () => NOW });
  expect(pass.events).toBeGreaterThan(0);
  expect(pass.windowBuilds).toBe(0);
  const after = await snapshot(NOW, '7d', ['summary', 'variants']);
  expect(after.summary!.reach).toBeGreaterThan(before.summary!.reach + 200);
  await expectBuildsMatchDailyRows(NOW);
}, 120_000);

test('after midnight readers fall back to the daily rows until the first pass of the day rebuilds', async () => {
  // Tomorrow, before any pass: the builds end the day before yesterday, so readers do not use them (and get the
  // same numbers from the daily rows).
  const buildFor = (now: Date) =>
    readWindowBuild(workspaceScope(platform.container.orm.em, WORKSPACE, actors.operator), resolveWindow('90d', now), [
      'workspace',
      'campaign',
      'variant',
      'zone',
    ]);
  expect(await buildFor(NOW)).not.toBeNull();
  expect(await buildFor(TOMORROW_NOON)).toBeNull();
  await expectBuildsMatchDailyRows(TOMORROW_NOON);
  const pass = await runRollupPass(platform.container.orm, { lagMs: 0, now: () => TOMORROW_NOON });
  expect(pass.windowBuilds).toBeGreaterThanOrEqual(3);
  expect((await buildDays()).map((row) => row.through_day)).toEqual([TODAY, TODAY, TODAY]);
  expect(await buildFor(TOMORROW_NOON)).not.toBeNull();
  await expectBuildsMatchDailyRows(TOMORROW_NOON);
  // Back to today's clock for the other tests: the first pass rebuilds through yesterday again.
  await runRollupPass(platform.container.orm, { lagMs: 0, now: () => NOW });
  expect((await buildDays()).map((row) => row.through_day)).toEqual(Array(3).fill(shiftDay(TODAY, -1)));
}, 180_000);

test('concierge questions are rolled up per question: totals and the most asked unanswered equal the raw events', async () => {
  const { concierge } = await snapshot(NOW, '28d', ['concierge']);
  const from = shiftDay(TODAY, -27);
  const [raw] = await sql<{ questions: string; unanswered: string }>(
    `select count(*) as questions, count(*) filter (where properties->>'answered' = 'false') as unanswered
     from analytics_events where workspace_id = ? and type = 'concierge_question'
       and occurred_at >= ?::date and occurred_at < ?::date + 1`,
    [WORKSPACE, from, TODAY],
  );
  const top = await sql<{ key: string; count: string }>(
    `select lower(trim(properties->>'query')) as key, count(*) as count from analytics_events
     where workspace_id = ? and type = 'concierge_question' and properties->>'answered' = 'false'
       and occurred_at >= ?::date and occurred_at < ?::date + 1
     group by 1 order by 2 desc`,
    [WORKSPACE, from, TODAY],
  );
  expect(Number(raw!.questions)).toBeGreaterThan(20);
  expect(concierge).toMatchObject({ questions: Number(raw!.questions), unanswered: Number(raw!.unanswered) });
  // Two spellings of the Norway question are one question; most asked first.
  const listed = concierge!.topUnanswered.map((q): [string, number] => [q.query.trim().toLowerCase(), q.count]);
  expect([...listed].sort()).toEqual(top.map((row): [string, number] => [row.key, Number(row.count)]).sort());
  expect(listed).toHaveLength(2);
  expect(listed[0]![1]).toBeGreaterThanOrEqual(listed[1]![1]);
}, 120_000);
