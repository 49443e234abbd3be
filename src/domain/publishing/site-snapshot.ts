/**
 * What is public on a workspace's brand site right now, read from the live tables. The republish workflow
 * freezes this into a `SitePublication`; nothing here is served directly.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Deployment } from '../campaigns/deployment.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { toVariantView, type VariantView } from '../campaigns/campaigns.service.ts';
import { toProductView, type ProductView } from '../products/products.service.ts';
import { Surface, Zone } from '../surfaces/surface.entity.ts';
import type { BrandView } from '../brand/brand.service.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

export interface SiteSnapshot {
  workspace: { id: string; name: string; slug: string };
  brand: BrandView;
  campaigns: {
    id: string;
    name: string;
    objective: string | null;
    slug: string;
    channels: string[];
    startsAt: string | null;
    endsAt: string | null;
    publishedAt: string | null;
    updatedAt: string;
    variants: VariantView[];
    products: ProductView[];
  }[];
  surfaces: {
    id: string;
    name: string;
    kind: string;
    path: string | null;
    channel: string | null;
    description: string | null;
    zones: {
      id: string;
      key: string;
      name: string;
      kind: string;
      deployments: {
        id: string;
        campaignId: string;
        priority: number;
        startsAt: string | null;
        endsAt: string | null;
      }[];
    }[];
  }[];
}

export async function readSiteSnapshot(
  em: EntityManager,
  workspaceId: string,
  brand: BrandView,
): Promise<SiteSnapshot> {
  const workspace = await em.findOneOrFail(Workspace, { id: workspaceId });
  const campaigns = await em.find(
    Campaign,
    { workspace: workspaceId, status: 'published', deletedAt: null },
    { populate: ['products'], orderBy: { publishedAt: 'desc', id: 'asc' } },
  );
  const variants = await em.find(
    Variant,
    { workspace: workspaceId, campaign: { $in: campaigns.map((c) => c.id) }, deletedAt: null, status: 'active' },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const surfaces = await em.find(Surface, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const zones = await em.find(Zone, { workspace: workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const deployments = await em.find(
    Deployment,
    { workspace: workspaceId, status: 'active', campaign: { $in: campaigns.map((c) => c.id) } },
    { orderBy: { priority: 'desc', createdAt: 'asc' } },
  );
  return {
    workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
    brand,
    campaigns: campaigns.map((c) => ({
      id: c.id,
      name: c.name,
      objective: c.objective ?? null,
      slug: c.slug,
      channels: c.channels,
      startsAt: c.startsAt?.toISOString() ?? null,
      endsAt: c.endsAt?.toISOString() ?? null,
      publishedAt: c.publishedAt?.toISOString() ?? null,
      updatedAt: c.updatedAt.toISOString(),
      variants: variants.filter((v) => v.campaign.id === c.id).map(toVariantView),
      products: c.products
        .getItems()
        .filter((p) => !p.deletedAt)
        .map(toProductView),
    })),
    surfaces: surfaces.map((s) => ({
      id: s.id,
      name: s.name,
      kind: s.kind,
      path: s.path ?? null,
      channel: s.channel ?? null,
      description: s.description ?? null,
      zones: zones
        .filter((z) => z.surface.id === s.id)
        .map((z) => ({
          id: z.id,
          key: z.key,
          name: z.name,
          kind: z.kind,
          deployments: deployments
            .filter((d) => d.zone.id === z.id)
            .map((d) => ({
              id: d.id,
              campaignId: d.campaign.id,
              priority: d.priority,
              startsAt: d.startsAt?.toISOString() ?? null,
              endsAt: d.endsAt?.toISOString() ?? null,
            })),
        })),
    })),
  };
}

/**
 * The next moment after `after` at which what the site shows changes by itself: a deployment or campaign
 * window opening or closing. Pages are rendered for their publication time, so the republish workflow sleeps
 * until this moment and republishes then. Null when nothing is scheduled.
 */
export function nextScheduleChange(snapshot: SiteSnapshot, after: Date): string | null {
  const times: number[] = [];
  const consider = (value: string | null) => {
    const at = value ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(at) && at > after.getTime()) times.push(at);
  };
  for (const campaign of snapshot.campaigns) {
    consider(campaign.startsAt);
    consider(campaign.endsAt);
  }
  for (const surface of snapshot.surfaces) {
    for (const zone of surface.zones) {
      for (const deployment of zone.deployments) {
        consider(deployment.startsAt);
        consider(deployment.endsAt);
      }
    }
  }
  return times.length ? new Date(Math.min(...times)).toISOString() : null;
}
