/**
 * Campaigns, their variants and deployments. Every query is scoped by workspace; entities of another
 * workspace are "not found". State rules live here and in `campaign-status.ts`; every change that alters what
 * the brand site shows (publish, deploy, deployment changes, variant saves and deletes on published campaigns,
 * archiving) requests a republish.
 */
import { z } from 'zod';
import { runPrepared, type PreparedStatement } from '../../db/prepared.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { Product } from '../products/product.entity.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Keyset,
  type Page,
} from '../shared/pagination.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { slugify } from '../workspaces/slug.ts';
import { Zone } from '../surfaces/surface.entity.ts';
import { assertCampaignTransition, CAMPAIGN_STATUSES, type CampaignStatus } from './campaign-status.ts';
import { Campaign, CHANNELS } from './campaign.entity.ts';
import { Deployment, DEPLOYMENT_STATUSES } from './deployment.entity.ts';
import { Variant, VariantVersion, VARIANT_STATUSES, type ChannelFields, type ImageRef } from './variant.entity.ts';

/** What the campaign service needs from publishing (the republish workflow). */
export interface RepublishPort {
  requestRepublish(scope: WorkspaceScope, reason: string): Promise<void>;
}

const Id = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be a ${what} id (${prefix}_…)`);
export const CampaignId = Id('cmp', 'campaign');
export const VariantId = Id('var', 'variant');
export const DeploymentId = Id('dep', 'deployment');
export const ZoneId = Id('zon', 'zone');
export const ProductId = Id('prd', 'product');

const HttpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an absolute http(s) URL');
const IsoDate = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z' });

export const CampaignFields = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  objective: z.string().trim().max(2000, 'must be at most 2000 characters').nullish(),
  publicSummary: z.string().trim().max(1000, 'must be at most 1000 characters').nullish(),
  productIds: z.array(ProductId).max(20, 'at most 20 products').optional(),
  channels: z.array(z.enum(CHANNELS)).max(3).optional(),
  conversionGoals: z
    .array(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'each goal must be 1–64 letters, digits, _ . : -'))
    .max(10, 'at most 10 goals')
    .transform((goals) => [...new Set(goals)])
    .optional(),
  startsAt: IsoDate.nullish(),
  endsAt: IsoDate.nullish(),
});

export const VariantFields = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  headline: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  body: z.string().trim().min(1, 'must not be empty').max(5000, 'must be at most 5000 characters'),
  callToAction: z.string().trim().min(1, 'must not be empty').max(60, 'must be at most 60 characters'),
  ctaUrl: HttpUrl.nullish(),
  imageRefs: z
    .array(z.object({ url: HttpUrl, alt: z.string().max(300).optional(), mediaId: z.string().max(60).optional() }))
    .max(6, 'at most 6 images')
    .optional(),
  channelFields: z
    .object({
      email: z
        .object({ subject: z.string().max(150).optional(), preheader: z.string().max(200).optional() })
        .optional(),
      social: z
        .object({ caption: z.string().max(2200).optional(), hashtags: z.array(z.string().max(60)).max(30).optional() })
        .optional(),
      web: z
        .object({ eyebrow: z.string().max(80).optional(), sectionTitle: z.string().max(120).optional() })
        .optional(),
    })
    .optional(),
  weight: z.number().int().min(0).max(100).optional(),
  status: z.enum(VARIANT_STATUSES).optional(),
  isControl: z.boolean().optional(),
});

export interface CampaignView {
  id: string;
  name: string;
  /** Internal notes: never published. */
  objective: string | null;
  /** Shown on the brand site (the campaign page's lead); null: the site uses the active variant's copy. */
  publicSummary: string | null;
  status: CampaignStatus;
  channels: string[];
  /** Goal keys whose conversions count for this campaign; empty: every goal. */
  conversionGoals: string[];
  productIds: string[];
  slug: string;
  startsAt: string | null;
  endsAt: string | null;
  publishedAt: string | null;
  variantCount: number;
  activeDeployments: number;
  createdAt: string;
  updatedAt: string;
}

export interface VariantView {
  id: string;
  campaignId: string;
  name: string;
  headline: string;
  body: string;
  callToAction: string;
  ctaUrl: string | null;
  imageRefs: ImageRef[];
  channelFields: ChannelFields;
  status: string;
  weight: number;
  isControl: boolean;
  source: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  history?: { version: number; snapshot: Record<string, unknown>; changedBy: string; at: string }[];
}

export interface DeploymentView {
  id: string;
  campaignId: string;
  surfaceId: string;
  zoneId: string;
  status: string;
  priority: number;
  startsAt: string | null;
  endsAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

interface CampaignStats {
  variantCount: number;
  activeDeployments: number;
  productIds: string[];
}

export function toVariantView(variant: Variant): VariantView {
  return {
    id: variant.id,
    campaignId: variant.campaign.id,
    name: variant.name,
    headline: variant.headline,
    body: variant.body,
    callToAction: variant.callToAction,
    ctaUrl: variant.ctaUrl ?? null,
    imageRefs: variant.imageRefs,
    channelFields: variant.channelFields,
    status: variant.status,
    weight: variant.weight,
    isControl: variant.isControl,
    source: variant.source,
    version: variant.version,
    createdAt: variant.createdAt.toISOString(),
    updatedAt: variant.updatedAt.toISOString(),
  };
}

export function toDeploymentView(deployment: Deployment): DeploymentView {
  return {
    id: deployment.id,
    campaignId: deployment.campaign.id,
    surfaceId: deployment.surface.id,
    zoneId: deployment.zone.id,
    status: deployment.status,
    priority: deployment.priority,
    startsAt: iso(deployment.startsAt),
    endsAt: iso(deployment.endsAt),
    createdAt: deployment.createdAt.toISOString(),
    updatedAt: deployment.updatedAt.toISOString(),
  };
}

function snapshotOf(variant: Variant): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = toVariantView(variant);
  return rest;
}

/** What a campaign's view is made of. */
type CampaignViewFields = Pick<
  Campaign,
  | 'id'
  | 'name'
  | 'objective'
  | 'publicSummary'
  | 'status'
  | 'channels'
  | 'conversionGoals'
  | 'slug'
  | 'startsAt'
  | 'endsAt'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
>;

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

const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

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
    startsAt: dateOrNull(row.starts_at),
    endsAt: dateOrNull(row.ends_at),
    publishedAt: dateOrNull(row.published_at),
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
    const at = bind(filter.after.createdAt);
    conditions.push(`(c.created_at < ${at} or (c.created_at = ${at} and c.id < ${bind(filter.after.id)}))`);
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

export function createCampaignsService(deps: { republish: RepublishPort }) {
  async function findCampaign(scope: WorkspaceScope, campaignId: string): Promise<Campaign> {
    const campaign = await scope.em.findOne(
      Campaign,
      { id: campaignId, workspace: scope.workspaceId, deletedAt: null },
      { populate: ['products'] },
    );
    if (!campaign) throw new NotFoundError('Campaign', campaignId);
    return campaign;
  }

  async function findVariant(scope: WorkspaceScope, variantId: string): Promise<Variant> {
    const variant = await scope.em.findOne(
      Variant,
      { id: variantId, workspace: scope.workspaceId, deletedAt: null },
      { populate: ['campaign'] },
    );
    if (!variant || variant.campaign.getEntity().deletedAt) throw new NotFoundError('Variant', variantId);
    return variant;
  }

  async function view(scope: WorkspaceScope, campaign: Campaign): Promise<CampaignView> {
    const [variantCount, activeDeployments] = await Promise.all([
      scope.em.count(Variant, { campaign: campaign.id, deletedAt: null }),
      scope.em.count(Deployment, { campaign: campaign.id, status: 'active' }),
    ]);
    return viewOf(campaign, {
      variantCount,
      activeDeployments,
      productIds: campaign.products.isInitialized() ? campaign.products.getItems().map((p) => p.id) : [],
    });
  }

  function viewOf(campaign: CampaignViewFields, stats: CampaignStats): CampaignView {
    return {
      id: campaign.id,
      name: campaign.name,
      objective: campaign.objective ?? null,
      publicSummary: campaign.publicSummary ?? null,
      status: campaign.status,
      channels: campaign.channels,
      conversionGoals: campaign.conversionGoals,
      productIds: stats.productIds,
      slug: campaign.slug,
      startsAt: iso(campaign.startsAt),
      endsAt: iso(campaign.endsAt),
      publishedAt: iso(campaign.publishedAt),
      variantCount: stats.variantCount,
      activeDeployments: stats.activeDeployments,
      createdAt: campaign.createdAt.toISOString(),
      updatedAt: campaign.updatedAt.toISOString(),
    };
  }

  async function productsOf(scope: WorkspaceScope, ids: string[]): Promise<Product[]> {
    const unique = [...new Set(ids)];
    const products = await scope.em.find(Product, {
      id: { $in: unique },
      workspace: scope.workspaceId,
      deletedAt: null,
    });
    const missing = unique.filter((id) => !products.some((p) => p.id === id));
    if (missing.length) throw new NotFoundError('Product', missing[0]);
    return products;
  }

  /** The name's slug, or `<slug>-2`, `-3`… when taken: one query for the slug and its numbered forms. */
  async function uniqueSlug(scope: WorkspaceScope, name: string): Promise<string> {
    const base = slugify(name).slice(0, 60); // only [a-z0-9-]: nothing to escape in the LIKE pattern
    const rows = await scope.em
      .getConnection()
      .execute<{ slug: string }[]>(
        'select slug from campaigns where workspace_id = ? and (slug = ? or slug like ?)',
        [scope.workspaceId, base, `${base}-%`],
        'all',
        scope.em.getTransactionContext(),
      );
    const taken = new Set(rows.map((row) => row.slug));
    for (let n = 1; n < 100; n += 1) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
    return `${base}-${Date.now().toString(36)}`;
  }

  function assertEditable(campaign: Campaign, what: string): void {
    if (campaign.status === 'generating') {
      throw new ConflictError(
        `Cannot ${what} while the campaign is generating; poll generation_status, or cancel the generation`,
      );
    }
    if (campaign.status === 'archived')
      throw new ConflictError(
        `Cannot ${what}: the campaign is archived; restore it first (update with status "ready")`,
      );
  }

  function checkSchedule(startsAt: Date | null | undefined, endsAt: Date | null | undefined): void {
    if (startsAt && endsAt && endsAt <= startsAt) throw new ConflictError('endsAt must be after startsAt');
  }

  async function republishIfPublished(scope: WorkspaceScope, campaign: Campaign, reason: string) {
    if (campaign.status === 'published') await deps.republish.requestRepublish(scope, reason);
  }

  return {
    findCampaign,
    /** Throws "not found" for the first id that is not a live product of the workspace. */
    assertProducts: async (scope: WorkspaceScope, ids: string[]) => {
      await productsOf(scope, ids);
    },
    findVariant,
    view,

    async list(
      scope: WorkspaceScope,
      input: { status?: CampaignStatus; productId?: string; search?: string; cursor?: string; limit?: number },
    ): Promise<Page<CampaignView>> {
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const statement = campaignListStatement({
        workspaceId: scope.workspaceId,
        status: input.status,
        productId: input.productId,
        search: input.search,
        after: decodeCursor(input.cursor),
        limit,
      });
      const rows = (await runPrepared<CampaignListRow>(scope.em, statement, statement.values)).map(fromListRow);
      return toPage(rows, limit, (row) => viewOf(row, row.stats));
    },

    async get(scope: WorkspaceScope, campaignId: string): Promise<CampaignView> {
      return view(scope, await findCampaign(scope, campaignId));
    },

    /**
     * Creates a draft campaign. `generating` creates it already in generation (a `generate_campaign start`
     * without a campaign): one write instead of a create followed by `beginGeneration`.
     */
    async create(
      scope: WorkspaceScope,
      input: z.input<typeof CampaignFields>,
      options: { generating?: boolean } = {},
    ): Promise<CampaignView> {
      const data = parseInput(CampaignFields, input, 'campaign');
      const startsAt = data.startsAt ? new Date(data.startsAt) : null;
      const endsAt = data.endsAt ? new Date(data.endsAt) : null;
      checkSchedule(startsAt, endsAt);
      const products = await productsOf(scope, data.productIds ?? []);
      const campaign = scope.em.create(Campaign, {
        workspace: scope.workspaceId,
        name: data.name,
        objective: data.objective ?? null,
        publicSummary: data.publicSummary ?? null,
        status: options.generating ? 'generating' : 'draft',
        statusBeforeGeneration: options.generating ? 'draft' : null,
        channels: data.channels ?? ['web'],
        conversionGoals: data.conversionGoals ?? [],
        brief: null,
        startsAt,
        endsAt,
        slug: await uniqueSlug(scope, data.name),
        publishedAt: null,
        deletedAt: null,
      });
      campaign.products.set(products);
      await scope.em.flush();
      // Nothing to count yet: a new campaign has no variants and no deployments.
      return viewOf(campaign, { variantCount: 0, activeDeployments: 0, productIds: products.map((p) => p.id) });
    },

    async update(
      scope: WorkspaceScope,
      campaignId: string,
      input: Partial<z.input<typeof CampaignFields>> & { status?: CampaignStatus },
    ): Promise<CampaignView> {
      const data = parseInput(
        CampaignFields.partial().extend({
          status: z
            .enum(['ready', 'archived'], { error: 'may only be set to "archived" (archive) or "ready" (restore)' })
            .optional(),
        }),
        input,
        'campaign',
      );
      const campaign = await findCampaign(scope, campaignId);
      if (campaign.status === 'generating') {
        throw new ConflictError(
          'Cannot update the campaign while it is generating; poll generation_status, or cancel the generation',
        );
      }
      const wasPublished = campaign.status === 'published';
      if (data.name !== undefined) campaign.name = data.name;
      if (data.objective !== undefined) campaign.objective = data.objective ?? null;
      if (data.publicSummary !== undefined) campaign.publicSummary = data.publicSummary ?? null;
      if (data.channels !== undefined) campaign.channels = data.channels;
      if (data.conversionGoals !== undefined) campaign.conversionGoals = data.conversionGoals;
      if (data.productIds !== undefined) campaign.products.set(await productsOf(scope, data.productIds));
      if (data.startsAt !== undefined) campaign.startsAt = data.startsAt ? new Date(data.startsAt) : null;
      if (data.endsAt !== undefined) campaign.endsAt = data.endsAt ? new Date(data.endsAt) : null;
      checkSchedule(campaign.startsAt, campaign.endsAt);
      if (data.status && data.status !== campaign.status) {
        assertCampaignTransition(
          campaign.status,
          data.status,
          data.status === 'archived' ? 'archive it' : 'restore it',
        );
        campaign.status = data.status;
        if (data.status === 'archived') {
          await scope.em.nativeUpdate(
            Deployment,
            { campaign: campaign.id, status: { $ne: 'ended' } },
            { status: 'ended', updatedAt: new Date() },
          );
        }
      }
      await scope.em.flush();
      if (wasPublished) await deps.republish.requestRepublish(scope, `campaign ${campaign.id} updated`);
      return view(scope, campaign);
    },

    /** Deletes an unpublished campaign (a published one is archived instead, so its history stays). */
    async remove(scope: WorkspaceScope, campaignId: string): Promise<CampaignView> {
      const campaign = await findCampaign(scope, campaignId);
      if (campaign.status === 'published')
        throw new ConflictError(
          'A published campaign cannot be deleted; archive it instead (update with status "archived")',
        );
      if (campaign.status === 'generating')
        throw new ConflictError('Cannot delete the campaign while it is generating; cancel the generation first');
      campaign.deletedAt = new Date();
      await scope.em.flush();
      return view(scope, campaign);
    },

    async listVariants(
      scope: WorkspaceScope,
      input: { campaignId: string; includeHistory?: boolean; cursor?: string; limit?: number },
    ): Promise<Page<VariantView>> {
      const campaign = await findCampaign(scope, input.campaignId);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Variant,
        {
          campaign: campaign.id,
          workspace: scope.workspaceId,
          deletedAt: null,
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      const page = toPage(rows, limit, toVariantView);
      if (input.includeHistory && page.items.length) {
        const versions = await scope.em.find(
          VariantVersion,
          { variant: { $in: page.items.map((v) => v.id) } },
          { orderBy: { version: 'desc' } },
        );
        for (const item of page.items) {
          item.history = versions
            .filter((v) => v.variant.id === item.id)
            .map((v) => ({
              version: v.version,
              snapshot: v.snapshot,
              changedBy: v.changedBy,
              at: v.createdAt.toISOString(),
            }));
        }
      }
      return page;
    },

    async createVariant(
      scope: WorkspaceScope,
      campaignId: string,
      input: z.input<typeof VariantFields>,
    ): Promise<VariantView> {
      const data = parseInput(VariantFields, input, 'variant');
      const campaign = await findCampaign(scope, campaignId);
      assertEditable(campaign, 'add a variant');
      const existing = await scope.em.count(Variant, { campaign: campaign.id, deletedAt: null });
      if (existing >= 10) throw new ConflictError('A campaign has at most 10 variants; delete one first');
      const makeControl = data.isControl ?? existing === 0;
      if (makeControl)
        await scope.em.nativeUpdate(Variant, { campaign: campaign.id, isControl: true }, { isControl: false });
      const variant = scope.em.create(Variant, {
        workspace: scope.workspaceId,
        campaign,
        name: data.name ?? `Variant ${String.fromCharCode(65 + Math.min(existing, 25))}`,
        headline: data.headline,
        body: data.body,
        callToAction: data.callToAction,
        ctaUrl: data.ctaUrl ?? null,
        imageRefs: data.imageRefs ?? [],
        channelFields: data.channelFields ?? {},
        status: data.status ?? 'active',
        weight: data.weight ?? 50,
        isControl: makeControl,
        source: 'manual',
        version: 1,
        deletedAt: null,
      });
      if (campaign.status === 'draft') campaign.status = 'ready';
      await scope.em.flush();
      await republishIfPublished(scope, campaign, `variant ${variant.id} created`);
      return toVariantView(variant);
    },

    /** Saves a variant (keeping the previous state in its history) and republishes a published campaign. */
    async updateVariant(
      scope: WorkspaceScope,
      variantId: string,
      input: Partial<z.input<typeof VariantFields>> & { expectedVersion?: number },
    ): Promise<VariantView> {
      const data = parseInput(
        VariantFields.partial().extend({ expectedVersion: z.number().int().min(1).optional() }),
        input,
        'variant',
      );
      const variant = await findVariant(scope, variantId);
      const campaign = variant.campaign.getEntity();
      assertEditable(campaign, 'change a variant');
      if (data.expectedVersion !== undefined && data.expectedVersion !== variant.version) {
        throw new ConflictError(
          `The variant changed since you read it (now version ${variant.version}); read it again and reapply your edit`,
          {
            currentVersion: variant.version,
          },
        );
      }
      if (data.status === 'paused' && variant.status === 'active' && campaign.status === 'published') {
        const active = await scope.em.count(Variant, { campaign: campaign.id, deletedAt: null, status: 'active' });
        if (active <= 1) throw new ConflictError('A published campaign needs at least one active variant');
      }
      scope.em.create(VariantVersion, {
        variant,
        version: variant.version,
        snapshot: snapshotOf(variant),
        changedBy: scope.actor,
      });
      if (data.isControl === true)
        await scope.em.nativeUpdate(Variant, { campaign: campaign.id, isControl: true }, { isControl: false });
      for (const key of ['name', 'headline', 'body', 'callToAction', 'weight', 'status', 'isControl'] as const) {
        if (data[key] !== undefined) (variant as Record<string, unknown>)[key] = data[key];
      }
      if (data.ctaUrl !== undefined) variant.ctaUrl = data.ctaUrl ?? null;
      if (data.imageRefs !== undefined) variant.imageRefs = data.imageRefs;
      if (data.channelFields !== undefined) variant.channelFields = data.channelFields;
      variant.version += 1;
      await scope.em.flush();
      await republishIfPublished(scope, campaign, `variant ${variant.id} saved`);
      return toVariantView(variant);
    },

    async deleteVariant(scope: WorkspaceScope, variantId: string): Promise<VariantView> {
      const variant = await findVariant(scope, variantId);
      const campaign = variant.campaign.getEntity();
      assertEditable(campaign, 'delete a variant');
      if (campaign.status === 'published' && variant.status === 'active') {
        const active = await scope.em.count(Variant, { campaign: campaign.id, deletedAt: null, status: 'active' });
        if (active <= 1)
          throw new ConflictError(
            'Cannot delete the only active variant of a published campaign; archive the campaign instead',
          );
      }
      variant.deletedAt = new Date();
      if (variant.isControl) {
        variant.isControl = false;
        const next = await scope.em.findOne(
          Variant,
          { campaign: campaign.id, deletedAt: null, id: { $ne: variant.id } },
          { orderBy: { createdAt: 'asc' } },
        );
        if (next) next.isControl = true;
      }
      await scope.em.flush();
      await republishIfPublished(scope, campaign, `variant ${variant.id} deleted`);
      return toVariantView(variant);
    },

    async publish(scope: WorkspaceScope, campaignId: string): Promise<CampaignView> {
      const campaign = await findCampaign(scope, campaignId);
      if (campaign.status !== 'published') {
        assertCampaignTransition(campaign.status, 'published', 'publish it');
        const active = await scope.em.count(Variant, { campaign: campaign.id, deletedAt: null, status: 'active' });
        if (active === 0) throw new ConflictError('A campaign needs at least one active variant to be published');
        campaign.status = 'published';
        campaign.publishedAt = new Date();
        await scope.em.flush();
      }
      await deps.republish.requestRepublish(scope, `campaign ${campaign.id} published`);
      return view(scope, campaign);
    },

    async deploy(
      scope: WorkspaceScope,
      input: {
        campaignId: string;
        zoneId: string;
        priority?: number;
        startsAt?: string | null;
        endsAt?: string | null;
      },
    ): Promise<DeploymentView> {
      const campaign = await findCampaign(scope, input.campaignId);
      if (campaign.status !== 'published')
        throw new ConflictError(`Publish the campaign before deploying it (it is ${campaign.status})`);
      const zone = await scope.em.findOne(
        Zone,
        { id: input.zoneId, workspace: scope.workspaceId },
        { populate: ['surface'] },
      );
      if (!zone) throw new NotFoundError('Zone', input.zoneId);
      const duplicate = await scope.em.findOne(Deployment, {
        campaign: campaign.id,
        zone: zone.id,
        status: { $ne: 'ended' },
      });
      if (duplicate)
        throw new ConflictError(
          `The campaign is already deployed to this zone (${duplicate.id}); use update_deployment`,
          { deploymentId: duplicate.id },
        );
      const startsAt = input.startsAt ? new Date(input.startsAt) : null;
      const endsAt = input.endsAt ? new Date(input.endsAt) : null;
      checkSchedule(startsAt, endsAt);
      const deployment = scope.em.create(Deployment, {
        workspace: scope.workspaceId,
        campaign,
        surface: zone.surface,
        zone,
        status: 'active',
        priority: input.priority ?? 0,
        startsAt,
        endsAt,
      });
      await scope.em.flush();
      await deps.republish.requestRepublish(scope, `campaign ${campaign.id} deployed to ${zone.id}`);
      return toDeploymentView(deployment);
    },

    async updateDeployment(
      scope: WorkspaceScope,
      deploymentId: string,
      input: {
        status?: (typeof DEPLOYMENT_STATUSES)[number];
        priority?: number;
        startsAt?: string | null;
        endsAt?: string | null;
      },
    ): Promise<DeploymentView> {
      const deployment = await scope.em.findOne(Deployment, { id: deploymentId, workspace: scope.workspaceId });
      if (!deployment) throw new NotFoundError('Deployment', deploymentId);
      if (deployment.status === 'ended')
        throw new ConflictError('The deployment has ended; deploy the campaign again to place it anew');
      if (input.status !== undefined) deployment.status = input.status;
      if (input.priority !== undefined) deployment.priority = input.priority;
      if (input.startsAt !== undefined) deployment.startsAt = input.startsAt ? new Date(input.startsAt) : null;
      if (input.endsAt !== undefined) deployment.endsAt = input.endsAt ? new Date(input.endsAt) : null;
      checkSchedule(deployment.startsAt, deployment.endsAt);
      await scope.em.flush();
      await deps.republish.requestRepublish(scope, `deployment ${deployment.id} updated`);
      return toDeploymentView(deployment);
    },

    async listDeployments(
      scope: WorkspaceScope,
      input: {
        campaignId?: string;
        surfaceId?: string;
        status?: (typeof DEPLOYMENT_STATUSES)[number];
        cursor?: string;
        limit?: number;
      },
    ): Promise<Page<DeploymentView>> {
      if (input.campaignId) await findCampaign(scope, input.campaignId);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Deployment,
        {
          workspace: scope.workspaceId,
          ...(input.campaignId ? { campaign: input.campaignId } : {}),
          ...(input.surfaceId ? { surface: input.surfaceId } : {}),
          ...(input.status ? { status: input.status } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, toDeploymentView);
    },
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
export { CAMPAIGN_STATUSES, DEPLOYMENT_STATUSES };
