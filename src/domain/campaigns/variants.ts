/**
 * Variants of a campaign: the copy a visitor sees. Every save keeps the previous state in the variant's
 * history; saves and deletes on a published campaign republish its brand site.
 */
import { ConflictError, NotFoundError } from '../../errors.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { findCampaign, type RepublishPort } from './campaigns.ts';
import { VariantFields, VariantUpdate, type VariantInput, type VariantUpdateInput } from './campaign-schemas.ts';
import { assertEditable } from './campaign-status.ts';
import type { Campaign } from './campaign.entity.ts';
import { Variant, VariantVersion, type ChannelFields, type ImageRef } from './variant.entity.ts';

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

function snapshotOf(variant: Variant): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = toVariantView(variant);
  return rest;
}

/** A live variant of a live campaign of the scope's workspace, or "not found". */
export async function findVariant(scope: WorkspaceScope, variantId: string): Promise<Variant> {
  const variant = await scope.em.findOne(Variant, { id: variantId, deletedAt: null }, { populate: ['campaign'] });
  if (!variant || variant.campaign.getEntity().deletedAt) throw new NotFoundError('Variant', variantId);
  return variant;
}

export function createVariantOperations(deps: { republish: RepublishPort }) {
  async function republishIfPublished(scope: WorkspaceScope, campaign: Campaign, reason: string) {
    if (campaign.status === 'published') await deps.republish.requestRepublish(scope, reason);
  }

  return {
    findVariant,

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

    async createVariant(scope: WorkspaceScope, campaignId: string, input: VariantInput): Promise<VariantView> {
      const data = parseInput(VariantFields, input, 'variant');
      const campaign = await findCampaign(scope, campaignId);
      assertEditable(campaign, 'add a variant');
      const existing = await scope.em.count(Variant, { campaign: campaign.id, deletedAt: null });
      if (existing >= 10) throw new ConflictError('A campaign has at most 10 variants; delete one first');
      const makeControl = data.isControl ?? existing === 0;
      if (makeControl)
        await scope.em.nativeUpdate(Variant, { campaign: campaign.id, isControl: true }, { isControl: false });
      const variant = scope.em.create(Variant, {
        ...ownedBy(scope),
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
    async updateVariant(scope: WorkspaceScope, variantId: string, input: VariantUpdateInput): Promise<VariantView> {
      const data = parseInput(VariantUpdate, input, 'variant');
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
  };
}
