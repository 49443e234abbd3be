/**
 * `query_campaigns list`: the tool agents call most, read with one named prepared statement and no entities.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { runPrepared, timestampOrNull, type PreparedStatement } from '../../db/prepared.ts';
import {
  afterCursorSql,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  toPage,
  type Keyset,
  type Page,
} from '../shared/pagination.ts';
import type { CampaignStatus } from './campaign-status.ts';
import type { Campaign } from './campaign.entity.ts';
import { toCampaignView, type CampaignStats, type CampaignView, type CampaignViewFields } from './campaign-view.ts';

interface CampaignListRow {
  id: string;
  name: string;
  objective: string | null;
  public_summary: string | null;
  status: CampaignStatus;
  channels: string[];
  conversion_goals: string[];
  slug: string;
  /** Timestamps arrive as PostgreSQL's text (the ORM's pool keeps them raw) and are parsed as the ORM does. */
  starts_at: string | null;
  ends_at: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  variant_count: number;
  active_deployments: number;
  product_ids: string[];
}

function fromListRow(row: CampaignListRow): CampaignViewFields & { stats: CampaignStats } {
  return {
    id: row.id,
    name: row.name,
    objective: row.objective,
    publicSummary: row.public_summary,
    status: row.status,
    channels: row.channels as Campaign['channels'],
    conversionGoals: row.conversion_goals,
    slug: row.slug,
    startsAt: timestampOrNull(row.starts_at),
    endsAt: timestampOrNull(row.ends_at),
    publishedAt: timestampOrNull(row.published_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    stats: {
      variantCount: row.variant_count,
      activeDeployments: row.active_deployments,
      productIds: row.product_ids,
    },
  };
}

/**
 * A page of campaigns, newest first, with each one's counts and product ids, as ONE named prepared statement
 * per combination of filters. `query_campaigns list` is the tool agents call most: building entities, letting
 * a query builder compile SQL, and planning two statements on every call was most of its cost. Reads run on a
 * pooled connection, outside any transaction (a list is read-only).
 */
function campaignListStatement(filter: {
  workspaceId: string;
  status: CampaignStatus | undefined;
  productId: string | undefined;
  search: string | undefined;
  after: Keyset | null;
  limit: number;
}): PreparedStatement & { values: unknown[] } {
  const values: unknown[] = [filter.workspaceId, filter.limit + 1];
  const conditions: string[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  if (filter.status) conditions.push(`c.status = ${bind(filter.status)}`);
  if (filter.productId)
    conditions.push(
      `exists (select 1 from campaign_products f where f.campaign_id = c.id and f.product_id = ${bind(filter.productId)})`,
    );
  if (filter.search) conditions.push(`c.name ilike ${bind(`%${filter.search.replace(/[%_\\]/g, '\\$&')}%`)}`);
  if (filter.after) {
    conditions.push(afterCursorSql(bind(filter.after.createdAt), bind(filter.after.id), 'c'));
  }
  const shape = `${filter.status ? 's' : ''}${filter.productId ? 'p' : ''}${filter.search ? 'q' : ''}${filter.after ? 'c' : ''}`;
  return {
    name: `campaign-list${shape ? `-${shape}` : ''}`,
    text: `select c.id, c.name, c.objective, c.public_summary, c.status, c.channels, c.conversion_goals, c.slug, c.starts_at, c.ends_at,
              c.published_at, c.created_at, c.updated_at,
              (select count(*) from variants v
                where v.workspace_id = c.workspace_id and v.campaign_id = c.id and v.deleted_at is null)::int
                as variant_count,
              (select count(*) from deployments d
                where d.workspace_id = c.workspace_id and d.campaign_id = c.id and d.status = 'active')::int
                as active_deployments,
              array(select cp.product_id from campaign_products cp where cp.campaign_id = c.id order by cp.product_id)
                as product_ids
         from campaigns c
        where c.workspace_id = $1 and c.deleted_at is null${conditions.map((condition) => ` and ${condition}`).join('')}
        order by c.created_at desc, c.id desc
        limit $2`,
    values,
  };
}

export interface CampaignListFilter {
  status?: CampaignStatus;
  productId?: string;
  search?: string;
  cursor?: string;
  limit?: number;
}

/** A page of the workspace's campaigns, newest first. `db` only lends its connection pool. */
export async function readCampaignPage(
  db: MikroORM | EntityManager,
  workspaceId: string,
  input: CampaignListFilter,
): Promise<Page<CampaignView>> {
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const statement = campaignListStatement({
    workspaceId,
    status: input.status,
    productId: input.productId,
    search: input.search,
    after: decodeCursor(input.cursor),
    limit,
  });
  const rows = (await runPrepared<CampaignListRow>(db, statement, statement.values)).map(fromListRow);
  return toPage(rows, limit, (row) => toCampaignView(row, row.stats));
}
