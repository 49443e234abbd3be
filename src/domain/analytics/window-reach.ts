/**
 * Window builds: the Reach of the long windows (7d, 28d, 90d) without merging every daily sketch.
 *
 * Why: a window's Reach per variant or zone is the union of the daily sketches of its rows. At 10 million
 * events a 90-day snapshot of campaigns, variants and surfaces merged ~25,000 daily sketches (20+ MB) on every
 * call, well over the 200 ms budget (bench/analytics.ts). The windows are always the last N UTC days ending
 * today, so all but today are closed days whose union can be kept ready.
 *
 * A build, per workspace and window length N, holds the union of the daily sketches of the N − 1 closed days
 * up to `through_day` (yesterday when current), per slice: the whole workspace, each campaign variant, each
 * zone. A reader merges each slice's build sketch with today's daily sketches. A HyperLogLog union is the
 * register-wise maximum, so that is *the same sketch* as the union of all N daily sketches — not an
 * approximation of it.
 *
 * Kept current by the rollup, under the same watermark lock as its batches:
 * - each batch also merges its sessions into the builds whose closed days include the event's day (late
 *   events), in the batch's own transaction (`mergeLateIntoWindowBuilds`);
 * - after each pass, a workspace whose builds are not through yesterday is rebuilt from the daily rows
 *   (`refreshWindowBuilds`): once a day per workspace, at the first pass after midnight UTC.
 * A reader that finds no current build (the minute after midnight, a workspace with traffic only today, a
 * clock other than the rollup's) reads the daily sketches instead: slower, same numbers.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkspaceScope } from '../shared/scope.ts';
import { shiftDay, utcDay, type ResolvedWindow } from './analytics-window.ts';
import { ReachSketch } from './reach-sketch.ts';
import {
  mergeSketchesInto,
  query,
  serialiseRollupWriters,
  sketchEntry,
  type SketchEntries,
  type Tx,
} from './rollup-store.ts';
import { sqlRows } from './analytics-reader.ts';

/** Window lengths (days) that have builds; ascending, each a superset of the one before. */
export const BUILT_WINDOW_DAYS = [7, 28, 90] as const;
const LONGEST = BUILT_WINDOW_DAYS[BUILT_WINDOW_DAYS.length - 1]!;

export type WindowSlice = 'workspace' | 'variant' | 'zone';
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
      sketchEntry(entries, [row.workspace_id, days, 'variant', row.campaign_id, row.variant_id, '']).merge(sketch);
      sketchEntry(entries, [row.workspace_id, days, 'zone', '', '', row.zone_id]).merge(sketch);
    }
  }
  await mergeSketchesInto(trx, 'analytics_window_reach', KEY_COLUMNS, entries, { insertMissing: true });
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
  const daily = await query<{
    day: string;
    campaign_id: string;
    variant_id: string;
    zone_id: string;
    reach_sketch: Buffer;
  }>(
    trx,
    `select day::text as day, campaign_id, variant_id, zone_id, reach_sketch from analytics_rollups_daily
     where workspace_id = $1 and day between $2::date and $3::date and campaign_id <> '' and reach_sketch is not null`,
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
  const segmentOf = (day: string) => segments[BUILT_WINDOW_DAYS.findIndex((days) => day >= firstDay(yesterday, days))]!;
  for (const row of daily) {
    const segment = segmentOf(row.day);
    sketchEntry(segment, ['variant', row.campaign_id, row.variant_id, '']).mergeBytes(row.reach_sketch);
    sketchEntry(segment, ['zone', '', '', row.zone_id]).mergeBytes(row.reach_sketch);
  }
  for (const row of workspaceDays)
    sketchEntry(segmentOf(row.day), ['workspace', '', '', '']).mergeBytes(row.reach_sketch);

  const window: SketchEntries = new Map();
  sketchEntry(window, ['workspace', '', '', '']); // present even when no session was seen
  const columns: string[][] = [[], [], [], [], []];
  const sketches: Buffer[] = [];
  for (const [i, days] of BUILT_WINDOW_DAYS.entries()) {
    for (const { key, sketch } of segments[i]!.values()) sketchEntry(window, key).merge(sketch);
    for (const { key, sketch } of window.values()) {
      for (const [c, value] of [String(days), ...key].entries()) columns[c]!.push(value);
      sketches.push(sketch.toBytes());
    }
  }
  await query(trx, `delete from analytics_window_reach where workspace_id = $1`, [workspaceId]);
  await query(
    trx,
    `insert into analytics_window_reach (workspace_id, window_days, slice, campaign_id, variant_id, zone_id, reach_sketch)
     select $1, * from unnest($2::smallint[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::bytea[])`,
    [workspaceId, ...columns, sketches],
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

/** A window's build sketches per slice (variant key `campaignId/variantId`, zone key the zone id). */
export interface WindowBuild {
  workspace: ReachSketch;
  variants: Map<string, ReachSketch>;
  zones: Map<string, ReachSketch>;
}

/**
 * The build of `window` through the day before the window's last day, or null when there is none that is
 * current (the caller then reads the daily sketches). Only the slices asked for are read (none: whether the
 * build is current), and with `campaignIds` only those campaigns' variant sketches.
 */
export async function readWindowBuild(
  scope: WorkspaceScope,
  window: ResolvedWindow,
  slices: readonly WindowSlice[],
  options: { campaignIds?: readonly string[] } = {},
): Promise<WindowBuild | null> {
  if (!(BUILT_WINDOW_DAYS as readonly number[]).includes(window.days)) return null;
  // One statement, so the build's day and its sketches come from the same snapshot of a concurrent rebuild.
  const rows = await sqlRows<{
    through_day: string;
    slice: WindowSlice | null;
    campaign_id: string;
    variant_id: string;
    zone_id: string;
    reach_sketch: Buffer | null;
  }>(
    scope,
    `select b.through_day::text as through_day, r.slice, r.campaign_id, r.variant_id, r.zone_id, r.reach_sketch
     from analytics_window_builds b
     left join analytics_window_reach r on r.workspace_id = b.workspace_id and r.window_days = b.window_days
       and r.slice = any($3::varchar[]) and ($4::varchar[] is null or r.slice <> 'variant' or r.campaign_id = any($4))
     where b.workspace_id = $1 and b.window_days = $2`,
    [scope.workspaceId, window.days, slices, options.campaignIds ?? null],
  );
  if (rows[0]?.through_day !== shiftDay(window.to, -1)) return null;
  const build: WindowBuild = { workspace: new ReachSketch(), variants: new Map(), zones: new Map() };
  for (const row of rows) {
    if (row.slice === 'workspace') build.workspace.mergeBytes(row.reach_sketch);
    else if (row.slice === 'variant') {
      build.variants.set(`${row.campaign_id}/${row.variant_id}`, ReachSketch.fromBytes(row.reach_sketch));
    } else if (row.slice === 'zone') build.zones.set(row.zone_id, ReachSketch.fromBytes(row.reach_sketch));
  }
  return build;
}
