/**
 * Analytics rollups on a real platform (PostgreSQL, Temporal, worker): seeded traffic over three days, two
 * campaigns × two variants and three zones, rolled up by `analyticsRollupWorkflow`, then compared with exact
 * SQL over the raw events — counts equal, Reach within 2% of `count(distinct session_id)`, a second run adds
 * nothing, late events are added exactly once, and an interrupted pass never double counts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { ReachSketch } from '../../src/domain/analytics/reach-sketch.ts';
import { ROLLUP_LAG_MS, readReach, runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { analyticsScheduleId } from '../../src/temporal/analytics-schedule.ts';
import type { AnalyticsRollupResult } from '../../workflows/analytics-rollup.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seededRandom } from '../support/random.ts';
import { pollUntil } from '../support/poll.ts';

const WORKSPACE = 'ws_rollup_fixture';
const OTHER_WORKSPACE = 'ws_rollup_other';
const CAMPAIGNS = { cmp_a: ['var_a1', 'var_a2'], cmp_b: ['var_b1', 'var_b2'] } as const;
const ZONES = ['zone_hero', 'zone_sidebar', null] as const;
const DAY_MS = 86_400_000;

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'rollups' });
});

afterAll(async () => {
  await platform?.close();
});

/**
 * Realistic traffic: each session lands on one day, sees one variant per campaign it meets (1–3 impressions
 * across zones), clicks sometimes, converts rarely (with a value), asks the concierge now and then. A few
 * impressions have no session (agents reading without cookies). Times are spread over the day but never in
 * the future.
 */
function traffic(sessions: number, seed: number, prefix: string): SiteEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const now = Date.now() - 60_000;
  const events: SiteEvent[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `${prefix}${Math.floor(random() * 2 ** 32).toString(36)}${s.toString(36)}`;
    const dayStart = today - Math.floor(random() * 3) * DAY_MS;
    const at = () => new Date(Math.min(now, dayStart + Math.floor(random() * DAY_MS)));
    const workspaceId = random() < 0.9 ? WORKSPACE : OTHER_WORKSPACE;
    for (const [campaignId, variants] of Object.entries(CAMPAIGNS)) {
      if (random() < 0.35) continue;
      const variantId = pick(variants);
      const base = { workspaceId, sessionId, campaignId, variantId, surfaceId: 'srf_home' };
      const views = 1 + Math.floor(random() * 3);
      for (let v = 0; v < views; v++) {
        events.push({ ...base, eventId: uuidv7(), type: 'impression', occurredAt: at(), zoneId: pick(ZONES) });
      }
      if (random() < 0.2)
        events.push({ ...base, eventId: uuidv7(), type: 'click', occurredAt: at(), zoneId: pick(ZONES) });
      if (random() < 0.05) {
        const value = Math.round(random() * 10_000) / 100;
        events.push({ ...base, eventId: uuidv7(), type: 'conversion', occurredAt: at(), goal: 'purchase', value });
      }
    }
    if (random() < 0.03) {
      events.push({
        eventId: uuidv7(),
        workspaceId,
        sessionId,
        type: 'concierge_question',
        occurredAt: at(),
        properties: { query: 'do you ship abroad?', answered: false },
      });
    }
    if (random() < 0.02) {
      const campaignId = pick(Object.keys(CAMPAIGNS) as (keyof typeof CAMPAIGNS)[]);
      events.push({
        eventId: uuidv7(),
        workspaceId,
        sessionId: null,
        type: 'impression',
        occurredAt: at(),
        campaignId,
        variantId: CAMPAIGNS[campaignId][0],
        zoneId: 'zone_hero',
      });
    }
  }
  return events;
}

async function sql<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  return platform.container.orm.em.getConnection().execute<Row[]>(text, params);
}

async function runWorkflow(input: { limitEvents?: number } = {}): Promise<AnalyticsRollupResult> {
  return platform.container.temporal.client.workflow.execute('analyticsRollupWorkflow', {
    workflowId: `analytics-rollup-test-${uuidv7()}`,
    taskQueue: platform.config.temporal.taskQueue,
    args: [input],
  });
}

/** Waits out the rollup's lag so everything inserted so far is eligible. */
async function afterLag(): Promise<void> {
  await sleep(ROLLUP_LAG_MS + 300);
}

type CountRow = Record<string, string>;

const COUNTS = `count(*) filter (where type = 'impression') as impressions,
  count(*) filter (where type = 'impression' and session_id is null) as unattributed_impressions,
  count(*) filter (where type = 'click') as clicks,
  count(*) filter (where type = 'conversion') as conversions,
  coalesce(sum(value) filter (where type = 'conversion'), 0)::numeric(18, 2)::text as conversion_value,
  count(*) filter (where type = 'concierge_question') as concierge_questions`;
const COUNT_COLUMNS = `impressions, unattributed_impressions, clicks, conversions, conversion_value::text as conversion_value,
  concierge_questions`;

/** Every rollup table against exact aggregates of the raw events. */
async function expectRollupsExact(): Promise<void> {
  const normalise = (rows: CountRow[]) =>
    rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, String(v)])));
  const exactDaily = await sql<CountRow>(
    `select workspace_id, (occurred_at at time zone 'UTC')::date::text as day, coalesce(campaign_id, '') as campaign_id,
       coalesce(variant_id, '') as variant_id, coalesce(zone_id, '') as zone_id, ${COUNTS}
     from analytics_events group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`,
  );
  // Every daily row but those an attributed conversion made on a campaign day without events of the campaign (see
  // the test): no event, only the attribution's counters, so no group of raw events to equal.
  const daily = await sql<CountRow>(
    `select workspace_id, day::text as day, campaign_id, variant_id, zone_id, ${COUNT_COLUMNS}
     from analytics_rollups_daily
     where not (impressions + clicks + conversions + concierge_questions = 0
       and (converted_sessions > 0 or converted_value > 0))
     order by 1, 2, 3, 4, 5`,
  );
  expect(normalise(daily)).toEqual(normalise(exactDaily));

  const exactPerDay = await sql<CountRow>(
    `select workspace_id, (occurred_at at time zone 'UTC')::date::text as day, ${COUNTS}
     from analytics_events group by 1, 2 order by 1, 2`,
  );
  const perDay = await sql<CountRow>(
    `select workspace_id, day::text as day, ${COUNT_COLUMNS} from analytics_reach_daily order by 1, 2`,
  );
  expect(normalise(perDay)).toEqual(normalise(exactPerDay));

  // A campaign's day: a row for every campaign day of the daily rows (those of attributed conversions too), with
  // the sum of their impressions (what campaign lists rank by).
  const exactCampaignDays = await sql<CountRow>(
    `select workspace_id, day::text as day, campaign_id, sum(impressions) as impressions
     from analytics_rollups_daily where campaign_id <> '' group by 1, 2, 3 order by 1, 2, 3`,
  );
  const campaignDays = await sql<CountRow>(
    `select workspace_id, day::text as day, campaign_id, impressions from analytics_campaign_daily order by 1, 2, 3`,
  );
  expect(exactCampaignDays.length).toBeGreaterThan(0);
  expect(normalise(campaignDays)).toEqual(normalise(exactCampaignDays));

  const exactVariants = await sql<CountRow>(
    `select workspace_id, campaign_id, variant_id, ${COUNTS}, min(occurred_at) as first_seen, max(occurred_at) as last_seen
     from analytics_events where campaign_id is not null group by 1, 2, 3 order by 1, 2, 3`,
  );
  const variants = await sql<CountRow>(
    `select workspace_id, campaign_id, variant_id, ${COUNT_COLUMNS}, first_seen, last_seen
     from analytics_variant_totals order by 1, 2, 3`,
  );
  expect(normalise(variants)).toEqual(normalise(exactVariants));

  // Experiment units: a session's first impression of a campaign makes it a unit of that variant; it converts
  // when a conversion (naming the campaign, or none) happened at or after that first impression.
  const exactUnits = await sql<CountRow>(
    `with units as (
       select workspace_id, campaign_id, session_id, min(variant_id) as variant_id, min(occurred_at) as first_at
       from analytics_events where type = 'impression' and session_id is not null and campaign_id is not null
       group by 1, 2, 3
     ), converted as (
       select distinct u.workspace_id, u.campaign_id, u.session_id
       from units u join analytics_events c on c.type = 'conversion' and c.workspace_id = u.workspace_id
         and c.session_id = u.session_id and coalesce(c.campaign_id, u.campaign_id) = u.campaign_id
         and c.occurred_at >= u.first_at
     )
     select u.workspace_id, u.campaign_id, u.variant_id, count(*) as exposed_sessions,
       count(c.session_id) as converted_sessions
     from units u left join converted c using (workspace_id, campaign_id, session_id)
     group by 1, 2, 3 order by 1, 2, 3`,
  );
  const units = await sql<CountRow>(
    `select workspace_id, campaign_id, variant_id, exposed_sessions, converted_sessions
     from analytics_variant_totals where exposed_sessions > 0 order by 1, 2, 3`,
  );
  expect(exactUnits.length).toBeGreaterThan(0);
  expect(normalise(units)).toEqual(normalise(exactUnits));
  const [exposureRows] = await sql<{ units: string }>(`select count(*) as units from analytics_exposures`);
  expect(Number(exposureRows!.units)).toBe(exactUnits.reduce((sum, row) => sum + Number(row.exposed_sessions), 0));
}

interface ReachCheck {
  scope: string;
  exact: number;
  estimate: number;
  impressions: number;
}

/** Reach from the sketches against exact distinct sessions, at every level the readers use. */
async function reachChecks(): Promise<ReachCheck[]> {
  const checks: ReachCheck[] = [];
  const perDay = await sql<{
    workspace_id: string;
    day: string;
    exact: string;
    impressions: string;
    reach_sketch: Buffer;
  }>(
    `select r.workspace_id, r.day::text as day, r.impressions, r.reach_sketch,
       (select count(distinct session_id) from analytics_events e where e.workspace_id = r.workspace_id
          and (e.occurred_at at time zone 'UTC')::date = r.day and e.type = 'impression') as exact
     from analytics_reach_daily r order by 1, 2`,
  );
  for (const row of perDay) {
    checks.push({
      scope: `${row.workspace_id} ${row.day}`,
      exact: Number(row.exact),
      estimate: ReachSketch.fromBytes(row.reach_sketch).estimate(),
      impressions: Number(row.impressions),
    });
  }
  const variants = await sql<{
    campaign_id: string;
    variant_id: string;
    exact: string;
    impressions: string;
    reach_sketch: Buffer;
  }>(
    `select v.campaign_id, v.variant_id, v.impressions, v.reach_sketch,
       (select count(distinct session_id) from analytics_events e where e.workspace_id = v.workspace_id
          and e.campaign_id = v.campaign_id and e.variant_id = v.variant_id and e.type = 'impression') as exact
     from analytics_variant_totals v where v.workspace_id = ? order by 1, 2`,
    [WORKSPACE],
  );
  for (const row of variants) {
    checks.push({
      scope: `exposures ${row.campaign_id}/${row.variant_id}`,
      exact: Number(row.exact),
      estimate: ReachSketch.fromBytes(row.reach_sketch).estimate(),
      impressions: Number(row.impressions),
    });
  }
  // Windows read through `readReach`: the whole workspace over three days, and each campaign.
  const today = new Date().toISOString().slice(0, 10);
  const first = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);
  for (const campaignId of [undefined, ...Object.keys(CAMPAIGNS)]) {
    const reading = await readReach(platform.container.orm, {
      workspaceId: WORKSPACE,
      fromDay: first,
      toDay: today,
      campaignId,
    });
    const [exact] = await sql<{ exact: string }>(
      `select count(distinct session_id) as exact from analytics_events where workspace_id = ? and type = 'impression'
         and (? :: text is null or campaign_id = ?)`,
      [WORKSPACE, campaignId ?? null, campaignId ?? null],
    );
    checks.push({
      scope: `window ${campaignId ?? 'workspace'}`,
      exact: Number(exact!.exact),
      estimate: reading.reach,
      impressions: reading.impressions,
    });
  }
  return checks;
}

async function snapshotRollups(): Promise<string> {
  const tables = await Promise.all(
    [
      'select * from analytics_rollups_daily order by workspace_id, day, campaign_id, variant_id, zone_id',
      'select * from analytics_reach_daily order by workspace_id, day',
      'select * from analytics_campaign_daily order by workspace_id, day, campaign_id',
      'select * from analytics_variant_totals order by workspace_id, campaign_id, variant_id',
    ].map((text) => sql<Record<string, unknown>>(text)),
  );
  return JSON.stringify(tables.map((rows) => rows.map(({ updated_at: _ignored, ...row }) => row)));
}

describe('analytics rollups', () => {
  const recorder = () => createSiteEventRecorder(platform.container.orm);
  let firstBatch: SiteEvent[] = [];

  test('the analytics-rollup schedule exists after API start: every minute, overlap skip', async () => {
    const handle = platform.container.temporal.client.schedule.getHandle(
      analyticsScheduleId(platform.config.temporal.taskQueue),
    );
    const description = await handle.describe();
    expect(description.spec.intervals?.[0]?.every).toBe(60_000);
    expect(description.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'analyticsRollupWorkflow',
      taskQueue: platform.config.temporal.taskQueue,
    });
    expect(description.state.paused).toBe(false);
    // The tests below drive every pass themselves, so that each one knows which events it consumed.
    await handle.pause('analytics-rollups test drives passes itself');
    // A run the schedule started just before the pause must finish before the tests count what they consumed.
    await pollUntil(
      () => handle.describe(),
      (current) => current.info.runningActions.length === 0,
      { timeoutMs: 60_000, intervalMs: 100, timeoutMessage: 'a rollup run started before the pause never finished' },
    );
  });

  test('a workflow run rolls up three days of traffic: exact counts, Reach within 2%', async () => {
    firstBatch = traffic(20_000, 42, 's1-');
    await recorder().record(firstBatch);
    await afterLag();
    const result = await runWorkflow();
    expect(result.caughtUp).toBe(true);
    // (The schedule may have run a pass of its own in between; together they consumed every event.)
    const [{ total }] = (await sql<{ total: string }>(
      `select events_total as total from analytics_rollup_watermarks`,
    )) as [{ total: string }];
    expect(Number(total)).toBe(firstBatch.length);

    await expectRollupsExact();
    const checks = await reachChecks();
    for (const check of checks) {
      expect({
        scope: check.scope,
        withinTwoPercent: Math.abs(check.estimate - check.exact) <= 0.02 * check.exact,
      }).toEqual({
        scope: check.scope,
        withinTwoPercent: true,
      });
      expect(Math.min(check.estimate, check.impressions)).toBeLessThanOrEqual(check.impressions);
    }
    const workspace = checks.find((check) => check.scope === 'window workspace')!;
    expect(workspace.exact).toBeGreaterThan(15_000);
    console.info(
      `[rollups] ${firstBatch.length} events; reach checks (exact → estimate):\n` +
        checks
          .map(
            (c) =>
              `  ${c.scope}: ${c.exact} → ${c.estimate} (${(((c.estimate - c.exact) / c.exact) * 100).toFixed(2)}%)`,
          )
          .join('\n'),
    );
  });

  test('the sketches built in SQL equal sketches of the exact session sets built in JavaScript', async () => {
    const rows = await sql<{ session_id: string }>(
      `select distinct session_id from analytics_events where workspace_id = ? and campaign_id = 'cmp_a'
         and variant_id = 'var_a1' and type = 'impression' and session_id is not null`,
      [WORKSPACE],
    );
    const fromJs = new ReachSketch();
    for (const row of rows) fromJs.add(row.session_id);
    const [stored] = await sql<{ reach_sketch: Buffer }>(
      `select reach_sketch from analytics_variant_totals where workspace_id = ? and campaign_id = 'cmp_a' and variant_id = 'var_a1'`,
      [WORKSPACE],
    );
    expect(
      Buffer.from(ReachSketch.fromBytes(stored!.reach_sketch).registers).equals(Buffer.from(fromJs.registers)),
    ).toBe(true);
  });

  test('each workspace day stores the estimate of its sketch beside it, for the daily chart', async () => {
    const days = await sql<{ reach: string; reach_sketch: Buffer | null }>(
      'select reach, reach_sketch from analytics_reach_daily order by workspace_id, day',
    );
    expect(days.length).toBeGreaterThan(0);
    for (const day of days) expect(Number(day.reach)).toBe(ReachSketch.fromBytes(day.reach_sketch).estimate());
    expect(days.some((day) => Number(day.reach) > 0)).toBe(true);
  });

  test('running it again adds nothing', async () => {
    const before = await snapshotRollups();
    const result = await runWorkflow();
    expect(result.events).toBe(0);
    expect(await snapshotRollups()).toBe(before);
  });

  test('events arriving after a pass are added exactly once, and replayed events not at all', async () => {
    const late = traffic(3_000, 7, 's2-');
    // Returning visitors too: some sessions of the first batch come back.
    for (const event of firstBatch.slice(0, 2_000))
      if (event.type === 'impression') late.push({ ...event, eventId: uuidv7() });
    await recorder().record([...late, ...firstBatch.slice(0, 500)]); // the replays are deduplicated at ingestion
    await afterLag();
    const first = await runWorkflow();
    const second = await runWorkflow();
    expect(first.events + second.events).toBeLessThanOrEqual(late.length);
    await expectRollupsExact();
    for (const check of await reachChecks())
      expect(Math.abs(check.estimate - check.exact)).toBeLessThanOrEqual(0.02 * check.exact);
  });

  test('a conversion attributed to a campaign on a day without its impressions gives that campaign day a row', async () => {
    // Seen two days ago, converted now without naming the campaign: the conversion is attributed to the
    // campaign's day of today, which has no impression of it (a daily row of 0 impressions, so a ranked row).
    const now = Date.now() - 60_000;
    const base = { workspaceId: WORKSPACE, sessionId: 'sess-late-converter', surfaceId: 'srf_home' };
    await recorder().record([
      {
        ...base,
        eventId: uuidv7(),
        type: 'impression',
        occurredAt: new Date(now - 2 * DAY_MS),
        campaignId: 'cmp_c',
        variantId: 'var_c1',
        zoneId: null,
      },
      { ...base, eventId: uuidv7(), type: 'conversion', occurredAt: new Date(now), goal: 'signup', value: 5 },
    ]);
    await afterLag();
    await runWorkflow();
    const today = new Date(now).toISOString().slice(0, 10);
    const [day] = await sql<{ impressions: string; converted_sessions: string }>(
      `select sum(impressions) as impressions, sum(converted_sessions) as converted_sessions
       from analytics_rollups_daily where workspace_id = ? and campaign_id = 'cmp_c' and day = ?::date`,
      [WORKSPACE, today],
    );
    expect(day).toMatchObject({ impressions: '0', converted_sessions: '1' });
    await expectRollupsExact();
  });

  test('a pass interrupted after its first batch resumes without double counting', async () => {
    const more = traffic(2_000, 11, 's3-');
    await recorder().record(more);
    await afterLag();
    const before = await sql<{ total: string }>(`select events_total as total from analytics_rollup_watermarks`);
    // The pass dies right after committing its first batch (as a worker killed between two transactions would).
    await expect(
      runRollupPass(platform.container.orm, {
        limitEvents: 500,
        onBatchCommitted: () => {
          throw new Error('worker died');
        },
      }),
    ).rejects.toThrow('worker died');
    const after = await sql<{ total: string }>(`select events_total as total from analytics_rollup_watermarks`);
    expect(Number(after[0]!.total) - Number(before[0]!.total)).toBeGreaterThan(0);
    expect(Number(after[0]!.total)).toBeLessThan(Number(before[0]!.total) + more.length);

    // The workflow, with small batches, finishes the rest.
    const resumed = await runWorkflow({ limitEvents: 700 });
    expect(resumed.caughtUp).toBe(true);
    await expectRollupsExact();
  });
});
