/**
 * Reads of the analytics rollups (never of raw events): one place that knows the rollup tables' columns, so
 * the snapshot, the experiments and the insights agree on every number.
 */
import { runPrepared, statementOf, type PreparedStatement } from '../../db/prepared.ts';
import type pg from 'pg';
import type { WorkspaceScope } from '../shared/scope.ts';
import { ratio, SMALL_SAMPLE_SESSIONS } from './analytics-window.ts';
import { ReachSketch } from './reach-sketch.ts';

/**
 * Rows of a rollup read (the workspace bound by the statement itself, as every caller does). Each text is a
 * named statement, parsed and planned once per pooled connection: an analytics page runs a dozen of them, and
 * planning them anew took about 2 ms of PostgreSQL's time per view (docs/console-performance.md).
 */
export async function sqlRows<Row>(scope: WorkspaceScope, sql: string, params: unknown[] = []): Promise<Row[]> {
  return runPrepared<Row & pg.QueryResultRow>(scope.em, statementOf(sql), params);
}

/** Counters of one rollup row (or of a sum of them), plus the union of their reach sketches. */
export class Tally {
  impressions = 0;
  unattributedImpressions = 0;
  clicks = 0;
  conversions = 0;
  conversionValue = 0;
  conciergeQuestions = 0;
  convertedSessions = 0;
  convertedValue = 0;
  /** Made on first use: a tally of counters only (a ranking) never pays for 16,384 registers. */
  #sketch: ReachSketch | null = null;

  get sketch(): ReachSketch {
    return (this.#sketch ??= new ReachSketch());
  }

  /** The row's counters, and its sketch unless `sketch: false` (counters only, reach left for later). */
  add(row: CounterRow, options: { sketch?: boolean } = {}): this {
    this.impressions += Number(row.impressions);
    this.unattributedImpressions += Number(row.unattributed_impressions);
    this.clicks += Number(row.clicks);
    this.conversions += Number(row.conversions);
    this.conversionValue += Number(row.conversion_value);
    this.conciergeQuestions += Number(row.concierge_questions);
    this.convertedSessions += Number(row.converted_sessions ?? 0);
    this.convertedValue += Number(row.converted_value ?? 0);
    if (options.sketch !== false && row.reach_sketch) this.sketch.mergeBytes(row.reach_sketch);
    return this;
  }

  /**
   * Folds `sketch` into this tally's Reach. A tally without a sketch yet takes `sketch` itself, so the caller
   * hands it over and must not use it afterwards (a window build's sketch, read for this tally alone).
   */
  takeSketch(sketch: ReachSketch): this {
    if (this.#sketch) this.#sketch.merge(sketch);
    else this.#sketch = sketch;
    return this;
  }

  /** Adds another tally (counters and sketch): how a parent slice is built from its children's tallies. */
  absorb(other: Tally): this {
    this.impressions += other.impressions;
    this.unattributedImpressions += other.unattributedImpressions;
    this.clicks += other.clicks;
    this.conversions += other.conversions;
    this.conversionValue += other.conversionValue;
    this.conciergeQuestions += other.conciergeQuestions;
    this.convertedSessions += other.convertedSessions;
    this.convertedValue += other.convertedValue;
    if (other.#sketch) this.sketch.merge(other.#sketch);
    return this;
  }

  /**
   * Reach never exceeds the impressions that had a session (the sketch's ±0.8 % could overshoot a little).
   * `estimate`: the estimate of this tally's sessions when it is already known (a workspace day's stored
   * `reach`, written with its sketch), so the sketch need not be read.
   */
  reach(estimate?: number): number {
    if (estimate === undefined && !this.#sketch) return 0;
    return Math.min(estimate ?? Math.round(this.#sketch!.estimate()), this.impressions - this.unattributedImpressions);
  }

  metrics(reachEstimate?: number): Metrics {
    const reach = this.reach(reachEstimate);
    return {
      impressions: this.impressions,
      reach,
      unattributedImpressions: this.unattributedImpressions,
      clicks: this.clicks,
      clickThroughRate: round(ratio(this.clicks, this.impressions)),
      conversions: this.conversions,
      conversionValue: round2(this.conversionValue),
      convertedSessions: this.convertedSessions,
      conversionRate: round(ratio(this.convertedSessions, reach)),
      conciergeQuestions: this.conciergeQuestions,
      smallSample: reach < SMALL_SAMPLE_SESSIONS,
    };
  }
}

/**
 * What every analytics section reports for a slice. Impressions (raw deliveries) and Reach (distinct
 * sessions) are always separate fields; see docs/analytics.md for the exact definitions.
 */
export interface Metrics {
  impressions: number;
  reach: number;
  unattributedImpressions: number;
  clicks: number;
  clickThroughRate: number | null;
  /** Conversion events received (every goal, attributed or not). */
  conversions: number;
  conversionValue: number;
  /** Sessions whose first attributed conversion fell in the window (campaign and variant slices only). */
  convertedSessions: number;
  /** convertedSessions / reach. */
  conversionRate: number | null;
  conciergeQuestions: number;
  /** Fewer than 100 distinct sessions: rates are anecdotal. */
  smallSample: boolean;
}

export interface CounterRow {
  impressions: string;
  unattributed_impressions: string;
  clicks: string;
  conversions: string;
  conversion_value: string;
  concierge_questions: string;
  converted_sessions?: string;
  converted_value?: string;
  reach_sketch: Buffer | null;
}

export interface DailyRow extends CounterRow {
  day: string;
  campaign_id: string;
  variant_id: string;
  zone_id: string;
}

const COUNTER_COLUMNS =
  'impressions, unattributed_impressions, clicks, conversions, conversion_value, concierge_questions';

/**
 * Per-day workspace totals (one row per day with traffic) with each day's Reach as a number (`reach`, the
 * estimate of its sketch, written by the rollup with it); the sketches themselves only of the days from
 * `sketchesFrom` on (default: every day; null: none), for a union over days: a window build supplies the
 * closed days' union, and a daily chart needs only the numbers.
 */
export function readWorkspaceDays(
  scope: WorkspaceScope,
  window: { from: string; to: string },
  sketchesFrom: string | null = window.from,
): Promise<(CounterRow & { day: string; reach: string })[]> {
  return sqlRows(
    scope,
    `select day::text as day, ${COUNTER_COLUMNS}, reach,
       case when day >= $4::date then reach_sketch end as reach_sketch
     from analytics_reach_daily
     where workspace_id = $1 and day between $2::date and $3::date`,
    [scope.workspaceId, window.from, window.to, sketchesFrom],
  );
}

/**
 * Daily rows per campaign × variant × zone, optionally of one campaign or of some; with `sketches: false`
 * counters only (`reach_sketch` null), for a reader that merges sketches of a few rows later.
 */
export function readDailyRows(
  scope: WorkspaceScope,
  window: { from: string; to: string },
  campaigns?: string | readonly string[],
  options: { sketches?: boolean } = {},
): Promise<DailyRow[]> {
  const filter = campaigns === undefined ? '' : `and campaign_id = ${typeof campaigns === 'string' ? '$4' : 'any($4)'}`;
  const sketch = options.sketches === false ? 'null::bytea as reach_sketch' : 'reach_sketch';
  return sqlRows(
    scope,
    `select day::text as day, campaign_id, variant_id, zone_id, ${COUNTER_COLUMNS}, ${sketch}, converted_sessions,
       converted_value
     from analytics_rollups_daily
     where workspace_id = $1 and day between $2::date and $3::date ${filter}`,
    campaigns === undefined
      ? [scope.workspaceId, window.from, window.to]
      : [scope.workspaceId, window.from, window.to, campaigns],
  );
}

/**
 * Impressions per campaign (or per campaign variant) over the days of `window`, summed in PostgreSQL: what a
 * list section ranks its rows by before it reads the shown ones in full. Per campaign from the campaigns' own
 * day rows (`analytics_campaign_daily`: one narrow row each instead of every variant × zone row of the day).
 */
export function readImpressions(
  scope: WorkspaceScope,
  window: { from: string; to: string },
  per: 'campaign' | 'variant',
): Promise<{ campaign_id: string; variant_id: string; impressions: string }[]> {
  return sqlRows(
    scope,
    per === 'campaign'
      ? `select campaign_id, '' as variant_id, sum(impressions) as impressions
         from analytics_campaign_daily
         where workspace_id = $1 and day between $2::date and $3::date
         group by 1 order by 1`
      : `select campaign_id, variant_id, sum(impressions) as impressions
         from analytics_rollups_daily
         where workspace_id = $1 and day between $2::date and $3::date and campaign_id <> ''
         group by 1, 2 order by 1, 2`,
    [scope.workspaceId, window.from, window.to],
  );
}

/** A campaign or variant a list section names: its name, status, whether it is deleted (and a control). */
export interface SubjectRow {
  kind: 'campaign' | 'variant';
  id: string;
  name: string;
  status: string;
  deleted: boolean;
  is_control: boolean;
}

/**
 * The campaigns and variants a snapshot's list sections show, as rows of the columns they print, with one named
 * statement (not entities: a variant would carry its body, images and channel fields). The workspace is bound
 * explicitly: this read does not pass through the ORM's workspace filter. $1 workspace, $2 campaign ids, $3
 * variant ids.
 */
const SUBJECTS: PreparedStatement = {
  name: 'analytics-subjects',
  text: `select 'campaign' as kind, id, name, status::text as status, deleted_at is not null as deleted,
           false as is_control
         from campaigns where workspace_id = $1 and id = any($2::varchar[])
         union all
         select 'variant', id, name, status::text, deleted_at is not null, is_control
         from variants where workspace_id = $1 and id = any($3::varchar[])`,
};

export async function readSubjects(
  scope: WorkspaceScope,
  campaignIds: readonly string[],
  variantIds: readonly string[],
): Promise<{ campaigns: Map<string, SubjectRow>; variants: Map<string, SubjectRow> }> {
  const rows =
    campaignIds.length || variantIds.length
      ? await runPrepared<SubjectRow>(scope.em, SUBJECTS, [scope.workspaceId, campaignIds, variantIds])
      : [];
  return {
    campaigns: new Map(rows.filter((row) => row.kind === 'campaign').map((row) => [row.id, row])),
    variants: new Map(rows.filter((row) => row.kind === 'variant').map((row) => [row.id, row])),
  };
}

/** Sums tallies into one per parent key (campaign from variants, surface from zones). */
export function absorbBy(tallies: Map<string, Tally>, parent: (key: string) => string): Map<string, Tally> {
  const parents = new Map<string, Tally>();
  for (const [key, tally] of tallies) {
    const id = parent(key);
    let sum = parents.get(id);
    if (!sum) parents.set(id, (sum = new Tally()));
    sum.absorb(tally);
  }
  return parents;
}

/** Sums rows into one tally per key (counters only with `sketch: false`). */
export function tallyBy<Row extends CounterRow>(
  rows: readonly Row[],
  key: (row: Row) => string,
  options: { sketch?: boolean } = {},
): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const row of rows) {
    const id = key(row);
    let tally = tallies.get(id);
    if (!tally) tallies.set(id, (tally = new Tally()));
    tally.add(row, options);
  }
  return tallies;
}

export interface Freshness {
  /** Events received up to this instant are counted; null before the first rollup. */
  dataThrough: string | null;
  /** When the rollup last moved forward. */
  rolledUpAt: string | null;
}

export async function readFreshness(scope: WorkspaceScope): Promise<Freshness> {
  const [row] = await sqlRows<{ received_at: string | null; updated_at: Date }>(
    scope,
    `select case when received_at = '-infinity' then null else received_at end as received_at, updated_at,
       events_total from analytics_rollup_watermarks where name = 'events'`,
  );
  if (!row || row.received_at === null) return { dataThrough: null, rolledUpAt: null };
  return { dataThrough: new Date(row.received_at).toISOString(), rolledUpAt: new Date(row.updated_at).toISOString() };
}

function round(value: number | null, digits = 6): number | null {
  return value === null ? null : Number(value.toFixed(digits));
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
