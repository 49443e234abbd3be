/**
 * The baselines of bench/analytics.ts: the numbers the analytics service reads from rollups, computed
 * exactly from the raw `analytics_events` instead (what a dashboard without rollups would have to run on
 * every call). Each is one SQL statement per question, written to be as cheap as the question allows.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/** Natively bound parameters (the ORM's raw `execute` would format them into the SQL text). */
export async function sql<Row = Record<string, unknown>>(
  orm: MikroORM,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const result = await orm.em.getConnection().getClient().executeQuery<Row>(CompiledQuery.raw(text, params));
  return result.rows as Row[];
}

/** `[from, to]` UTC days as the half-open timestamp range the partitions are cut by. */
function range(window: { from: string; to: string }): [string, string] {
  return [`${window.from}T00:00:00Z`, new Date(Date.parse(`${window.to}T00:00:00Z`) + 86_400_000).toISOString()];
}

const COUNTERS = `
  count(*) filter (where type = 'impression') as impressions,
  count(distinct session_id) filter (where type = 'impression') as reach,
  count(*) filter (where type = 'impression' and session_id is null) as unattributed,
  count(*) filter (where type = 'click') as clicks,
  count(*) filter (where type = 'conversion') as conversions,
  coalesce(sum(value) filter (where type = 'conversion'), 0) as conversion_value,
  count(*) filter (where type = 'concierge_question') as questions`;

export interface ExactCounters {
  impressions: string;
  reach: string;
  unattributed: string;
  clicks: string;
  conversions: string;
  conversion_value: string;
  questions: string;
}

/** The snapshot's summary section: the workspace's counters and exact Reach over the window. */
export async function exactSummary(
  orm: MikroORM,
  workspaceId: string,
  window: { from: string; to: string },
): Promise<ExactCounters> {
  const rows = await sql<ExactCounters>(
    orm,
    `select ${COUNTERS} from analytics_events where workspace_id = $1 and occurred_at >= $2 and occurred_at < $3`,
    [workspaceId, ...range(window)],
  );
  return rows[0]!;
}

/**
 * Every snapshot section at once (summary, campaigns, variants, surfaces and zones, timeseries) as grouping
 * sets over one scan, with exact distinct sessions per group, plus the concierge totals and top unanswered
 * questions. Not included: converted sessions (attribution), so this baseline is if anything cheaper than the
 * exact equivalent of what the service returns.
 */
export async function exactSections(
  orm: MikroORM,
  workspaceId: string,
  window: { from: string; to: string },
  campaignId?: string,
): Promise<{ groups: number }> {
  const params = [workspaceId, ...range(window), ...(campaignId ? [campaignId] : [])];
  const groups = await sql(
    orm,
    `select grouping(campaign_id, variant_id, surface_id, zone_id, day) as level, campaign_id, variant_id, surface_id,
       zone_id, day, ${COUNTERS}
     from (select *, (occurred_at at time zone 'UTC')::date as day from analytics_events
           where workspace_id = $1 and occurred_at >= $2 and occurred_at < $3 ${campaignId ? 'and campaign_id = $4' : ''}) e
     group by grouping sets ((), (campaign_id), (campaign_id, variant_id), (surface_id), (surface_id, zone_id), (day))`,
    params,
  );
  if (!campaignId) {
    await sql(
      orm,
      `select count(*) as questions, count(*) filter (where properties->>'answered' = 'false') as unanswered
       from analytics_events where workspace_id = $1 and type = 'concierge_question' and occurred_at >= $2 and occurred_at < $3`,
      params,
    );
    await sql(
      orm,
      `select min(properties->>'query') as query, count(*) from analytics_events
       where workspace_id = $1 and type = 'concierge_question' and occurred_at >= $2 and occurred_at < $3
         and properties->>'answered' = 'false'
       group by lower(trim(properties->>'query')) order by count(*) desc limit 10`,
      params,
    );
  }
  return { groups: groups.length };
}

export interface ExactArm {
  campaign_id: string;
  variant_id: string;
  impressions: string;
  clicks: string;
  /** Sessions whose first impression of the campaign showed this variant (the experiment unit). */
  exposed: string;
  /** Of those, sessions with a conversion of the campaign at or after that first impression. */
  converted: string;
}

/**
 * The counts behind cvg_dashboard over each experiment's whole runtime: per campaign × variant, impressions,
 * clicks, exposed sessions (variant of the session's first impression) and converted sessions (a conversion
 * of the campaign at or after it), with the same definitions as the rollups (analytics_exposures).
 */
export async function exactExperiments(orm: MikroORM, workspaceId: string, campaignId?: string): Promise<ExactArm[]> {
  const scoped = campaignId ? 'and campaign_id = $2' : '';
  return sql<ExactArm>(
    orm,
    `with units as (
       select distinct on (campaign_id, session_id) campaign_id, session_id, variant_id, occurred_at as first_at
       from analytics_events
       where workspace_id = $1 and type = 'impression' and session_id is not null and campaign_id is not null ${scoped}
       order by campaign_id, session_id, occurred_at, event_id
     ), conversions as (
       select campaign_id, session_id, max(occurred_at) as last_at from analytics_events
       where workspace_id = $1 and type = 'conversion' and session_id is not null ${scoped}
       group by campaign_id, session_id
     ), arms as (
       select u.campaign_id, u.variant_id, count(*) as exposed, count(*) filter (where c.last_at >= u.first_at) as converted
       from units u left join conversions c using (campaign_id, session_id)
       group by u.campaign_id, u.variant_id
     ), counts as (
       select campaign_id, variant_id, count(*) filter (where type = 'impression') as impressions,
         count(*) filter (where type = 'click') as clicks
       from analytics_events where workspace_id = $1 and campaign_id is not null ${scoped}
       group by campaign_id, variant_id
     )
     select campaign_id, variant_id, counts.impressions, counts.clicks, coalesce(arms.exposed, 0) as exposed,
       coalesce(arms.converted, 0) as converted
     from counts left join arms using (campaign_id, variant_id)`,
    campaignId ? [workspaceId, campaignId] : [workspaceId],
  );
}

/** Exact distinct sessions with an impression over a window, for the workspace or per campaign / variant. */
export async function exactReach(
  orm: MikroORM,
  workspaceId: string,
  window: { from: string; to: string },
  by: 'workspace' | 'campaign' | 'variant',
): Promise<{ key: string; impressions: number; reach: number }[]> {
  const key = by === 'workspace' ? `''` : by === 'campaign' ? 'campaign_id' : `campaign_id || '/' || variant_id`;
  const rows = await sql<{ key: string; impressions: string; reach: string }>(
    orm,
    `select ${key} as key, count(*) as impressions, count(distinct session_id) as reach from analytics_events
     where workspace_id = $1 and type = 'impression' and occurred_at >= $2 and occurred_at < $3
     group by 1`,
    [workspaceId, ...range(window)],
  );
  return rows.map((row) => ({ key: row.key, impressions: Number(row.impressions), reach: Number(row.reach) }));
}
