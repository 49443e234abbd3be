/**
 * Experiments: every campaign with two or more active variants is an A/B(/n) test of its variants against
 * the control. The unit is the session: `exposures` are distinct sessions first exposed to a variant and
 * `conversions` are those of them that later converted on one of the campaign's goals (both exact, from
 * `analytics_variant_totals`, maintained by the rollups). The statistics are the pure functions in
 * `statistics/`; this module only gathers the counts, the configured split and the runtime, and keeps the
 * running minimum of each variant's always-valid p-value between looks (`analytics_experiment_looks`), so a
 * dashboard polled every hour never flips a declared result back.
 */
import { runPrepared, timestampOrNull, type PreparedStatement } from '../../db/prepared.ts';
import type { CampaignStatus } from '../campaigns/campaign-status.ts';
import { NotFoundError } from '../../errors.ts';
import { afterCursorSql, decodeCursor, DEFAULT_PAGE_SIZE, toPage } from '../shared/pagination.ts';
import { sharedRead } from '../shared/request-reads.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { sqlRows } from './analytics-reader.ts';
import {
  decide,
  describeMethod,
  type ArmSummary,
  type ExperimentVerdict,
  type MethodDescription,
  type SrmResult,
  type VariantVerdict,
} from './statistics/index.ts';

const DAY_MS = 86_400_000;

export interface ArmView extends ArmSummary {
  variantId: string;
  name: string;
  isControl: boolean;
  /** Configured traffic weight. */
  weight: number;
  impressions: number;
  clicks: number;
  /** Value of the conversions attributed to this variant's sessions. */
  conversionValue: number;
}

export interface ExperimentView {
  campaignId: string;
  campaignName: string;
  campaignStatus: string;
  /** First exposure of any arm; null before any traffic. */
  startedAt: string | null;
  runtimeDays: number;
  control: ArmView;
  variants: ArmView[];
  /** Sample-ratio-mismatch check against the configured weights. */
  srm: SrmResult & { expectedWeights: number[] };
  /** Variants that are paused or deleted: their data is kept but they are not part of the comparison. */
  excludedVariants: { variantId: string; name: string; reason: 'paused' | 'deleted' }[];
  verdict: ExperimentVerdict;
}

/** A campaign with one active variant: performance only, nothing to compare. */
export interface SingleVariantView {
  campaignId: string;
  campaignName: string;
  campaignStatus: string;
  reason: string;
}

export interface ExperimentPage {
  experiments: ExperimentView[];
  notExperiments: SingleVariantView[];
  method: MethodDescription;
  nextCursor: string | null;
}

interface TotalsRow {
  campaign_id: string;
  variant_id: string;
  impressions: string;
  clicks: string;
  exposed_sessions: string;
  converted_sessions: string;
  converted_value: string;
  first_seen: Date | null;
}

/**
 * The campaigns and variants an experiment page needs, read as rows of the few columns it uses, with named
 * statements: the A/B dashboard reads a page of campaigns and all their variants on every look, and building
 * entities (a variant carries its body, images and channel fields) was a fifth of a dashboard view's CPU.
 * `workspace_id` is bound explicitly: these reads do not pass through the ORM's workspace filter.
 */
interface CampaignRow {
  id: string;
  name: string;
  status: CampaignStatus;
  createdAt: Date;
}

interface VariantRow {
  id: string;
  campaignId: string;
  name: string;
  status: string;
  weight: number;
  isControl: boolean;
  deletedAt: Date | null;
}

const CAMPAIGN_COLUMNS = 'id, name, status, created_at';
/** A campaign by id, deleted or not (an agent may ask about a deleted campaign's test). $1 workspace, $2 id. */
const CAMPAIGN_BY_ID: PreparedStatement = {
  name: 'experiments-campaign',
  text: `select ${CAMPAIGN_COLUMNS} from campaigns where workspace_id = $1 and id = $2`,
};
/** The newest campaigns not deleted. $1 workspace, $2 rows. */
const NEWEST_CAMPAIGNS: PreparedStatement = {
  name: 'experiments-campaigns',
  text: `select ${CAMPAIGN_COLUMNS} from campaigns where workspace_id = $1 and deleted_at is null
         order by created_at desc, id desc limit $2`,
};
/** The same after a cursor. $3 and $4 the cursor's created_at and id. */
const NEWEST_CAMPAIGNS_AFTER: PreparedStatement = {
  name: 'experiments-campaigns-after',
  text: `select ${CAMPAIGN_COLUMNS} from campaigns where workspace_id = $1 and deleted_at is null
           and ${afterCursorSql('$3', '$4')}
         order by created_at desc, id desc limit $2`,
};
/** Every variant of some campaigns, deleted ones included, oldest first. $1 workspace, $2 campaign ids. */
const VARIANTS_OF: PreparedStatement = {
  name: 'experiments-variants',
  text: `select id, campaign_id, name, status, weight, is_control, deleted_at from variants
         where workspace_id = $1 and campaign_id = any($2::varchar[]) order by created_at asc, id asc`,
};

/** Rows as the pool returns them: timestamps as PostgreSQL's text (see `timestampOrNull`). */
interface CampaignDbRow {
  id: string;
  name: string;
  status: CampaignStatus;
  created_at: string;
}

interface VariantDbRow {
  id: string;
  campaign_id: string;
  name: string;
  status: string;
  weight: number;
  is_control: boolean;
  deleted_at: string | null;
}

function campaignOf(row: CampaignDbRow): CampaignRow {
  return { id: row.id, name: row.name, status: row.status, createdAt: new Date(row.created_at) };
}

function variantOf(row: VariantDbRow): VariantRow {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    name: row.name,
    status: row.status,
    weight: row.weight,
    isControl: row.is_control,
    deletedAt: timestampOrNull(row.deleted_at),
  };
}

export function createExperimentsService(deps: { now?: () => Date } = {}) {
  const now = deps.now ?? (() => new Date());

  async function campaignsPage(
    scope: WorkspaceScope,
    input: { campaignId?: string; cursor?: string; limit?: number },
  ): Promise<{ campaigns: CampaignRow[]; nextCursor: string | null }> {
    if (input.campaignId) {
      const [campaign] = await runPrepared<CampaignDbRow>(scope.em, CAMPAIGN_BY_ID, [
        scope.workspaceId,
        input.campaignId,
      ]);
      if (!campaign) throw new NotFoundError('Campaign', input.campaignId);
      return { campaigns: [campaignOf(campaign)], nextCursor: null };
    }
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const after = decodeCursor(input.cursor);
    const rows = await runPrepared<CampaignDbRow>(
      scope.em,
      after ? NEWEST_CAMPAIGNS_AFTER : NEWEST_CAMPAIGNS,
      after ? [scope.workspaceId, limit + 1, after.createdAt, after.id] : [scope.workspaceId, limit + 1],
    );
    const page = toPage(rows.map(campaignOf), limit, (row) => row);
    return { campaigns: page.items, nextCursor: page.nextCursor };
  }

  /**
   * Experiments of a page of campaigns (newest first), or of one campaign. Within one request that shares
   * reads (request-reads.ts: the console page that shows both the A/B dashboard and the insights), a page is
   * computed once.
   */
  function experiments(
    scope: WorkspaceScope,
    input: { campaignId?: string; cursor?: string; limit?: number },
  ): Promise<ExperimentPage> {
    const { campaignId = null, cursor = null, limit = null } = input;
    const key = JSON.stringify(['experiments', scope.workspaceId, campaignId, cursor, limit]);
    return sharedRead(key, () => computeExperiments(scope, input));
  }

  async function computeExperiments(
    scope: WorkspaceScope,
    input: { campaignId?: string; cursor?: string; limit?: number },
  ): Promise<ExperimentPage> {
    const { campaigns, nextCursor } = await campaignsPage(scope, input);
    const ids = campaigns.map((campaign) => campaign.id);
    const [variants, totals, looks] = await Promise.all([
      ids.length
        ? runPrepared<VariantDbRow>(scope.em, VARIANTS_OF, [scope.workspaceId, ids]).then((rows) => rows.map(variantOf))
        : Promise.resolve([]),
      sqlRows<TotalsRow>(
        scope,
        `select campaign_id, variant_id, impressions, clicks, exposed_sessions, converted_sessions, converted_value,
           first_seen from analytics_variant_totals where workspace_id = $1 and campaign_id = any($2::varchar[])`,
        [scope.workspaceId, ids],
      ),
      sqlRows<{ campaign_id: string; variant_id: string; control_variant_id: string; min_p_value: number }>(
        scope,
        `select campaign_id, variant_id, control_variant_id, min_p_value from analytics_experiment_looks
         where workspace_id = $1 and campaign_id = any($2::varchar[])`,
        [scope.workspaceId, ids],
      ),
    ]);
    const totalsOf = new Map(totals.map((row) => [`${row.campaign_id}/${row.variant_id}`, row]));
    const page: ExperimentPage = { experiments: [], notExperiments: [], method: describeMethod(), nextCursor };
    const at = now();
    for (const campaign of campaigns) {
      const all = variants.filter((variant) => variant.campaignId === campaign.id);
      const active = all.filter((variant) => !variant.deletedAt && variant.status === 'active');
      if (active.length < 2) {
        page.notExperiments.push({
          campaignId: campaign.id,
          campaignName: campaign.name,
          campaignStatus: campaign.status,
          reason:
            active.length === 1
              ? 'one active variant: nothing to compare (add a variant to start an A/B test)'
              : 'no active variants',
        });
        continue;
      }
      // The control is the variant marked as such, else the oldest; the comparison order is stable.
      const control = active.find((variant) => variant.isControl) ?? active[0]!;
      const arms = [control, ...active.filter((variant) => variant !== control)];
      const counts = arms.map((variant) => {
        const row = totalsOf.get(`${campaign.id}/${variant.id}`);
        return {
          variant,
          exposures: Number(row?.exposed_sessions ?? 0),
          conversions: Number(row?.converted_sessions ?? 0),
          impressions: Number(row?.impressions ?? 0),
          clicks: Number(row?.clicks ?? 0),
          conversionValue: Number(row?.converted_value ?? 0),
          firstSeen: row?.first_seen ? new Date(row.first_seen) : null,
        };
      });
      const firstSeen = counts
        .map((arm) => arm.firstSeen?.getTime())
        .filter((time): time is number => time !== undefined);
      const startedAt = firstSeen.length ? new Date(Math.min(...firstSeen)) : null;
      const runtimeDays = startedAt ? Math.max(0, (at.getTime() - startedAt.getTime()) / DAY_MS) : 0;
      const weights = arms.map((variant) => variant.weight);
      const expectedWeights = weights.some((weight) => weight > 0) ? weights : weights.map(() => 1);
      const previousPValues: Record<string, number> = {};
      for (const look of looks) {
        if (look.campaign_id === campaign.id && look.control_variant_id === control.id) {
          previousPValues[look.variant_id] = Number(look.min_p_value);
        }
      }
      const verdict = decide({
        control: { id: control.id, exposures: counts[0]!.exposures, conversions: counts[0]!.conversions },
        variants: counts.slice(1).map((arm) => ({
          id: arm.variant.id,
          exposures: arm.exposures,
          conversions: arm.conversions,
        })),
        expectedWeights,
        runtimeDays,
        previousPValues,
      });
      const summaries = [verdict.control, ...verdict.variants.map((variant) => variant.variant)];
      const armViews = counts.map((arm, index): ArmView => ({
        ...summaries[index]!,
        variantId: arm.variant.id,
        name: arm.variant.name,
        isControl: index === 0,
        weight: arm.variant.weight,
        impressions: arm.impressions,
        clicks: arm.clicks,
        conversionValue: Math.round(arm.conversionValue * 100) / 100,
      }));
      page.experiments.push({
        campaignId: campaign.id,
        campaignName: campaign.name,
        campaignStatus: campaign.status,
        startedAt: startedAt?.toISOString() ?? null,
        runtimeDays: Math.round(runtimeDays * 100) / 100,
        control: armViews[0]!,
        variants: armViews.slice(1),
        srm: { ...verdict.srm, expectedWeights },
        excludedVariants: all
          .filter((variant) => variant.deletedAt || variant.status !== 'active')
          .map((variant) => ({
            variantId: variant.id,
            name: variant.name,
            reason: variant.deletedAt ? ('deleted' as const) : ('paused' as const),
          })),
        verdict,
      });
      if (verdict.variants.length) page.method = verdict.method;
    }
    await rememberLooks(scope, page.experiments, looks);
    return page;
  }

  /**
   * Keeps each variant's smallest always-valid p-value (the running minimum over every look so far). Only a
   * look that lowers a stored minimum (or is a variant's first) is written: a reader polling unchanged totals
   * gets the same p-value back, and writing it again would turn every dashboard view into row locks and WAL.
   * The `looks` column therefore counts the looks that moved the minimum.
   */
  async function rememberLooks(
    scope: WorkspaceScope,
    experiments: ExperimentView[],
    stored: readonly { campaign_id: string; variant_id: string; control_variant_id: string; min_p_value: number }[],
  ): Promise<void> {
    const storedMinimum = new Map(
      stored.map((look) => [
        `${look.campaign_id}/${look.variant_id}/${look.control_variant_id}`,
        Number(look.min_p_value),
      ]),
    );
    const looks = experiments.flatMap((experiment) =>
      experiment.verdict.variants
        .filter((variant) => {
          if (!Number.isFinite(variant.sequential.pValue)) return false;
          const key = `${experiment.campaignId}/${variant.variantId}/${experiment.control.variantId}`;
          const minimum = storedMinimum.get(key);
          return minimum === undefined || variant.sequential.pValue < minimum;
        })
        .map((variant) => ({
          campaignId: experiment.campaignId,
          variantId: variant.variantId,
          controlId: experiment.control.variantId,
          pValue: variant.sequential.pValue,
        })),
    );
    if (!looks.length) return;
    await sqlRows(
      scope,
      `insert into analytics_experiment_looks (workspace_id, campaign_id, variant_id, control_variant_id, min_p_value)
       select $1, * from unnest($2::varchar[], $3::varchar[], $4::varchar[], $5::float8[])
       on conflict (workspace_id, campaign_id, variant_id, control_variant_id) do update set
         min_p_value = least(analytics_experiment_looks.min_p_value, excluded.min_p_value),
         looks = analytics_experiment_looks.looks + 1, updated_at = now()`,
      [
        scope.workspaceId,
        looks.map((look) => look.campaignId),
        looks.map((look) => look.variantId),
        looks.map((look) => look.controlId),
        looks.map((look) => look.pValue),
      ],
    );
  }

  return { experiments };
}

export type ExperimentsService = ReturnType<typeof createExperimentsService>;

/** The variant an agent should build on: a declared winner first, else the best rate with enough sample. */
export function topPerformer(experiment: ExperimentView): { variantId: string; name: string; why: string } | null {
  const winners = experiment.verdict.variants.filter((variant) => variant.decision === 'winner');
  if (winners.length) {
    const best = winners.reduce((a, b) => (b.variant.rate > a.variant.rate ? b : a));
    const arm = experiment.variants.find((variant) => variant.variantId === best.variantId)!;
    return { variantId: arm.variantId, name: arm.name, why: 'declared winner against control' };
  }
  const arms = [experiment.control, ...experiment.variants].filter((arm) => !arm.smallSample);
  if (!arms.length) return null;
  const best = arms.reduce((a, b) => (b.rate > a.rate ? b : a));
  return {
    variantId: best.variantId,
    name: best.name,
    why: 'highest conversion rate so far; not a statistically declared winner',
  };
}

export type { VariantVerdict };
