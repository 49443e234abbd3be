/**
 * The campaign aggregate: create, read, change, delete, publish. Every query is scoped by workspace; another
 * workspace's campaign is "not found". Changes a live brand site shows request a republish.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { Product } from '../products/product.entity.ts';
import type { Page } from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { slugify } from '../workspaces/slug.ts';
import { readCampaignPage, type CampaignListFilter } from './campaign-list.ts';
import { CampaignFields, CampaignUpdate, type CampaignInput, type CampaignUpdateInput } from './campaign-schemas.ts';
import { assertCampaignTransition, checkSchedule, type CampaignStatus } from './campaign-status.ts';
import { toCampaignView, type CampaignView } from './campaign-view.ts';
import { Campaign } from './campaign.entity.ts';
import { Deployment } from './deployment.entity.ts';
import { Variant } from './variant.entity.ts';

/** What the campaign service needs from publishing (the republish workflow). */
export interface RepublishPort {
  requestRepublish(scope: WorkspaceScope, reason: string): Promise<void>;
}

/** A live campaign of the scope's workspace, with its products, or "not found". */
export async function findCampaign(scope: WorkspaceScope, campaignId: string): Promise<Campaign> {
  const campaign = await scope.em.findOne(Campaign, { id: campaignId, deletedAt: null }, { populate: ['products'] });
  if (!campaign) throw new NotFoundError('Campaign', campaignId);
  return campaign;
}

/** A campaign's view with its live counts. */
/**
 * The names of campaigns by id, in one statement (pages that name many campaigns at once: what runs where, what
 * a job is for). Deleted campaigns keep their names (a past job still says what it was for); ids of another
 * workspace are absent, as if they did not exist.
 */
export async function campaignNames(scope: WorkspaceScope, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await scope.em.find(Campaign, { id: { $in: unique } }, { fields: ['id', 'name'] });
  return new Map(rows.map((campaign) => [campaign.id, campaign.name]));
}

export async function campaignView(scope: WorkspaceScope, campaign: Campaign): Promise<CampaignView> {
  const [variantCount, activeDeployments] = await Promise.all([
    scope.em.count(Variant, { campaign: campaign.id, deletedAt: null }),
    scope.em.count(Deployment, { campaign: campaign.id, status: 'active' }),
  ]);
  return toCampaignView(campaign, {
    variantCount,
    activeDeployments,
    productIds: campaign.products.isInitialized() ? campaign.products.getItems().map((p) => p.id) : [],
  });
}

async function productsOf(scope: WorkspaceScope, ids: string[]): Promise<Product[]> {
  const unique = [...new Set(ids)];
  const products = await scope.em.find(Product, {
    id: { $in: unique },
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

/**
 * `orm` lends the list its connection pool, so the most frequent read needs no request EntityManager.
 */
export function createCampaignOperations(deps: { republish: RepublishPort; orm: MikroORM }) {
  return {
    findCampaign,
    /** Throws "not found" for the first id that is not a live product of the workspace. */
    assertProducts: async (scope: WorkspaceScope, ids: string[]) => {
      await productsOf(scope, ids);
    },
    view: campaignView,

    async list(scope: WorkspaceScope, input: CampaignListFilter): Promise<Page<CampaignView>> {
      return readCampaignPage(deps.orm, scope.workspaceId, input);
    },

    async get(scope: WorkspaceScope, campaignId: string): Promise<CampaignView> {
      return campaignView(scope, await findCampaign(scope, campaignId));
    },

    /**
     * Creates a draft campaign. `generating` creates it already in generation (a `generate_campaign start`
     * without a campaign): one write instead of a create followed by `beginGeneration`.
     */
    async create(
      scope: WorkspaceScope,
      input: CampaignInput,
      options: { generating?: boolean } = {},
    ): Promise<CampaignView> {
      const data = parseInput(CampaignFields, input, 'campaign');
      const startsAt = data.startsAt ? new Date(data.startsAt) : null;
      const endsAt = data.endsAt ? new Date(data.endsAt) : null;
      checkSchedule(startsAt, endsAt);
      const products = await productsOf(scope, data.productIds ?? []);
      const campaign = scope.em.create(Campaign, {
        ...ownedBy(scope),
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
      return toCampaignView(campaign, { variantCount: 0, activeDeployments: 0, productIds: products.map((p) => p.id) });
    },

    async update(
      scope: WorkspaceScope,
      campaignId: string,
      input: Omit<CampaignUpdateInput, 'status'> & { status?: CampaignStatus },
    ): Promise<CampaignView> {
      const data = parseInput(CampaignUpdate, input, 'campaign');
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
      return campaignView(scope, campaign);
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
      return campaignView(scope, campaign);
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
      return campaignView(scope, campaign);
    },
  };
}
