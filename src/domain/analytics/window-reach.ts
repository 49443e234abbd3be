/**
 * Window builds: the Reach of the long windows (7d, 28d, 90d) without merging every daily sketch.
 *
 * Why: a window's Reach per variant or zone is the union of the daily sketches of its rows. At 10 million
 * events a 90-day snapshot of campaigns, variants and surfaces merged ~25,000 daily sketches (20+ MB) on every
 * call, well over the 200 ms budget (bench/analytics.ts). The windows are always the last N UTC days ending
 * today, so all but today are closed days whose union can be kept ready.
 *
 * A build, per workspace and window length N, holds the union of the daily sketches of the N − 1 closed days
 * up to `through_day` (yesterday when current), per slice: the whole workspace, each campaign, each campaign
 * variant, each zone; and for the campaign, variant and zone slices the sums of those days' counters
 * (impressions, clicks, …), so a
 * reader of a 90-day list adds a few hundred build rows to today's rows instead of summing 90 days of daily
 * rows (at 10 million events that sum alone took most of a second of PostgreSQL time per read). A reader
 * merges each slice's build sketch with today's daily sketches, and adds today's counters to the build's. A HyperLogLog union is the
 * register-wise maximum, so that is *the same sketch* as the union of all N daily sketches — not an
 * approximation of it.
 *
 * Kept current by the rollup, under the same watermark lock as its batches:
 * - each batch also merges its sessions and adds its counts into the builds whose closed days include the
 *   event's day (late events), in the batch's own transaction (`mergeLateIntoWindowBuilds`,
 *   `addLateCountersToWindowBuilds`);
 * - after each pass, a workspace whose builds are not through yesterday is rebuilt from the daily rows
 *   (`refreshWindowBuilds`): once a day per workspace, at the first pass after midnight UTC.
 * A reader that finds no current build (the minute after midnight, a workspace with traffic only today, a
 * clock other than the rollup's) reads the daily sketches instead: slower, same numbers.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { WorkspaceScope } from '../shared/scope.ts';
import { shiftDay, utcDay, type ResolvedWindow } from './analytics-window.ts';
import { ReachSketch, SKETCH_REGISTERS } from './reach-sketch.ts';
import {
  mergeSketchesInto,
  query,
  serialiseRollupWriters,
  sketchEntry,
  type SketchEntries,
  type Tx,
} from './rollup-store.ts';
import { sqlRows, type CounterRow } from './analytics-reader.ts';

/** Window lengths (days) that have builds; ascending, each a superset of the one before. */
export const BUILT_WINDOW_DAYS = [7, 28, 90] as const;
const LONGEST = BUILT_WINDOW_DAYS[BUILT_WINDOW_DAYS.length - 1]!;

/**
 * The campaign slice is the union of its variants' (the same sketch and sums as merging them): a campaign list
 * reads one sketch per shown campaign and ranks ~1,000 campaign rows, instead of every variant's.
 */
export type WindowSlice = 'workspace' | 'campaign' | 'variant' | 'zone';
/** Slices keyed by campaign: a reader may ask for the rows, or the sketches, of some campaigns only. */
const CAMPAIGN_SLICES: readonly WindowSlice[] = ['campaign', 'variant'];
const KEY_COLUMNS = ['workspace_id', 'window_days', 'slice', 'campaign_id', 'variant_id', 'zone_id'];

/** The rollup batch's sessions per daily group, as register maxima (see rollups.ts `mergeSketches`). */
export interface BatchRegisters {
  workspace_id: string;
  day: string;
  campaign_id: string;
  variant_id: string;
  zone_id: string;
  registers: number[];
  ranks: number[];
}

/** First closed day of a build of `days` days through `throughDay`: the window's first day. */
function firstDay(throughDay: string, days: number): string {
  return shiftDay(throughDay, -(days - 2));
}

/** Merges a rollup batch's sessions into the builds that already cover their (closed) days. */
export async function mergeLateIntoWindowBuilds(trx: Tx, rows: readonly BatchRegisters[]): Promise<void> {
  const workspaceIds = [...new Set(rows.map((row) => row.workspace_id))];
  const builds = await query<{ workspace_id: string; window_days: number; through_day: string }>(
    trx,
    `select workspace_id, window_days, through_day::text as through_day from analytics_window_builds
     where workspace_id = any($1::varchar[])`,
    [workspaceIds],
  );
  if (builds.length === 0) return;
  const entries: SketchEntries = new Map();
  for (const row of rows) {
    let sketch: ReachSketch | undefined;
    for (const build of builds) {
      if (build.workspace_id !== row.workspace_id) continue;
      if (row.day > build.through_day || row.day < firstDay(build.through_day, build.window_days)) continue;
      if (!sketch) {
        sketch = new ReachSketch();
        for (const [i, register] of row.registers.entries()) sketch.setRegister(register, row.ranks[i]!);
      }
      const days = String(build.window_days);
      sketchEntry(entries, [row.workspace_id, days, 'workspace', '', '', '']).merge(sketch);
      if (row.campaign_id === '') continue;
      sketchEntry(entries, [row.workspace_id, days, 'campaign', row.campaign_id, '', '']).merge(sketch);
      sketchEntry(entries, [row.workspace_id, days, 'variant', row.campaign_id, row.variant_id, '']).merge(sketch);
      sketchEntry(entries, [row.workspace_id, days, 'zone', '', '', row.zone_id]).merge(sketch);
    }
  }
  await mergeSketchesInto(trx, 'analytics_window_reach', KEY_COLUMNS, entries, { insertMissing: true });
}

/** The counters a build keeps per campaign, variant and zone slice: the daily rows' columns of the same names. */
export const BUILD_COUNTERS = [
  'impressions',
  'unattributed_impressions',
  'clicks',
  'conversions',
  'conversion_value',
  'concierge_questions',
  'converted_sessions',
  'converted_value',
] as const;
type BuildCounter = (typeof BUILD_COUNTERS)[number];
type Counters = Record<BuildCounter, number>;
const zeroCounters = (): Counters => Object.fromEntries(BUILD_COUNTERS.map((column) => [column, 0])) as Counters;
function addCounters(into: Counters, from: Partial<Record<BuildCounter, string | number>>): void {
  for (const column of BUILD_COUNTERS) into[column] += Number(from[column] ?? 0);
}

/**
 * Adds what a rollup batch counted on closed days (`rollup_daily_delta`, filled by the batch) to the builds
 * covering those days, per campaign, variant and zone. A slice the build did not have yet gets a row with an empty
 * sketch (the batch's sessions are merged into it by `mergeLateIntoWindowBuilds`).
 */
export async function addLateCountersToWindowBuilds(trx: Tx): Promise<void> {
  await query(
    trx,
    `insert into analytics_window_reach (workspace_id, window_days, slice, campaign_id, variant_id, zone_id, reach_sketch,
       ${BUILD_COUNTERS.join(', ')})
     select d.workspace_id, b.window_days, s.slice,
       case when s.slice in ('campaign', 'variant') then d.campaign_id else '' end,
       case when s.slice = 'variant' then d.variant_id else '' end,
       case when s.slice = 'zone' then d.zone_id else '' end,
       $1::bytea, ${BUILD_COUNTERS.map((column) => `sum(d.${column})`).join(', ')}
     from rollup_daily_delta d
     join analytics_window_builds b on b.workspace_id = d.workspace_id
       and d.day between b.through_day - (b.window_days - 2) and b.through_day
     cross join (values ('campaign'), ('variant'), ('zone')) as s(slice)
     group by 1, 2, 3, 4, 5, 6
     on conflict (workspace_id, window_days, slice, campaign_id, variant_id, zone_id) do update set
       ${BUILD_COUNTERS.map((column) => `${column} = analytics_window_reach.${column} + excluded.${column}`).join(', ')}`,
    [new ReachSketch().toBytes()],
  );
}

/**
 * Rebuilds the window builds of every workspace with traffic on the closed days of the longest window whose
 * builds are not through yesterday, and drops builds of workspaces without such traffic. Returns how many
 * builds were (re)built.
 */
export async function refreshWindowBuilds(orm: MikroORM, options: { now?: Date } = {}): Promise<number> {
  const today = utcDay(options.now ?? new Date());
  const yesterday = shiftDay(today, -1);
  const connection = orm.em.getConnection();
  const stale = await connection.execute<{ workspace_id: string }[]>(
    `select workspace_id from analytics_reach_daily where day between ?::date and ?::date
     except
     select workspace_id from analytics_window_builds where through_day = ?::date
     group by workspace_id having count(*) = ?`,
    [firstDay(yesterday, LONGEST), yesterday, yesterday, BUILT_WINDOW_DAYS.length],
  );
  let built = 0;
  for (const { workspace_id: workspaceId } of stale) {
    await connection.transactional(async (tx) => {
      built += await rebuildWorkspace(tx as unknown as Tx, workspaceId, today);
    });
  }
  // Builds left behind (no traffic on those days any more) would only ever be stale: readers skip them anyway.
  await connection.execute(
    `with gone as (delete from analytics_window_builds where through_day < ?::date returning workspace_id, window_days)
     delete from analytics_window_reach r using gone
     where r.workspace_id = gone.workspace_id and r.window_days = gone.window_days`,
    [yesterday],
  );
  return built;
}

async function rebuildWorkspace(trx: Tx, workspaceId: string, today: string): Promise<number> {
  await serialiseRollupWriters(trx);
  const yesterday = shiftDay(today, -1);
  const from = firstDay(yesterday, LONGEST);
  const daily = await query<
    { day: string; campaign_id: string; variant_id: string; zone_id: string; reach_sketch: Buffer | null } & Record<
      BuildCounter,
      string
    >
  >(
    trx,
    `select day::text as day, campaign_id, variant_id, zone_id, reach_sketch, ${BUILD_COUNTERS.join(', ')}
     from analytics_rollups_daily
     where workspace_id = $1 and day between $2::date and $3::date and campaign_id <> ''`,
    [workspaceId, from, yesterday],
  );
  const workspaceDays = await query<{ day: string; reach_sketch: Buffer }>(
    trx,
    `select day::text as day, reach_sketch from analytics_reach_daily
     where workspace_id = $1 and day between $2::date and $3::date and reach_sketch is not null`,
    [workspaceId, from, yesterday],
  );
  // Each daily sketch is merged once, into the segment of the shortest window that holds its day; a window is
  // then the union of its own segment and every shorter window's. Keys: slice, campaign, variant, zone.
  const segments = BUILT_WINDOW_DAYS.map((): SketchEntries => new Map());
  const segmentCounters = BUILT_WINDOW_DAYS.map(() => new Map<string, Counters>());
  const segmentOf = (day: string) => BUILT_WINDOW_DAYS.findIndex((days) => day >= firstDay(yesterday, days));
  const countersOf = (counters: Map<string, Counters>, id: string) => {
    let entry = counters.get(id);
    if (!entry) counters.set(id, (entry = zeroCounters()));
    return entry;
  };
  for (const row of daily) {
    const i = segmentOf(row.day);
    for (const key of [
      ['campaign', row.campaign_id, '', ''],
      ['variant', row.campaign_id, row.variant_id, ''],
      ['zone', '', '', row.zone_id],
    ]) {
      const sketch = sketchEntry(segments[i]!, key);
      if (row.reach_sketch) sketch.mergeBytes(row.reach_sketch);
      addCounters(countersOf(segmentCounters[i]!, key.join('\u0000')), row);
    }
  }
  for (const row of workspaceDays)
    sketchEntry(segments[segmentOf(row.day)]!, ['workspace', '', '', '']).mergeBytes(row.reach_sketch);

  const window: SketchEntries = new Map();
  const windowCounters = new Map<string, Counters>();
  sketchEntry(window, ['workspace', '', '', '']); // present even when no session was seen
  const columns: string[][] = [[], [], [], [], []];
  const sketches: Buffer[] = [];
  const counterColumns = BUILD_COUNTERS.map((): number[] => []);
  for (const [i, days] of BUILT_WINDOW_DAYS.entries()) {
    for (const { key, sketch } of segments[i]!.values()) sketchEntry(window, key).merge(sketch);
    for (const [id, counters] of segmentCounters[i]!) addCounters(countersOf(windowCounters, id), counters);
    for (const [id, { key, sketch }] of window) {
      for (const [c, value] of [String(days), ...key].entries()) columns[c]!.push(value);
      sketches.push(sketch.toBytes());
      const counters = windowCounters.get(id) ?? zeroCounters();
      for (const [c, column] of BUILD_COUNTERS.entries()) counterColumns[c]!.push(counters[column]);
    }
  }
  await query(trx, `delete from analytics_window_reach where workspace_id = $1`, [workspaceId]);
  await query(
    trx,
    `insert into analytics_window_reach (workspace_id, window_days, slice, campaign_id, variant_id, zone_id, reach_sketch,
       ${BUILD_COUNTERS.join(', ')})
     select $1, * from unnest($2::smallint[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::bytea[],
       ${BUILD_COUNTERS.map((column, c) => `$${8 + c}::${column.endsWith('value') ? 'numeric' : 'bigint'}[]`).join(', ')})`,
    [workspaceId, ...columns, sketches, ...counterColumns],
  );
  await query(
    trx,
    `insert into analytics_window_builds (workspace_id, window_days, through_day, built_at)
     select $1, days, $3::date, now() from unnest($2::smallint[]) as days
     on conflict (workspace_id, window_days) do update set through_day = excluded.through_day, built_at = now()`,
    [workspaceId, [...BUILT_WINDOW_DAYS], yesterday],
  );
  return BUILT_WINDOW_DAYS.length;
}

/**
 * A window's build per slice: sketches (campaign key the campaign id, variant key `campaignId/variantId`, zone
 * key the zone id) and counters.
 */
export interface WindowBuild {
  workspace: ReachSketch;
  campaigns: Map<string, ReachSketch>;
  variants: Map<string, ReachSketch>;
  zones: Map<string, ReachSketch>;
  /** The closed days' counters per campaign, variant and zone, as counter rows (`Tally.add` reads them). */
  campaignCounters: Map<string, CounterRow>;
  variantCounters: Map<string, CounterRow>;
  zoneCounters: Map<string, CounterRow>;
}

export interface WindowBuildReadOptions {
  /** The campaign and variant slices' sketches only of these campaigns (of every campaign when omitted). */
  sketchesOf?: readonly string[];
  /** The campaign and variant slices' rows only of these campaigns (of every campaign when omitted). */
  rowsOf?: readonly string[];
}

/** A build sketch already read, with the version of the row it was read from. */
interface KeptSketch {
  slice: WindowSlice;
  campaignId: string;
  /** `through_day/xmin` of the row: a rebuild, or a late event merged in, gives the row another. */
  version: string;
  /** Never changed once kept: a reader gets a copy. */
  registers: Uint8Array;
}

/**
 * Build sketches already read, per build (workspace × window) and slice row. Why: every view of a long window
 * reads the workspace's sketch and one per shown campaign, 16 KB each sent as hex text, and they are the same
 * on every view until the build changes; sending them was the largest part of the analytics page's database
 * time. A sketch is kept with its row's `xmin`, which changes whenever the row does (a late event merged in, a
 * rebuild writing it anew), and the read names the versions it holds: PostgreSQL sends the sketch of every row
 * whose version is another. So a kept sketch is used only while it is the row's current one, and the numbers
 * are exactly those of reading it. Per process, bounded by the registers' bytes.
 */
const keptBuilds = new LRUCache<string, Map<string, KeptSketch>>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (sketches) => Math.max(1, sketches.size) * SKETCH_REGISTERS,
});

/** How many wanted build sketches were sent by PostgreSQL, and how many were kept ones (for the tests). */
export const keptSketchCounts = { sent: 0, kept: 0 };

/**
 * The build of `window` through the day before the window's last day, or null when there is none that is
 * current (the caller then reads the daily rows). Only the slices asked for are read (none: whether the build
 * is current), and of the campaign and variant slices the rows and sketches `options` asks for.
 */
export async function readWindowBuild(
  scope: WorkspaceScope,
  window: ResolvedWindow,
  slices: readonly WindowSlice[],
  options: WindowBuildReadOptions = {},
): Promise<WindowBuild | null> {
  if (!(BUILT_WINDOW_DAYS as readonly number[]).includes(window.days)) return null;
  const wantsSketch = (slice: WindowSlice, campaignId: string) =>
    !CAMPAIGN_SLICES.includes(slice) || !options.sketchesOf || options.sketchesOf.includes(campaignId);
  // The kept sketches this read wants, taken now (another request may evict them meanwhile), named to
  // PostgreSQL by `slice/campaign/variant/zone/through_day/xmin` so that it does not send them again.
  const buildKey = `${scope.workspaceId}/${window.days}`;
  const kept = keptBuilds.get(buildKey) ?? new Map<string, KeptSketch>();
  const held = new Map<string, KeptSketch>();
  for (const [rowKey, sketch] of kept) {
    if (slices.includes(sketch.slice) && wantsSketch(sketch.slice, sketch.campaignId)) held.set(rowKey, sketch);
  }
  // One statement, so the build's day and its rows come from the same snapshot of a concurrent rebuild.
  const rows = await sqlRows<
    {
      through_day: string;
      slice: WindowSlice | null;
      campaign_id: string;
      variant_id: string;
      zone_id: string;
      version: string;
      reach_sketch: Buffer | null;
    } & Record<BuildCounter, string>
  >(
    scope,
    `select b.through_day::text as through_day, r.slice, r.campaign_id, r.variant_id, r.zone_id,
       b.through_day::text || '/' || r.xmin::text as version,
       case when (r.slice <> all($6::varchar[]) or $4::varchar[] is null or r.campaign_id = any($4))
           and concat_ws('/', r.slice, r.campaign_id, r.variant_id, r.zone_id, b.through_day, r.xmin) <> all($7::text[])
         then r.reach_sketch end as reach_sketch, ${BUILD_COUNTERS.map((column) => `r.${column}`).join(', ')}
     from analytics_window_builds b
     left join analytics_window_reach r on r.workspace_id = b.workspace_id and r.window_days = b.window_days
       and r.slice = any($3::varchar[])
       and (r.slice <> all($6::varchar[]) or $5::varchar[] is null or r.campaign_id = any($5))
     where b.workspace_id = $1 and b.window_days = $2`,
    [
      scope.workspaceId,
      window.days,
      slices,
      options.sketchesOf ?? null,
      options.rowsOf ?? null,
      CAMPAIGN_SLICES,
      [...held].map(([rowKey, sketch]) => `${rowKey}/${sketch.version}`),
    ],
  );
  if (rows[0]?.through_day !== shiftDay(window.to, -1)) return null;
  let keptMore = false;
  /** The row's sketch: as sent (and kept from now on), or the kept one PostgreSQL did not send; null when not wanted. */
  const sketchOf = (row: (typeof rows)[number]): ReachSketch | null => {
    const rowKey = `${row.slice}/${row.campaign_id}/${row.variant_id}/${row.zone_id}`;
    if (row.reach_sketch) {
      const sketch = ReachSketch.fromBytes(row.reach_sketch);
      const slice = row.slice!;
      kept.set(rowKey, {
        slice,
        campaignId: row.campaign_id,
        version: row.version,
        registers: sketch.registers.slice(),
      });
      keptMore = true;
      keptSketchCounts.sent++;
      return sketch;
    }
    const mine = held.get(rowKey);
    if (mine?.version === row.version) {
      keptSketchCounts.kept++;
      return new ReachSketch(mine.registers.slice());
    }
    if (wantsSketch(row.slice!, row.campaign_id))
      throw new Error(`window build sketch ${rowKey} was neither sent nor kept`);
    return null;
  };
  const build: WindowBuild = {
    workspace: new ReachSketch(),
    campaigns: new Map(),
    variants: new Map(),
    zones: new Map(),
    campaignCounters: new Map(),
    variantCounters: new Map(),
    zoneCounters: new Map(),
  };
  const counterRow = (row: Record<BuildCounter, string>): CounterRow => ({ ...row, reach_sketch: null });
  for (const row of rows) {
    if (row.slice === null) continue; // a build without a row of the slices asked for
    const sketch = sketchOf(row);
    if (row.slice === 'workspace') {
      if (sketch) build.workspace.merge(sketch);
    } else if (row.slice === 'campaign') {
      build.campaignCounters.set(row.campaign_id, counterRow(row));
      if (sketch) build.campaigns.set(row.campaign_id, sketch);
    } else if (row.slice === 'variant') {
      const key = `${row.campaign_id}/${row.variant_id}`;
      build.variantCounters.set(key, counterRow(row));
      if (sketch) build.variants.set(key, sketch);
    } else if (row.slice === 'zone') {
      build.zoneCounters.set(row.zone_id, counterRow(row));
      build.zones.set(row.zone_id, sketch ?? new ReachSketch());
    }
  }
  // Set again when it grew: the cache weighs a build by its sketches when it is set.
  if (keptMore) keptBuilds.set(buildKey, kept);
  return build;
}
