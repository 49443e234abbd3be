/**
 * Benchmark: analytics at scale (`npm run bench:analytics`, `-- --events 1000000` for a smaller run).
 *
 * 1. Generates `--events` (10 million by default) events for one large workspace in PostgreSQL: 20 campaigns
 *    with 2–4 variants (a control, weights, true conversion rates that differ in some campaigns and not in
 *    others), 5 zones, 90 days, about two events per session, 3% impressions without a session, clicks,
 *    conversions and concierge questions; plus two small workspaces. Deterministic (`setseed`).
 * 2. Ingestion: the real recorder (`createSiteEventRecorder`, 1,000-row unnest statements, 4 writers) on a
 *    sample, against the same statement into an unpartitioned, unindexed copy of the table without
 *    `on conflict` (the cost of partitioning, indexes and deduplication).
 * 3. Rollups: `runRollupPass` over every event (events/s).
 * 4. Reach: the sketches against the exact `count(distinct session_id)` of raw impressions, per window and per
 *    campaign; target within 2%.
 * 5. Queries: `snapshot` and `cvg_dashboard` through the real service, p50/p95 over repeated calls, against the
 *    same numbers computed exactly from raw events (the baseline rollups replace); target < 200 ms.
 * 6. Storage: rollup tables against raw events.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { CompiledQuery } from 'kysely';
import { v4 as uuidv4 } from 'uuid';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from '../src/db/orm.ts';
import { createAnalyticsQueryService } from '../src/domain/analytics/analytics-query.service.ts';
import { resolveWindow } from '../src/domain/analytics/analytics-window.ts';
import { createSiteEventRecorder } from '../src/domain/analytics/event-recorder.ts';
import { readReach, runRollupPass } from '../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../src/domain/analytics/site-events.ts';
import { createCampaignsService } from '../src/domain/campaigns/campaigns.service.ts';
import type { WorkspaceScope } from '../src/domain/shared/scope.ts';
import { createSurfacesService } from '../src/domain/surfaces/surfaces.service.ts';
import { createWorkspacesService } from '../src/domain/workspaces/workspaces.service.ts';
import { startBenchStack } from './support/stack.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    'ingest-sample': { type: 'string', default: '200000' },
    repeats: { type: 'string', default: '30' },
  },
});
const TOTAL_EVENTS = Number(values.events);
const INGEST_SAMPLE = Math.min(Number(values['ingest-sample']), TOTAL_EVENTS);
const REPEATS = Number(values.repeats);
const DAYS = 90;
const CAMPAIGNS = 20;
const ZONES = 5;
const TARGET_MS = 200;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')}/s`;
const log = (...args: unknown[]) => console.log(...args);

async function sql<Row = Record<string, unknown>>(orm: MikroORM, text: string, params: unknown[] = []) {
  const result = await orm.em.getConnection().getClient().executeQuery<Row>(CompiledQuery.raw(text, params));
  return result.rows as Row[];
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

async function latency(fn: () => Promise<unknown>, repeats = REPEATS): Promise<{ p50: number; p95: number }> {
  await fn(); // warm-up (JIT, plan cache)
  const samples: number[] = [];
  for (let i = 0; i < repeats; i++) samples.push((await timed(fn)).ms);
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50: Number(at(0.5).toFixed(1)), p95: Number(at(0.95).toFixed(1)) };
}

interface Fixture {
  workspaceId: string;
  campaignIds: string[];
  /** Flattened variant ids, `offsets[c]` the first of campaign c, `counts[c]` how many. */
  variantIds: string[];
  offsets: number[];
  counts: number[];
  rates: number[];
  zoneIds: string[];
  surfaceId: string;
}

/** Workspaces, campaigns, variants and zones through the real services (publishing needs no worker here). */
async function createFixture(orm: MikroORM, name: string, campaigns: number): Promise<Fixture> {
  const em = orm.em.fork();
  const workspaces = createWorkspacesService();
  const user = await workspaces.createUser(em, {
    email: `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@bench.example`,
    name,
  });
  const workspace = await workspaces.createWorkspace(em, { name, ownerUserId: user.id });
  const scope: WorkspaceScope = { workspaceId: workspace.id, em: orm.em.fork(), actor: 'bench' };
  const service = createCampaignsService({ republish: { requestRepublish: async () => undefined } });
  const surfaces = createSurfacesService({ siteUrl: async () => 'http://bench.invalid' });
  const surface = await surfaces.createSurface(scope, { name: 'Home', kind: 'brand_page', path: '/home' });
  const zoneIds: string[] = [];
  for (let z = 0; z < ZONES; z++) {
    zoneIds.push(
      (await surfaces.createZone(scope, { surfaceId: surface.id, name: `Zone ${z}`, key: `z${z}`, kind: 'card' })).id,
    );
  }
  const fixture: Fixture = {
    workspaceId: workspace.id,
    campaignIds: [],
    variantIds: [],
    offsets: [],
    counts: [],
    rates: [],
    zoneIds,
    surfaceId: surface.id,
  };
  for (let c = 0; c < campaigns; c++) {
    const campaign = await service.create(scope, { name: `${name} campaign ${c}`, objective: 'Sell' });
    const variants = 2 + (c % 3);
    fixture.offsets.push(fixture.variantIds.length);
    fixture.counts.push(variants);
    for (let v = 0; v < variants; v++) {
      const variant = await service.createVariant(scope, campaign.id, {
        headline: `Headline ${c}.${v}`,
        body: 'Body',
        callToAction: 'Buy',
      });
      fixture.variantIds.push(variant.id);
      // Every third campaign has a clearly better second variant; the others are A/A (or nearly).
      const base = 0.01 + (c % 5) * 0.005;
      fixture.rates.push(c % 3 === 0 && v === 1 ? base * 1.5 : base);
    }
    await service.publish(scope, campaign.id);
    fixture.campaignIds.push(campaign.id);
  }
  return fixture;
}

/**
 * Sessions in SQL (fast, deterministic with setseed): each picks a day (more recent days busier), a campaign
 * (skewed: some campaigns get most traffic), a variant (equal split), a zone, 1–3 impressions, maybe a
 * click, a conversion at the variant's true rate, and rarely a concierge question.
 */
async function generate(orm: MikroORM, fixture: Fixture, events: number, seed: number): Promise<number> {
  const sessions = Math.max(1, Math.round(events / 2.06));
  const chunk = 250_000;
  let written = 0;
  await sql(orm, `select setseed($1)`, [seed]);
  for (let first = 0; first < sessions; first += chunk) {
    const last = Math.min(sessions, first + chunk) - 1;
    const rows = await sql<{ n: string }>(
      orm,
      `with s as (
         select n, ws, sid, at, anon, ci, vi, zone, views,
           random() < 0.03 as clicked, random() < (($7::float8[])[vi]) as converted, random() < 0.005 as asked
         from (
           select n, $1::varchar as ws, 'sess-' || $1 || '-' || n as sid,
             now() - interval '10 minutes' - (power(random(), 1.3) * $8::float8) * interval '1 day' as at,
             random() < 0.03 as anon,
             ci, ($4::int[])[ci] + (n % ($5::int[])[ci]) as vi,
             ($6::varchar[])[1 + floor(random() * array_length($6::varchar[], 1))::int] as zone,
             1 + floor(random() * 3)::int as views
           from (select n, 1 + floor(power(random(), 1.6) * array_length($2::varchar[], 1))::int as ci
                 from generate_series($9::int, $10::int) n) picked
         ) raw
       ), e as (
         select ws, at + i * interval '20 seconds' as at, 'impression' as type, case when anon then null else sid end as sid,
           ($2::varchar[])[ci] as cid, ($3::varchar[])[vi] as vid, zone, null::varchar as goal, null::numeric as value,
           '{}'::jsonb as props
         from s, generate_series(1, s.views) i
         union all
         select ws, at + interval '90 seconds', 'click', sid, ($2::varchar[])[ci], ($3::varchar[])[vi], zone, null, null, '{}'
         from s where clicked and not anon
         union all
         select ws, at + interval '5 minutes', 'conversion', sid, ($2::varchar[])[ci], ($3::varchar[])[vi], null, 'purchase', 49.5, '{}'
         from s where converted and not anon
         union all
         select ws, at + interval '2 minutes', 'concierge_question', sid, null, null, null, null, null,
           jsonb_build_object('query', 'question ' || (n % 40), 'answered', n % 3 <> 0)
         from s where asked
       ), inserted as (
         insert into analytics_events (event_id, workspace_id, occurred_at, received_at, type, session_id, campaign_id,
           variant_id, surface_id, zone_id, goal, value, properties)
         select gen_random_uuid(), ws, at, at, type, sid, cid, vid, case when zone is null then null else $11::varchar end,
           zone, goal, value, props from e
         returning 1
       )
       select count(*) as n from inserted`,
      [
        fixture.workspaceId,
        fixture.campaignIds,
        fixture.variantIds,
        fixture.offsets.map((offset) => offset + 1),
        fixture.counts,
        fixture.zoneIds,
        fixture.rates,
        DAYS - 1,
        first,
        last,
        fixture.surfaceId,
      ],
    );
    written += Number(rows[0]!.n);
    if (sessions > chunk) process.stdout.write(`\r  generated ${written.toLocaleString('en-US')} events`);
  }
  if (sessions > chunk) process.stdout.write('\n');
  return written;
}

function sampleEvents(fixture: Fixture, count: number): SiteEvent[] {
  const events: SiteEvent[] = [];
  for (let i = 0; i < count; i++) {
    const c = i % fixture.campaignIds.length;
    events.push({
      eventId: uuidv4(),
      workspaceId: fixture.workspaceId,
      type: 'impression',
      occurredAt: new Date(Date.now() - (i % 3600) * 1000),
      sessionId: `ingest-${Math.floor(i / 2)}`,
      campaignId: fixture.campaignIds[c]!,
      variantId: fixture.variantIds[fixture.offsets[c]!]!,
      surfaceId: fixture.surfaceId,
      zoneId: fixture.zoneIds[i % fixture.zoneIds.length]!,
    });
  }
  return events;
}

async function ingest(orm: MikroORM, fixture: Fixture): Promise<void> {
  const writers = 4;
  const statement = 1000;
  const run = async (write: (batch: SiteEvent[]) => Promise<unknown>, events: SiteEvent[]) => {
    let next = 0;
    const { ms } = await timed(() =>
      Promise.all(
        Array.from({ length: writers }, async () => {
          for (;;) {
            const start = next;
            next += statement;
            if (start >= events.length) return;
            await write(events.slice(start, start + statement));
          }
        }),
      ),
    );
    return ms;
  };
  await sql(orm, `create unlogged table if not exists bench_events_plain (like analytics_events including defaults)`);
  await sql(orm, `alter table bench_events_plain set logged`);
  const baselineEvents = sampleEvents(fixture, INGEST_SAMPLE);
  const recorder = createSiteEventRecorder(orm);
  // The baseline: the recorder's own statement shape, minus partitioning, indexes and `on conflict`.
  const plain = async (batch: SiteEvent[]) => {
    const columns = [
      batch.map((e) => e.eventId),
      batch.map((e) => e.workspaceId),
      batch.map((e) => e.occurredAt.toISOString()),
      batch.map((e) => e.type),
      batch.map((e) => e.sessionId),
      batch.map((e) => e.campaignId ?? null),
      batch.map((e) => e.variantId ?? null),
      batch.map((e) => e.surfaceId ?? null),
      batch.map((e) => e.zoneId ?? null),
      batch.map(() => null),
      batch.map(() => null),
      batch.map((e) => JSON.stringify(e.properties ?? {})),
    ];
    await sql(
      orm,
      `insert into bench_events_plain (event_id, workspace_id, occurred_at, type, session_id, campaign_id, variant_id,
         surface_id, zone_id, goal, value, properties)
       select * from unnest($1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::varchar[], $6::varchar[],
         $7::varchar[], $8::varchar[], $9::varchar[], $10::varchar[], $11::numeric[], $12::jsonb[])`,
      columns,
    );
  };
  const baselineMs = await run(plain, baselineEvents);
  const recorderMs = await run((batch) => recorder.record(batch), sampleEvents(fixture, INGEST_SAMPLE));
  await sql(orm, `drop table bench_events_plain`);
  log(`\nIngestion (${INGEST_SAMPLE.toLocaleString('en-US')} events, ${writers} writers, ${statement}-row statements)`);
  console.table([
    {
      case: 'baseline: same unnest into a plain table (no partitions, indexes, dedup)',
      'events/s': rate(INGEST_SAMPLE, baselineMs),
      'vs baseline': '100%',
    },
    {
      case: 'recorder: partitioned analytics_events, 4 indexes, on conflict do nothing',
      'events/s': rate(INGEST_SAMPLE, recorderMs),
      'vs baseline': `${((baselineMs / recorderMs) * 100).toFixed(1)}%`,
    },
  ]);
}

const stack = await startBenchStack('analytics', { temporal: false });
const orm = await createOrm({ url: stack.databaseUrl });
try {
  log(`Analytics at scale: ${TOTAL_EVENTS.toLocaleString('en-US')} events over ${DAYS} days, ${CAMPAIGNS} campaigns`);
  await sql(
    orm,
    `select analytics_ensure_partitions((now() at time zone 'UTC')::date - $1::int, (now() at time zone 'UTC')::date + 1)`,
    [DAYS + 1],
  );
  const big = await createFixture(orm, 'Big brand', CAMPAIGNS);
  const small = [await createFixture(orm, 'Small one', 3), await createFixture(orm, 'Small two', 3)];

  const generated = await timed(async () => {
    let n = await generate(orm, big, TOTAL_EVENTS, 0.42);
    for (const [i, fixture] of small.entries())
      n += await generate(orm, fixture, Math.min(50_000, TOTAL_EVENTS / 100), 0.1 + i / 10);
    return n;
  });
  log(
    `Generated ${generated.value.toLocaleString('en-US')} events in ${seconds(generated.ms)} (${rate(generated.value, generated.ms)}, set-based SQL)`,
  );
  await sql(orm, 'analyze analytics_events');

  await ingest(orm, big);

  const rolled = await timed(() => runRollupPass(orm, { lagMs: 0 }));
  log(
    `\nRollups: ${rolled.value.events.toLocaleString('en-US')} events in ${rolled.value.batches} batches, ${seconds(rolled.ms)} (${rate(rolled.value.events, rolled.ms)})`,
  );
  await sql(orm, 'analyze');

  const scope = (): WorkspaceScope => ({ workspaceId: big.workspaceId, em: orm.em.fork(), actor: 'bench' });
  const now = new Date();
  log('\nReach: HyperLogLog union of daily sketches vs exact count(distinct session_id) over raw impressions');
  const reachRows: Record<string, unknown>[] = [];
  let worst = 0;
  const reachCase = async (label: string, window: '1d' | '7d' | '28d' | '90d', campaignId?: string) => {
    const w = resolveWindow(window, now);
    const { ms: sketchMs, value: reading } = await timed(() =>
      readReach(orm, { workspaceId: big.workspaceId, fromDay: w.from, toDay: w.to, campaignId }),
    );
    const { ms: exactMs, value: exactRows } = await timed(() =>
      sql<{ exact: string }>(
        orm,
        `select count(distinct session_id) as exact from analytics_events where workspace_id = $1 and type = 'impression'
           and occurred_at >= $2::date and occurred_at < $3::date + 1 ${campaignId ? 'and campaign_id = $4' : ''}`,
        campaignId ? [big.workspaceId, w.from, w.to, campaignId] : [big.workspaceId, w.from, w.to],
      ),
    );
    const exact = Number(exactRows[0]!.exact);
    const error = exact ? (reading.reach - exact) / exact : 0;
    worst = Math.max(worst, Math.abs(error));
    reachRows.push({
      slice: label,
      impressions: reading.impressions,
      'exact reach': exact,
      'sketch reach': reading.reach,
      error: `${(error * 100).toFixed(2)}%`,
      'sketch ms': sketchMs.toFixed(1),
      'exact ms (baseline)': exactMs.toFixed(0),
    });
  };
  for (const window of ['1d', '7d', '28d', '90d'] as const) await reachCase(`workspace ${window}`, window);
  for (const c of [0, 7, 19]) await reachCase(`campaign ${c}, 28d`, '28d', big.campaignIds[c]);
  console.table(reachRows);
  log(`Worst Reach error ${(worst * 100).toFixed(2)}% — target ≤ 2%: ${worst <= 0.02 ? 'met' : 'MISSED'}`);

  const service = createAnalyticsQueryService();
  log(
    `\nQueries through the analytics service, ${REPEATS} calls each (p50/p95 ms), against the exact raw-event baseline`,
  );
  const queryRows: Record<string, unknown>[] = [];
  const verdicts: string[] = [];
  const queryCase = async (label: string, fn: () => Promise<unknown>, baseline?: () => Promise<unknown>) => {
    const measured = await latency(fn);
    const base = baseline ? await latency(baseline, 3) : null;
    queryRows.push({
      query: label,
      'p50 ms': measured.p50,
      'p95 ms': measured.p95,
      'exact from raw events, p50 ms': base?.p50 ?? '',
      speed: base ? `${(base.p50 / measured.p50).toFixed(0)}×` : '',
    });
    verdicts.push(
      `${label}: p95 ${measured.p95} ms — target < ${TARGET_MS} ms: ${measured.p95 < TARGET_MS ? 'met' : 'MISSED'}`,
    );
  };
  const rawSummary = (window: '7d' | '90d') => () => {
    const w = resolveWindow(window, now);
    return sql(
      orm,
      `select count(*) filter (where type = 'impression'), count(distinct session_id) filter (where type = 'impression'),
         count(*) filter (where type = 'click'), count(*) filter (where type = 'conversion')
       from analytics_events where workspace_id = $1 and occurred_at >= $2::date and occurred_at < $3::date + 1`,
      [big.workspaceId, w.from, w.to],
    );
  };
  const rawExperiments = () =>
    sql(
      orm,
      `with units as (
         select campaign_id, session_id, min(variant_id) as variant_id, min(occurred_at) as first_at from analytics_events
         where workspace_id = $1 and type = 'impression' and session_id is not null group by 1, 2
       ), conv as (
         select distinct u.campaign_id, u.session_id from units u join analytics_events c on c.workspace_id = $1
           and c.type = 'conversion' and c.session_id = u.session_id and c.campaign_id = u.campaign_id and c.occurred_at >= u.first_at
       )
       select u.campaign_id, u.variant_id, count(*), count(conv.session_id) from units u left join conv using (campaign_id, session_id)
       group by 1, 2`,
      [big.workspaceId],
    );
  await queryCase('snapshot summary, 7d (the default)', () => service.snapshot(scope(), {}), rawSummary('7d'));
  await queryCase('snapshot summary, 90d', () => service.snapshot(scope(), { window: '90d' }), rawSummary('90d'));
  await queryCase('snapshot, all six sections, 7d', () =>
    service.snapshot(scope(), {
      sections: ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'],
    }),
  );
  await queryCase('snapshot, all six sections, 28d', () =>
    service.snapshot(scope(), {
      window: '28d',
      sections: ['summary', 'campaigns', 'variants', 'surfaces', 'timeseries', 'concierge'],
    }),
  );
  await queryCase('snapshot campaigns + variants, 90d', () =>
    service.snapshot(scope(), { window: '90d', sections: ['campaigns', 'variants'] }),
  );
  await queryCase('cvg_dashboard, all 20 campaigns', () => service.experiments(scope(), {}), rawExperiments);
  await queryCase('cvg_dashboard, one campaign', () =>
    service.experiments(scope(), { campaignId: big.campaignIds[0] }),
  );
  await queryCase('insights, 7d', () => service.insights(scope(), {}));
  console.table(queryRows);
  for (const verdict of verdicts) log(verdict);

  const sizes = await sql<{ relation: string; bytes: string; pretty: string }>(
    orm,
    `select relation, bytes, pg_size_pretty(bytes) as pretty from (
       select 'analytics_events (all partitions, with indexes)' as relation,
         sum(pg_total_relation_size(inhrelid))::bigint as bytes from pg_inherits where inhparent = 'analytics_events'::regclass
       union all select 'analytics_rollups_daily', pg_total_relation_size('analytics_rollups_daily')
       union all select 'analytics_reach_daily', pg_total_relation_size('analytics_reach_daily')
       union all select 'analytics_variant_totals', pg_total_relation_size('analytics_variant_totals')
       union all select 'analytics_exposures', pg_total_relation_size('analytics_exposures')
     ) sizes`,
  );
  log('\nStorage');
  console.table(sizes.map((row) => ({ relation: row.relation, size: row.pretty })));
} finally {
  await orm.close();
  await stack.stop();
}
