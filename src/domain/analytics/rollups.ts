/**
 * Incremental analytics rollups, built from the raw `analytics_events` table:
 *
 * - `analytics_rollups_daily`   — per workspace × UTC day × campaign × variant × zone ('' when none);
 * - `analytics_campaign_daily`  — per workspace × UTC day × campaign: impressions only (what campaign lists rank by);
 * - `analytics_reach_daily`     — per workspace × UTC day (the summary's totals and workspace Reach);
 * - `analytics_variant_totals`  — per workspace × campaign × variant since the first event (A/B exposures);
 * - `analytics_exposures`       — per workspace × campaign × session: the experiment unit (exact, see below);
 * - `analytics_concierge_daily` — per workspace × UTC day × question (trimmed, case-folded): asked, unanswered;
 * - `analytics_window_*`        — the long windows' reach sketches, kept by window-reach.ts.
 *
 * Each row carries exact counters and a HyperLogLog reach sketch (see reach-sketch.ts). Days are the UTC day
 * of `occurred_at`; events that arrive late simply add to the day they happened on.
 *
 * **Reach** is the number of distinct sessions that received at least one impression in the window queried
 * (the union of the daily sketches of that window). Impressions without a session (an agent reading the
 * markdown twin without cookies) cannot be told apart as visitors, so they are excluded from Reach and counted
 * as `unattributed_impressions` (they still count as impressions). Hence Reach ≤ Impressions by definition; the
 * sketch's ±0.8% error can still overshoot for a handful of sessions, so readers clamp to the impressions.
 *
 * **Exactly once.** Events are consumed in `(received_at, event_id)` order after a single watermark row.
 * One batch is one transaction: it locks the watermark row (`for update`, so concurrent passes queue rather
 * than double count), reads the next events up to `now() − lag`, adds their counts with
 * `on conflict do update set x = x + excluded.x`, merges their sketches, and moves the watermark — all
 * committed together or not at all. A crash or a retried activity therefore re-reads exactly the events
 * whose counts were not committed.
 *
 * **Why the lag.** `received_at` defaults to `now()`, the start time of the inserting transaction, which
 * commits a moment later. An event stamped 10:00:00.000 may become visible after a pass has already moved
 * the watermark past 10:00:00.000 for events that committed sooner, and would then be skipped for good.
 * Events are inserted by single autocommit statements (event-recorder.ts) that finish in milliseconds, so
 * reading only up to `now() − 5 s` leaves every in-flight insert ample time to commit first.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { runPrepared } from '../../db/prepared.ts';
import { ReachSketch } from './reach-sketch.ts';
import {
  mergeSketchesInto,
  query,
  ROLLUP_WATERMARK,
  serialiseRollupWriters,
  sketchEntry,
  type SketchEntries,
  type Tx,
} from './rollup-store.ts';
import {
  addLateCountersToWindowBuilds,
  mergeLateIntoWindowBuilds,
  refreshWindowBuilds,
  type BatchRegisters,
} from './window-reach.ts';

export const ROLLUP_LAG_MS = 5_000;
export const DEFAULT_ROLLUP_BATCH = 50_000;

export interface RollupBatchResult {
  /** Events consumed by this batch (0 when caught up). */
  events: number;
  /** Rows of `analytics_rollups_daily` touched. */
  groups: number;
}

export interface RollupPassResult {
  events: number;
  batches: number;
  /** True when the last batch found fewer events than its limit (nothing older than the lag is left). */
  caughtUp: boolean;
  /** Window builds (re)built after the batches (window-reach.ts). */
  windowBuilds: number;
}

export interface RollupPassOptions {
  /** Events per batch (= per transaction). */
  limitEvents?: number;
  /** Stop after this many batches even if not caught up (the activity bounds its run time this way). */
  maxBatches?: number;
  lagMs?: number;
  /** The clock that decides which day is today for the window builds (tests and benchmarks pin it). */
  now?: () => Date;
  /** Called after each committed batch (the activity heartbeats here). */
  onBatchCommitted?: (batch: RollupBatchResult, totals: RollupPassResult) => void | Promise<void>;
}

const COUNTERS = `
  count(*) filter (where type = 'impression') as impressions,
  count(*) filter (where type = 'impression' and session_id is null) as unattributed_impressions,
  count(*) filter (where type = 'click') as clicks,
  count(*) filter (where type = 'conversion') as conversions,
  coalesce(sum(value) filter (where type = 'conversion'), 0) as conversion_value,
  count(*) filter (where type = 'concierge_question') as concierge_questions`;

const ADD_COUNTERS = (table: string) => `
  impressions = ${table}.impressions + excluded.impressions,
  unattributed_impressions = ${table}.unattributed_impressions + excluded.unattributed_impressions,
  clicks = ${table}.clicks + excluded.clicks,
  conversions = ${table}.conversions + excluded.conversions,
  conversion_value = ${table}.conversion_value + excluded.conversion_value,
  concierge_questions = ${table}.concierge_questions + excluded.concierge_questions,
  updated_at = now()`;

const COUNTER_COLUMNS =
  'impressions, unattributed_impressions, clicks, conversions, conversion_value, concierge_questions';

/**
 * Register index (first 14 bits) and rank (first 1 bit among the other 50, 51 when none) of the first 8 bytes
 * of md5(session_id) — the same hash as `sessionHash` in reach-sketch.ts.
 */
const HASH_BITS = `('x' || substr(md5(session_id), 1, 16))::bit(64)`;
const REGISTER_SQL = `substring(${HASH_BITS} from 1 for 14)::bit(14)::integer`;
const RANK_SQL = `coalesce(nullif(position(B'1' in substring(${HASH_BITS} from 15)), 0), 51)`;

/** Consumes at most `limitEvents` events after the watermark in one transaction. */
export async function rollupBatch(
  orm: MikroORM,
  options: { limitEvents?: number; lagMs?: number } = {},
): Promise<RollupBatchResult> {
  const limit = Math.max(1, Math.floor(options.limitEvents ?? DEFAULT_ROLLUP_BATCH));
  // Inlined below (a utility statement takes no bind parameters); both are plain numbers.
  const lagSeconds = Math.max(0, Number(options.lagMs ?? ROLLUP_LAG_MS)) / 1000;
  return orm.em.getConnection().transactional(async (tx) => {
    const trx = tx as unknown as Tx;
    // Serialises passes: a second pass waits here, then sees the watermark the first one committed.
    await serialiseRollupWriters(trx);
    // The watermark stays in SQL (a JavaScript Date would drop its microseconds).
    await query(
      trx,
      `create temporary table rollup_batch on commit drop as
        select e.received_at, e.event_id, e.workspace_id, (e.occurred_at at time zone 'UTC')::date as day,
          coalesce(e.campaign_id, '') as campaign_id, coalesce(e.variant_id, '') as variant_id,
          coalesce(e.zone_id, '') as zone_id, e.type, e.session_id, e.goal, e.value, e.occurred_at,
          case when e.type = 'concierge_question' then coalesce(e.properties->>'query', '') end as question,
          case when e.type = 'concierge_question' then e.properties->>'answered' = 'false' end as unanswered
        from analytics_events e, analytics_rollup_watermarks w
        where w.name = '${ROLLUP_WATERMARK}' and (e.received_at, e.event_id) > (w.received_at, w.event_id)
          and e.received_at <= now() - make_interval(secs => ${lagSeconds})
        order by e.received_at, e.event_id
        limit ${limit}`,
    );
    const [{ events }] = (await query<{ events: string }>(trx, `select count(*) as events from rollup_batch`)) as [
      { events: string },
    ];
    if (Number(events) === 0) return { events: 0, groups: 0 };

    await query(
      trx,
      `update analytics_rollup_watermarks w set (received_at, event_id) = (last.received_at, last.event_id),
         events_total = w.events_total + $2, updated_at = now()
       from (select received_at, event_id from rollup_batch order by received_at desc, event_id desc limit 1) last
       where w.name = $1`,
      [ROLLUP_WATERMARK, Number(events)],
    );

    const daily = await query<{ workspace_id: string }>(
      trx,
      `insert into analytics_rollups_daily (workspace_id, day, campaign_id, variant_id, zone_id, ${COUNTER_COLUMNS})
       select workspace_id, day, campaign_id, variant_id, zone_id, ${COUNTERS}
       from rollup_batch group by workspace_id, day, campaign_id, variant_id, zone_id
       on conflict (workspace_id, day, campaign_id, variant_id, zone_id) do update set ${ADD_COUNTERS('analytics_rollups_daily')}
       returning workspace_id`,
    );
    // What the batch adds to each daily row of campaign traffic, kept for the window builds whose closed days
    // it reaches (late events; `addLateCountersToWindowBuilds`). Conversion attribution adds to it below.
    await query(
      trx,
      `create temporary table rollup_daily_delta (
         workspace_id varchar(40) not null, day date not null, campaign_id varchar(40) not null,
         variant_id varchar(40) not null, zone_id varchar(40) not null,
         impressions bigint not null default 0, unattributed_impressions bigint not null default 0,
         clicks bigint not null default 0, conversions bigint not null default 0,
         conversion_value numeric(18, 2) not null default 0, concierge_questions bigint not null default 0,
         converted_sessions bigint not null default 0, converted_value numeric(18, 2) not null default 0
       ) on commit drop`,
    );
    await query(
      trx,
      `insert into rollup_daily_delta (workspace_id, day, campaign_id, variant_id, zone_id, ${COUNTER_COLUMNS})
       select workspace_id, day, campaign_id, variant_id, zone_id, ${COUNTERS}
       from rollup_batch where campaign_id <> '' group by workspace_id, day, campaign_id, variant_id, zone_id`,
    );
    // A campaign's impressions of the day in one narrow row: what a campaign list ranks by (see
    // Migration20261128120000_campaign_daily_impressions). A row for every campaign day that has daily rows,
    // as the daily rows have (attributed conversions add theirs in attributeConversions).
    await query(
      trx,
      `insert into analytics_campaign_daily (workspace_id, day, campaign_id, impressions)
       select workspace_id, day, campaign_id, count(*) filter (where type = 'impression')
       from rollup_batch where campaign_id <> '' group by workspace_id, day, campaign_id
       on conflict (workspace_id, day, campaign_id) do update
         set impressions = analytics_campaign_daily.impressions + excluded.impressions`,
    );
    await query(
      trx,
      `insert into analytics_reach_daily (workspace_id, day, ${COUNTER_COLUMNS})
       select workspace_id, day, ${COUNTERS} from rollup_batch group by workspace_id, day
       on conflict (workspace_id, day) do update set ${ADD_COUNTERS('analytics_reach_daily')}`,
    );
    await query(
      trx,
      `insert into analytics_variant_totals (workspace_id, campaign_id, variant_id, ${COUNTER_COLUMNS}, first_seen, last_seen)
       select workspace_id, campaign_id, variant_id, ${COUNTERS}, min(occurred_at), max(occurred_at)
       from rollup_batch where campaign_id <> '' group by workspace_id, campaign_id, variant_id
       on conflict (workspace_id, campaign_id, variant_id) do update set ${ADD_COUNTERS('analytics_variant_totals')},
         first_seen = least(analytics_variant_totals.first_seen, excluded.first_seen),
         last_seen = greatest(analytics_variant_totals.last_seen, excluded.last_seen)`,
    );
    await query(
      trx,
      `insert into analytics_concierge_daily as t (workspace_id, day, question_key, question, asked, unanswered,
         last_asked_at, last_unanswered_at)
       select workspace_id, day, lower(trim(question)), min(question), count(*), count(*) filter (where unanswered),
         max(occurred_at), max(occurred_at) filter (where unanswered)
       from rollup_batch where type = 'concierge_question' group by workspace_id, day, lower(trim(question))
       on conflict (workspace_id, day, question_key) do update set question = least(t.question, excluded.question),
         asked = t.asked + excluded.asked, unanswered = t.unanswered + excluded.unanswered,
         last_asked_at = greatest(t.last_asked_at, excluded.last_asked_at),
         last_unanswered_at = greatest(t.last_unanswered_at, excluded.last_unanswered_at)`,
    );
    await recordExposures(trx);
    await attributeConversions(trx);
    await attributeChannelConversions(trx);
    await mergeSketches(trx);
    await addLateCountersToWindowBuilds(trx);
    return { events: Number(events), groups: daily.length };
  });
}

/**
 * Exact experiment units. A session's first impression of a campaign enters `analytics_exposures` with its
 * variant (intention to treat: later impressions of other variants do not move it); each new unit adds one
 * to its variant's `exposed_sessions` (`xmax = 0` tells a fresh row from an updated one). A late impression
 * that happened earlier only moves `first_exposed_at` back. Only sessions count: an impression without one
 * is not a unit.
 */
async function recordExposures(trx: Tx): Promise<void> {
  await query(
    trx,
    `with first_seen as (
       select distinct on (workspace_id, campaign_id, session_id) workspace_id, campaign_id, session_id, variant_id, occurred_at
       from rollup_batch
       where type = 'impression' and session_id is not null and campaign_id <> '' and variant_id <> ''
       order by workspace_id, campaign_id, session_id, occurred_at, event_id
     ), inserted as (
       insert into analytics_exposures (workspace_id, campaign_id, session_id, variant_id, first_exposed_at)
       select workspace_id, campaign_id, session_id, variant_id, occurred_at from first_seen
       on conflict (workspace_id, campaign_id, session_id) do update set first_exposed_at = excluded.first_exposed_at
         where excluded.first_exposed_at < analytics_exposures.first_exposed_at
       returning workspace_id, campaign_id, variant_id, xmax = 0 as is_new
     ), counted as (
       select workspace_id, campaign_id, variant_id, count(*) as units from inserted where is_new group by 1, 2, 3
     )
     update analytics_variant_totals t set exposed_sessions = t.exposed_sessions + counted.units
     from counted
     where t.workspace_id = counted.workspace_id and t.campaign_id = counted.campaign_id
       and t.variant_id = counted.variant_id`,
  );
}

/**
 * Conversion attribution. A conversion of a session counts for every campaign that session was exposed to
 * at or before the conversion (only the named campaign when the event names one) whose `conversion_goals`
 * include the event's goal (an empty list accepts every goal), and is credited to the variant of that
 * exposure. A unit converts once (`converted_sessions`, what the experiment statistics use); the value of
 * every attributed conversion is summed. A conversion received before its session's first impression was
 * rolled up is not attributed (beacons follow the page's impression, so this needs an out-of-order
 * delivery across batches); its raw count still appears in `conversions`.
 */
async function attributeConversions(trx: Tx): Promise<void> {
  await query(
    trx,
    `with attributed as (
       select x.workspace_id, x.campaign_id, x.session_id, x.variant_id, x.converted_at is null as first_time,
         min(e.occurred_at) as converted_at, coalesce(sum(e.value), 0) as value,
         (min(e.occurred_at) at time zone 'UTC')::date as day
       from rollup_batch e
       join analytics_exposures x on x.workspace_id = e.workspace_id and x.session_id = e.session_id
         and (e.campaign_id = '' or x.campaign_id = e.campaign_id) and x.first_exposed_at <= e.occurred_at
       left join campaigns c on c.id = x.campaign_id
       where e.type = 'conversion' and e.session_id is not null
         and (c.id is null or cardinality(c.conversion_goals) = 0 or e.goal = any(c.conversion_goals))
       group by x.workspace_id, x.campaign_id, x.session_id, x.variant_id, x.converted_at
     ), marked as (
       update analytics_exposures x
       set converted_at = least(coalesce(x.converted_at, a.converted_at), a.converted_at),
         conversion_value = x.conversion_value + a.value
       from attributed a
       where x.workspace_id = a.workspace_id and x.campaign_id = a.campaign_id and x.session_id = a.session_id
       returning x.workspace_id
     ), daily as (
       insert into analytics_rollups_daily (workspace_id, day, campaign_id, variant_id, zone_id, converted_sessions, converted_value)
       select workspace_id, day, campaign_id, variant_id, '', count(*) filter (where first_time), sum(value)
       from attributed group by workspace_id, day, campaign_id, variant_id
       on conflict (workspace_id, day, campaign_id, variant_id, zone_id) do update set
         converted_sessions = analytics_rollups_daily.converted_sessions + excluded.converted_sessions,
         converted_value = analytics_rollups_daily.converted_value + excluded.converted_value,
         updated_at = now()
       returning workspace_id
     ), campaign_days as (
       insert into analytics_campaign_daily (workspace_id, day, campaign_id)
       select distinct workspace_id, day, campaign_id from attributed
       on conflict (workspace_id, day, campaign_id) do nothing
       returning workspace_id
     ), delta as (
       insert into rollup_daily_delta (workspace_id, day, campaign_id, variant_id, zone_id, converted_sessions, converted_value)
       select workspace_id, day, campaign_id, variant_id, '', count(*) filter (where first_time), sum(value)
       from attributed group by workspace_id, day, campaign_id, variant_id
       returning workspace_id
     )
     insert into analytics_variant_totals (workspace_id, campaign_id, variant_id, converted_sessions, converted_value)
     select workspace_id, campaign_id, variant_id, count(*) filter (where first_time), sum(value)
     from attributed group by workspace_id, campaign_id, variant_id
     on conflict (workspace_id, campaign_id, variant_id) do update set
       converted_sessions = analytics_variant_totals.converted_sessions + excluded.converted_sessions,
       converted_value = analytics_variant_totals.converted_value + excluded.converted_value,
       updated_at = now()`,
  );
}

/**
 * Conversion attribution to channel posts: a conversion of a session that arrived through a post's attributed
 * link (`analytics_channel_sessions`, written by the brand host's hand-off) at or before the conversion counts
 * for that post, under the same goal rule as above (the campaign's `conversion_goals`). A session converts
 * once per post (`analytics_channel_conversions_daily` counts it on the day of its first attributed
 * conversion); the value of every attributed conversion is summed on the day it happened.
 */
async function attributeChannelConversions(trx: Tx): Promise<void> {
  await query(
    trx,
    `with attributed as (
       select s.workspace_id, s.session_id, s.post_id, s.network, s.campaign_id, s.variant_id,
         s.converted_at is null as first_time, min(e.occurred_at) as converted_at, coalesce(sum(e.value), 0) as value,
         (min(e.occurred_at) at time zone 'UTC')::date as day
       from rollup_batch e
       join analytics_channel_sessions s on s.workspace_id = e.workspace_id and s.session_id = e.session_id
         and (e.campaign_id = '' or s.campaign_id = e.campaign_id) and s.first_click_at <= e.occurred_at
       left join campaigns c on c.id = s.campaign_id
       where e.type = 'conversion' and e.session_id is not null
         and (c.id is null or cardinality(c.conversion_goals) = 0 or e.goal = any(c.conversion_goals))
       group by s.workspace_id, s.session_id, s.post_id, s.network, s.campaign_id, s.variant_id, s.converted_at
     ), marked as (
       update analytics_channel_sessions s
       set converted_at = least(coalesce(s.converted_at, a.converted_at), a.converted_at)
       from attributed a
       where s.workspace_id = a.workspace_id and s.session_id = a.session_id and s.post_id = a.post_id
       returning s.workspace_id
     )
     insert into analytics_channel_conversions_daily
       (workspace_id, day, post_id, network, campaign_id, variant_id, converted_sessions, conversion_value)
     select workspace_id, day, post_id, min(network), min(campaign_id), min(variant_id), count(*) filter (where first_time), sum(value)
     from attributed group by workspace_id, day, post_id
     on conflict (workspace_id, day, post_id) do update set
       converted_sessions = analytics_channel_conversions_daily.converted_sessions + excluded.converted_sessions,
       conversion_value = analytics_channel_conversions_daily.conversion_value + excluded.conversion_value`,
  );
}

/** Folds the batch's sessions into the sketches of every row they touch, at all three levels. */
async function mergeSketches(trx: Tx): Promise<void> {
  // Register maxima per daily group, computed in SQL: one row per group, not one per event.
  const rows = await query<BatchRegisters>(
    trx,
    `select workspace_id, day::text as day, campaign_id, variant_id, zone_id,
       array_agg(register order by register) as registers, array_agg(rank order by register) as ranks
     from (
       select workspace_id, day, campaign_id, variant_id, zone_id, ${REGISTER_SQL} as register, max(${RANK_SQL}) as rank
       from rollup_batch where type = 'impression' and session_id is not null
       group by workspace_id, day, campaign_id, variant_id, zone_id, register
     ) registers
     group by workspace_id, day, campaign_id, variant_id, zone_id`,
  );
  if (rows.length === 0) return;
  const daily: SketchEntries = new Map();
  const reach: SketchEntries = new Map();
  const variants: SketchEntries = new Map();
  for (const row of rows) {
    const sketch = new ReachSketch();
    row.registers.forEach((register, i) => sketch.setRegister(register, row.ranks[i]!));
    sketchEntry(daily, [row.workspace_id, row.day, row.campaign_id, row.variant_id, row.zone_id]).merge(sketch);
    sketchEntry(reach, [row.workspace_id, row.day]).merge(sketch);
    if (row.campaign_id !== '') {
      sketchEntry(variants, [row.workspace_id, row.campaign_id, row.variant_id]).merge(sketch);
    }
  }
  await mergeSketchesInto(
    trx,
    'analytics_rollups_daily',
    ['workspace_id', 'day', 'campaign_id', 'variant_id', 'zone_id'],
    daily,
  );
  await mergeSketchesInto(trx, 'analytics_reach_daily', ['workspace_id', 'day'], reach, { estimateColumn: 'reach' });
  await mergeSketchesInto(trx, 'analytics_variant_totals', ['workspace_id', 'campaign_id', 'variant_id'], variants);
  // Sessions of late events, on closed days that a window build already covers, go into that build as well.
  await mergeLateIntoWindowBuilds(trx, rows);
}

/**
 * Runs batches until caught up (or `maxBatches`), each committed on its own, then brings the window builds
 * up to date (window-reach.ts: a rebuild once a day per workspace, nothing otherwise).
 */
export async function runRollupPass(orm: MikroORM, options: RollupPassOptions = {}): Promise<RollupPassResult> {
  const limit = Math.max(1, Math.floor(options.limitEvents ?? DEFAULT_ROLLUP_BATCH));
  const totals: RollupPassResult = { events: 0, batches: 0, caughtUp: false, windowBuilds: 0 };
  const finish = async () => {
    totals.windowBuilds = await refreshWindowBuilds(orm, { now: options.now?.() });
    return totals;
  };
  for (;;) {
    if (options.maxBatches !== undefined && totals.batches >= options.maxBatches) return finish();
    const batch = await rollupBatch(orm, { limitEvents: limit, lagMs: options.lagMs });
    if (batch.events > 0) {
      totals.events += batch.events;
      totals.batches += 1;
      await options.onBatchCommitted?.(batch, totals);
    }
    if (batch.events < limit) {
      totals.caughtUp = true;
      return finish();
    }
  }
}

/**
 * How far the rollups are behind: the age in seconds of the oldest event not yet folded in (0 when caught
 * up). Read from the `(received_at, event_id)` index of each partition, so it is cheap enough for every
 * scrape. The rollup deliberately stays `ROLLUP_LAG_MS` behind and runs once a minute, so about a minute is
 * normal; a lag that keeps growing means the schedule or the worker has stopped.
 */
export async function rollupLagSeconds(orm: MikroORM): Promise<number> {
  const rows = await runPrepared<{ lag: string | null }>(orm, ROLLUP_LAG, [ROLLUP_WATERMARK]);
  return Math.max(0, Number(rows[0]?.lag ?? 0));
}

const ROLLUP_LAG = {
  name: 'analytics-rollup-lag',
  text: `select extract(epoch from now() - (
           select e.received_at from analytics_events e, analytics_rollup_watermarks w
            where w.name = $1 and (e.received_at, e.event_id) > (w.received_at, w.event_id)
            order by e.received_at, e.event_id limit 1)) as lag`,
};

export interface ReachReading {
  impressions: number;
  /** Distinct sessions with an impression (HyperLogLog estimate, ±0.8%), never above `impressions`. */
  reach: number;
  unattributedImpressions: number;
}

/**
 * Impressions and Reach of a workspace over UTC days `[fromDay, toDay]`, optionally narrowed to a campaign,
 * a variant or a zone, read from the daily rollups (never from raw events).
 */
export async function readReach(
  orm: MikroORM,
  filter: {
    workspaceId: string;
    fromDay: string;
    toDay: string;
    campaignId?: string;
    variantId?: string;
    zoneId?: string;
  },
): Promise<ReachReading> {
  const narrowed = filter.campaignId !== undefined || filter.variantId !== undefined || filter.zoneId !== undefined;
  const conditions = ['workspace_id = ?', 'day between ?::date and ?::date'];
  const params: unknown[] = [filter.workspaceId, filter.fromDay, filter.toDay];
  for (const [column, value] of [
    ['campaign_id', filter.campaignId],
    ['variant_id', filter.variantId],
    ['zone_id', filter.zoneId],
  ] as const) {
    if (value === undefined) continue;
    conditions.push(`${column} = ?`);
    params.push(value);
  }
  const table = narrowed ? 'analytics_rollups_daily' : 'analytics_reach_daily';
  const rows = await orm.em
    .getConnection()
    .execute<{ impressions: string; unattributed_impressions: string; reach_sketch: Buffer | null }[]>(
      `select impressions, unattributed_impressions, reach_sketch from ${table} where ${conditions.join(' and ')}`,
      params,
    );
  const impressions = rows.reduce((sum, row) => sum + Number(row.impressions), 0);
  const unattributed = rows.reduce((sum, row) => sum + Number(row.unattributed_impressions), 0);
  const reach = ReachSketch.union(rows.map((row) => row.reach_sketch)).estimate();
  return { impressions, reach: Math.min(reach, impressions - unattributed), unattributedImpressions: unattributed };
}
