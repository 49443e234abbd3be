/**
 * `query_analytics`: snapshot, A/B tests, the CVG dashboard and insights, all read from the rollups.
 *
 * Definitions (also in docs/analytics.md, "Definitions"):
 * - **Impressions**: raw deliveries of a variant (every render in a zone, every markdown read).
 * - **Reach**: distinct sessions with at least one impression in the window (HyperLogLog union of the daily
 *   sketches, ±0.8 %), never above the impressions that had a session.
 * - **Conversions**: conversion events received; **convertedSessions**: sessions whose first attributed
 *   conversion (a goal of the campaign, after the session's first exposure) fell in the window.
 * - Experiments use exact session counts since the experiment started, not the window (see experiments.ts).
 */
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Zone } from '../surfaces/surface.entity.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { MAX_PAGE_SIZE } from '../shared/pagination.ts';
import { sharedRead } from '../shared/request-reads.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import {
  absorbBy,
  readDailyRows,
  readImpressions,
  readSubjects,
  readFreshness,
  readWorkspaceDays,
  sqlRows,
  Tally,
  tallyBy,
  type CounterRow,
  type DailyRow,
  type Freshness,
  type Metrics,
} from './analytics-reader.ts';
import type { ReachSketch } from './reach-sketch.ts';
import { resolveWindow, SNAPSHOT_SECTIONS, type ResolvedWindow, type SnapshotSection } from './analytics-window.ts';
import { readWindowBuild, type WindowBuild, type WindowSlice } from './window-reach.ts';
import { createExperimentsService, topPerformer, type ExperimentPage, type ExperimentView } from './experiments.ts';
import { conciergeGapsInsight, experimentInsight, STALL_DAYS, stalledInsight, type Insight } from './insight-rules.ts';
import { channelsSection, compareVariantsAcrossChannels, type ChannelsSection } from '../channels/channel-reports.ts';

const DAY_MS = 86_400_000;
const DEFAULT_SECTION_ROWS = 20;
const TOP_QUESTIONS = 10;

export interface SnapshotInput {
  window?: string;
  sections?: readonly string[];
  campaignId?: string;
  /** Rows per list section (campaigns, variants, surfaces), highest impressions first. */
  limit?: number;
}

export interface Snapshot {
  window: ResolvedWindow;
  campaignId: string | null;
  freshness: Freshness;
  sections: SnapshotSection[];
  summary?: Metrics;
  campaigns?: { campaignId: string; name: string; status: string; metrics: Metrics }[];
  variants?: {
    campaignId: string;
    variantId: string;
    name: string;
    isControl: boolean;
    status: string;
    metrics: Metrics;
  }[];
  surfaces?: {
    surfaceId: string | null;
    name: string;
    metrics: Metrics;
    zones: { zoneId: string; key: string; name: string; metrics: Metrics }[];
  }[];
  timeseries?: ({ day: string } & Metrics)[];
  concierge?: {
    questions: number;
    unanswered: number;
    answerRate: number | null;
    topUnanswered: { query: string; count: number; lastAskedAt: string }[];
  };
  /** Social channels: the networks' engagement and the visits and conversions their posts' links brought. */
  channels?: ChannelsSection;
  /** Rows left out of list sections by `limit`. */
  truncated?: Partial<Record<'campaigns' | 'variants' | 'surfaces', number>>;
}

function parseSections(sections: readonly string[] | undefined): SnapshotSection[] {
  const chosen = [...new Set(sections?.length ? sections : ['summary'])];
  const unknown = chosen.filter((section) => !SNAPSHOT_SECTIONS.includes(section as SnapshotSection));
  if (unknown.length) {
    throw new ValidationError(`Unknown section(s) ${unknown.join(', ')}: use ${SNAPSHOT_SECTIONS.join(', ')}`, {
      issues: [{ field: 'sections', message: `unknown: ${unknown.join(', ')}` }],
    });
  }
  return chosen as SnapshotSection[];
}

/** Adds a window build's counters (the closed days') to the tallies of the same slices (which hold today's). */
function addBuildCounters(tallies: Map<string, Tally>, counters: Map<string, CounterRow>): void {
  for (const [key, row] of counters) {
    let tally = tallies.get(key);
    if (!tally) tallies.set(key, (tally = new Tally()));
    tally.add(row, { sketch: false });
  }
}

/** Adds a window build's sketches to the tallies of the same slices (which hold today's sketches). */
function mergeBuild(tallies: Map<string, Tally>, sketches: Map<string, ReachSketch>): void {
  for (const [key, sketch] of sketches) {
    let tally = tallies.get(key);
    // Every build slice comes from a daily row inside the window, so its counters are there; kept defensive.
    if (!tally) tallies.set(key, (tally = new Tally()));
    tally.sketch.merge(sketch);
  }
}

/** Impressions per key (`keyOf` a row), in the order keys first appear. */
function impressionsBy<Row extends { impressions: string }>(
  rows: readonly Row[],
  keyOf: (row: Row) => string,
): Map<string, number> {
  const impressions = new Map<string, number>();
  for (const row of rows) {
    const key = keyOf(row);
    impressions.set(key, (impressions.get(key) ?? 0) + Number(row.impressions));
  }
  return impressions;
}

/** Adds a window build's closed-day impressions to the totals of the same keys (today's, from impressionsBy). */
function addImpressions(
  totals: Map<string, number>,
  counters: ReadonlyMap<string, Pick<CounterRow, 'impressions'>>,
): void {
  for (const [key, row] of counters) totals.set(key, (totals.get(key) ?? 0) + Number(row.impressions));
}

/**
 * The keys of the rows a list section can show: the `limit` with the most impressions, and every row with as
 * many impressions as the last of them (Reach, not known yet, breaks those ties in `topRows`). In the map's
 * order, so rows equal in both keep the order they had.
 */
function rowsToShow(impressions: Map<string, number>, limit: number): string[] {
  if (impressions.size <= limit) return [...impressions.keys()];
  const cut = [...impressions.values()].sort((a, b) => b - a)[limit - 1]!;
  return [...impressions].filter(([, count]) => count >= cut).map(([key]) => key);
}

/** What the list sections' shown rows are counted from: daily rows, and the build's rows of the closed days. */
interface ShownSources {
  /** Daily rows (counters and sketches) of the shown campaigns: today's with a build, else the window's. */
  rows: readonly DailyRow[];
  /** The build's campaign and variant rows (counters and sketches) of the shown campaigns; null without one. */
  build: WindowBuild | null;
}

/**
 * The rows the shown rows of the campaign and variant sections are counted from, of `campaignIds` only. With
 * a window build, today's daily rows (`rows` when they carry sketches, else read now) and the build's rows of
 * those campaigns; without one, `rows` (the whole window's, with sketches). Should the build have moved on
 * since the ranking was read (a rebuild at midnight), every daily row of those campaigns over the window is
 * read instead.
 */
async function shownSources(
  scope: WorkspaceScope,
  window: ResolvedWindow,
  built: boolean,
  rows: readonly DailyRow[],
  rowsHaveSketches: boolean,
  campaignIds: readonly string[],
  slices: readonly WindowSlice[],
): Promise<ShownSources> {
  if (!campaignIds.length || !slices.length) return { rows: [], build: null };
  if (!built) return { rows, build: null };
  const only = { sketchesOf: campaignIds, rowsOf: campaignIds };
  const [build, todays] = await Promise.all([
    readWindowBuild(scope, window, slices, only),
    rowsHaveSketches ? rows : readDailyRows(scope, { from: window.to, to: window.to }, campaignIds),
  ]);
  return build ? { rows: todays, build } : { rows: await readDailyRows(scope, window, campaignIds), build: null };
}

/**
 * A tally per shown key (`keyOf` a daily row): the counters and sketches of its daily rows in `sources` and,
 * with a build, the build's counters and sketch of the key.
 */
function tallyShown(
  sources: ShownSources,
  keys: readonly string[],
  keyOf: (row: DailyRow) => string,
  built: { counters: Map<string, CounterRow>; sketches: Map<string, ReachSketch> } | null,
): Map<string, Tally> {
  const tallies = new Map(keys.map((key) => [key, new Tally()]));
  // The build's sketches first: each becomes its tally's sketch (read for this snapshot alone), and today's
  // rows are merged into it, instead of copying it into a new one.
  for (const [key, sketch] of built?.sketches ?? []) tallies.get(key)?.takeSketch(sketch);
  for (const [key, row] of built?.counters ?? []) tallies.get(key)?.add(row, { sketch: false });
  for (const row of sources.rows) tallies.get(keyOf(row))?.add(row);
  return tallies;
}

function topRows<T extends { metrics: Metrics }>(rows: T[], limit: number): { rows: T[]; left: number } {
  rows.sort((a, b) => b.metrics.impressions - a.metrics.impressions || b.metrics.reach - a.metrics.reach);
  return { rows: rows.slice(0, limit), left: Math.max(0, rows.length - limit) };
}

export function createAnalyticsQueryService(deps: { now?: () => Date } = {}) {
  const now = deps.now ?? (() => new Date());
  const experimentsService = createExperimentsService({ now });

  async function assertCampaign(scope: WorkspaceScope, campaignId: string): Promise<void> {
    const found = await scope.em.count(Campaign, { id: campaignId });
    if (!found) throw new NotFoundError('Campaign', campaignId);
  }

  /**
   * The concierge's questions of a window: the snapshot's section and the insights' gaps read the same, once
   * per request that shares reads (request-reads.ts).
   */
  function concierge(scope: WorkspaceScope, window: ResolvedWindow): Promise<NonNullable<Snapshot['concierge']>> {
    const key = JSON.stringify(['concierge', scope.workspaceId, window.from, window.to]);
    return sharedRead(key, () => readConcierge(scope, window));
  }

  /** Questions per day and question are rolled up (rollups.ts), like every other section's numbers. */
  async function readConcierge(
    scope: WorkspaceScope,
    window: ResolvedWindow,
  ): Promise<NonNullable<Snapshot['concierge']>> {
    const [totals] = await sqlRows<{ questions: string; unanswered: string }>(
      scope,
      `select coalesce(sum(asked), 0) as questions, coalesce(sum(unanswered), 0) as unanswered
       from analytics_concierge_daily where workspace_id = $1 and day between $2::date and $3::date`,
      [scope.workspaceId, window.from, window.to],
    );
    const top = await sqlRows<{ query: string; count: string; last_asked_at: Date }>(
      scope,
      `select min(question) as query, sum(unanswered) as count, max(last_unanswered_at) as last_asked_at
       from analytics_concierge_daily
       where workspace_id = $1 and day between $2::date and $3::date and unanswered > 0
       group by question_key order by sum(unanswered) desc, max(last_unanswered_at) desc limit $4`,
      [scope.workspaceId, window.from, window.to, TOP_QUESTIONS],
    );
    const questions = Number(totals?.questions ?? 0);
    const unanswered = Number(totals?.unanswered ?? 0);
    return {
      questions,
      unanswered,
      answerRate: questions ? Number(((questions - unanswered) / questions).toFixed(4)) : null,
      topUnanswered: top.map((row) => ({
        query: row.query,
        count: Number(row.count),
        lastAskedAt: new Date(row.last_asked_at).toISOString(),
      })),
    };
  }

  async function snapshot(scope: WorkspaceScope, input: SnapshotInput = {}): Promise<Snapshot> {
    const window = resolveWindow(input.window, now());
    const sections = parseSections(input.sections);
    const limit = Math.min(Math.max(1, input.limit ?? DEFAULT_SECTION_ROWS), MAX_PAGE_SIZE);
    if (input.campaignId) await assertCampaign(scope, input.campaignId);
    const wants = (section: SnapshotSection) => sections.includes(section);
    const needsDaily = input.campaignId !== undefined || wants('campaigns') || wants('variants') || wants('surfaces');
    const needsWorkspaceDays = !input.campaignId && (wants('summary') || wants('timeseries'));
    // A workspace's long windows take their Reach from the window build plus today's sketches
    // (window-reach.ts); a campaign's snapshot, the 1d window or a missing build merge every daily sketch.
    // The workspace's daily chart reads each day's stored estimate and no sketch at all.
    const summaryFromBuild = wants('summary') && !input.campaignId;
    const [freshness, build] = await Promise.all([
      readFreshness(scope),
      input.campaignId || !(summaryFromBuild || needsDaily)
        ? null
        : // The campaigns' and variants' counters; their sketches are read later, for the rows shown only.
          readWindowBuild(
            scope,
            window,
            [
              ...(summaryFromBuild ? (['workspace'] as const) : []),
              ...(wants('campaigns') ? (['campaign'] as const) : []),
              ...(wants('variants') ? (['variant'] as const) : []),
              ...(wants('surfaces') ? (['zone'] as const) : []),
            ],
            { sketchesOf: [] },
          ),
    ]);
    // With a build, the daily rows are today's only: the build holds the closed days (window-reach.ts). Their
    // sketches (16 KB a row, a few thousand rows on a busy day) only when every zone's Reach is wanted; the
    // list sections read today's sketches of the rows they show (shownSources).
    const dailySketches = !build || wants('surfaces');
    // With a build and no zones wanted, the list sections rank by today's impressions per campaign (or variant),
    // summed in PostgreSQL: a few hundred rows instead of every row of the day (thousands, 13 columns each).
    const rankFromSums = build !== null && !wants('surfaces');
    const [daily, workspaceDays, todaysImpressions] = await Promise.all([
      !needsDaily || rankFromSums
        ? []
        : build
          ? readDailyRows(scope, { from: window.to, to: window.to }, undefined, { sketches: dailySketches })
          : readDailyRows(scope, window, input.campaignId),
      needsWorkspaceDays
        ? readWorkspaceDays(scope, window, !wants('summary') ? null : build ? window.to : window.from)
        : Promise.resolve([]),
      rankFromSums && (wants('campaigns') || wants('variants'))
        ? readImpressions(scope, { from: window.to, to: window.to }, wants('variants') ? 'variant' : 'campaign')
        : null,
    ]);
    const result: Snapshot = { window, campaignId: input.campaignId ?? null, freshness, sections };
    const truncated: NonNullable<Snapshot['truncated']> = {};

    if (wants('summary')) {
      const tally = new Tally();
      for (const row of input.campaignId ? daily : workspaceDays) tally.add(row);
      if (build && summaryFromBuild) tally.sketch.merge(build.workspace);
      result.summary = tally.metrics();
    }
    if (wants('timeseries')) {
      // A campaign's days merge its rows' sketches; a workspace day has one row, whose Reach is stored.
      const byDay = input.campaignId
        ? tallyBy(daily, (row) => row.day)
        : tallyBy(workspaceDays, (row) => row.day, { sketch: false });
      const storedReach = new Map(workspaceDays.map((row) => [row.day, Number(row.reach)]));
      const start = Date.parse(`${window.from}T00:00:00Z`);
      result.timeseries = Array.from({ length: window.days }, (_, i) => {
        const day = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
        const tally = byDay.get(day) ?? new Tally();
        return { day, ...tally.metrics(input.campaignId ? undefined : (storedReach.get(day) ?? 0)) };
      });
    }
    if (wants('campaigns') || wants('variants')) {
      const campaignRows = daily.filter((row) => row.campaign_id !== '');
      const variantKey = (row: { campaign_id: string; variant_id: string }) => `${row.campaign_id}/${row.variant_id}`;
      const campaignKey = (row: { campaign_id: string }) => row.campaign_id;
      const campaignOfKey = (key: string) => key.slice(0, key.indexOf('/'));
      // Ranked by impressions first (today's, or the window's daily rows, plus the build's closed days); then the
      // shown rows are counted in full and get their Reach, and only those: merging sketches is the costly part.
      const ranked = todaysImpressions ?? campaignRows;
      const campaignImpressions = wants('campaigns') ? impressionsBy(ranked, campaignKey) : new Map<string, number>();
      const variantImpressions = wants('variants') ? impressionsBy(ranked, variantKey) : new Map<string, number>();
      if (build) {
        addImpressions(campaignImpressions, build.campaignCounters);
        addImpressions(variantImpressions, build.variantCounters);
      }
      const shownCampaigns = wants('campaigns') ? rowsToShow(campaignImpressions, limit) : [];
      const shownVariants = wants('variants') ? rowsToShow(variantImpressions, limit) : [];
      const ids = [...new Set([...shownCampaigns, ...shownVariants.map(campaignOfKey)])];
      const variantIds = shownVariants.map((key) => key.slice(key.indexOf('/') + 1));
      const [sources, subjects] = await Promise.all([
        shownSources(scope, window, build !== null, campaignRows, dailySketches, ids, [
          ...(shownCampaigns.length ? (['campaign'] as const) : []),
          ...(shownVariants.length ? (['variant'] as const) : []),
        ]),
        readSubjects(scope, ids, variantIds),
      ]);
      const built = sources.build;
      const byCampaign = tallyShown(
        sources,
        shownCampaigns,
        campaignKey,
        built && { counters: built.campaignCounters, sketches: built.campaigns },
      );
      const byVariant = tallyShown(
        sources,
        shownVariants,
        variantKey,
        built && { counters: built.variantCounters, sketches: built.variants },
      );
      if (wants('campaigns')) {
        const rows = shownCampaigns.map((campaignId) => ({
          campaignId,
          name: subjects.campaigns.get(campaignId)?.name ?? '(unknown campaign)',
          status: subjects.campaigns.get(campaignId)?.deleted
            ? 'deleted'
            : (subjects.campaigns.get(campaignId)?.status ?? 'unknown'),
          metrics: byCampaign.get(campaignId)!.metrics(),
        }));
        result.campaigns = topRows(rows, limit).rows;
        if (campaignImpressions.size > limit) truncated.campaigns = campaignImpressions.size - limit;
      }
      if (wants('variants')) {
        const rows = shownVariants.map((key) => {
          const [campaignId, variantId] = key.split('/') as [string, string];
          const variant = subjects.variants.get(variantId);
          return {
            campaignId,
            variantId,
            name: variant?.name ?? '(unknown variant)',
            isControl: variant?.is_control ?? false,
            status: variant?.deleted ? 'deleted' : (variant?.status ?? 'unknown'),
            metrics: byVariant.get(key)!.metrics(),
          };
        });
        result.variants = topRows(rows, limit).rows;
        if (variantImpressions.size > limit) truncated.variants = variantImpressions.size - limit;
      }
    }
    if (wants('surfaces')) {
      const impressionRows = daily.filter((row) => row.campaign_id !== '');
      // Zones first ('' = no zone), then each surface as the union of its zones.
      const byZone = tallyBy(impressionRows, (row) => row.zone_id);
      if (build) addBuildCounters(byZone, build.zoneCounters);
      if (build) mergeBuild(byZone, build.zones);
      const zoneIds = [...byZone.keys()].filter((id) => id !== '');
      const zones = zoneIds.length
        ? await scope.em.find(Zone, { id: { $in: zoneIds } }, { populate: ['surface'] })
        : [];
      const zoneOf = new Map(zones.map((zone) => [zone.id, zone]));
      const surfaceKey = (zoneId: string) => zoneOf.get(zoneId)?.surface.id ?? '';
      const bySurface = absorbBy(byZone, surfaceKey);
      const rows = [...bySurface].map(([surfaceId, tally]) => {
        const surface = zones.find((zone) => zone.surface.id === surfaceId)?.surface.getEntity();
        return {
          surfaceId: surfaceId || null,
          name: surfaceId ? (surface?.name ?? '(deleted surface)') : 'Campaign and product pages (no zone)',
          metrics: tally.metrics(),
          zones: [...byZone]
            .filter(([zoneId]) => zoneId !== '' && surfaceKey(zoneId) === surfaceId && surfaceId !== '')
            .map(([zoneId, zoneTally]) => ({
              zoneId,
              key: zoneOf.get(zoneId)?.key ?? '',
              name: zoneOf.get(zoneId)?.name ?? '(deleted zone)',
              metrics: zoneTally.metrics(),
            }))
            .sort((a, b) => b.metrics.impressions - a.metrics.impressions),
        };
      });
      const top = topRows(rows, limit);
      result.surfaces = top.rows;
      if (top.left) truncated.surfaces = top.left;
    }
    if (wants('concierge')) result.concierge = await concierge(scope, window);
    if (wants('channels'))
      result.channels = await channelsSection(scope, window, { campaignId: input.campaignId, limit });
    if (Object.keys(truncated).length) result.truncated = truncated;
    return result;
  }

  /** At most one insight per campaign (the most useful), plus one for the workspace's concierge gaps. */
  async function insights(
    scope: WorkspaceScope,
    input: { window?: string; campaignId?: string; cursor?: string; limit?: number } = {},
  ): Promise<{ window: ResolvedWindow; insights: Insight[]; nextCursor: string | null }> {
    const window = resolveWindow(input.window, now());
    const page = await experimentsService.experiments(scope, input);
    const stallWindow = resolveWindow(`${STALL_DAYS}d`, now());
    // Of the page's campaigns only: the rules read no other (a workspace has a thousand).
    const pageCampaigns = [...page.experiments, ...page.notExperiments].map((campaign) => campaign.campaignId);
    const recent = await sqlRows<{ campaign_id: string; impressions: string }>(
      scope,
      `select campaign_id, sum(impressions) as impressions from analytics_campaign_daily
       where workspace_id = $1 and day between $2::date and $3::date and campaign_id = any($4::varchar[])
       group by campaign_id`,
      [scope.workspaceId, stallWindow.from, stallWindow.to, pageCampaigns],
    );
    const recentImpressions = new Map(recent.map((row) => [row.campaign_id, Number(row.impressions)]));
    const found: Insight[] = [];
    for (const experiment of page.experiments) {
      const insight = experimentInsight(experiment, recentImpressions.get(experiment.campaignId) ?? 0);
      if (insight) found.push(insight);
    }
    for (const single of page.notExperiments) {
      if (single.campaignStatus !== 'published') continue;
      if ((recentImpressions.get(single.campaignId) ?? 0) > 0) continue;
      found.push(stalledInsight(single.campaignId, single.campaignName));
    }
    if (!input.campaignId && !input.cursor) {
      const gaps = await concierge(scope, window);
      if (gaps.unanswered > 0) found.push(conciergeGapsInsight(gaps, window.window));
    }
    const rank = { high: 0, medium: 1, low: 2 } as const;
    found.sort((a, b) => rank[a.severity] - rank[b.severity]);
    return { window, insights: found, nextCursor: page.nextCursor };
  }

  return {
    snapshot,
    insights,
    experiments: experimentsService.experiments,
    topPerformer,
    /** Each campaign's variants compared across the social networks they were posted to (the CVG dashboard). */
    channelComparison: compareVariantsAcrossChannels,
  };
}

export type AnalyticsQueryService = ReturnType<typeof createAnalyticsQueryService>;

export type { ExperimentPage, ExperimentView };
