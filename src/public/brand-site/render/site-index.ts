/**
 * One pass over a publication that every page builder reads: products and campaigns indexed by id, the
 * campaigns featuring each product, the brand pages with their normalized paths, and each page's
 * Last-Modified. Built once so rendering stays linear in the size of the site (a thousand campaigns must not
 * mean a thousand scans of the campaign list per page).
 */
import type { PublicProduct } from '../../../domain/publishing/site-snapshot.ts';
import type { SiteSnapshot } from '../../../domain/publishing/site-snapshot.ts';
import { brandIdentity } from '../../well-known/agent-card.ts';
import { BRAND_PATHS, pageTitleFromPath, sitePaths, type PublishedSite } from '../site-model.ts';
import { isoTime, latestTime, oneLine } from './text.ts';

export type SnapshotCampaign = SiteSnapshot['campaigns'][number];
export type SnapshotSurface = SiteSnapshot['surfaces'][number];
export type SnapshotZone = SnapshotSurface['zones'][number];
export type SnapshotVariant = SnapshotCampaign['variants'][number];

/** A zone as the page shows it: the campaigns deployed there now, highest priority first. */
export interface PlacedZone {
  zone: SnapshotZone;
  surfaceId: string;
  campaigns: SnapshotCampaign[];
}

/** A `brand_page` surface that gets a page of its own (or, at `/`, whose zones join the home page). */
export interface SurfacePage {
  surface: SnapshotSurface;
  path: string;
  /** The page's public title, from its path (the surface's name is internal). */
  title: string;
  zones: PlacedZone[];
}

export interface SiteIndex {
  site: PublishedSite;
  origin: string;
  brandName: string;
  publishedAt: string;
  campaigns: SnapshotCampaign[];
  campaignById: Map<string, SnapshotCampaign>;
  /** Every product linked to a published campaign, once, in order of first appearance. */
  products: PublicProduct[];
  campaignsByProduct: Map<string, SnapshotCampaign[]>;
  /** Each campaign's products, each once, in the campaign's order. */
  productsByCampaign: Map<string, PublicProduct[]>;
  /** Active variants by campaign id, ordered by id (the order the sticky choice hashes over). */
  variantsByCampaign: Map<string, SnapshotVariant[]>;
  /** The brand page at `/`, whose zones are shown on the home page. */
  homeSurface: SurfacePage | null;
  surfacePages: SurfacePage[];
  campaignLastModified: Map<string, string>;
}

/** Paths the brand host serves itself or renders from other content; a brand page there would shadow them. */
const RESERVED_PATHS = [
  sitePaths.campaigns,
  sitePaths.products,
  '/_cp',
  '/.well-known',
  BRAND_PATHS.ask,
  BRAND_PATHS.a2a,
  '/llms.txt',
  '/robots.txt',
  '/sitemap.xml',
  '/auth.md',
];

export function isReservedPath(path: string): boolean {
  return RESERVED_PATHS.some((reserved) => path === reserved || path.startsWith(`${reserved}/`));
}

/**
 * The path a surface is served at: one slash between segments and none at the end (`/summer/` → `/summer`),
 * or null when it is not a path the surface rules allow (lower-case letters, digits, `-`).
 */
export function normalizeSurfacePath(raw: string | null): string | null {
  if (!raw) return null;
  const collapsed = raw.trim().replace(/\/{2,}/g, '/');
  const path = collapsed.length > 1 ? collapsed.replace(/\/+$/, '') : collapsed;
  return /^\/[a-z0-9\-/]*$/.test(path) ? path : null;
}

/**
 * A deployment is shown when the publication falls inside its window. Rendering has no clock of its own: the
 * publication time stands for "now", so a window that opens later shows from the first republish after it.
 */
function deploymentIsLive(deployment: { startsAt: string | null; endsAt: string | null }, at: number): boolean {
  if (deployment.startsAt && Date.parse(deployment.startsAt) > at) return false;
  if (deployment.endsAt && Date.parse(deployment.endsAt) <= at) return false;
  return true;
}

function placeZones(surface: SnapshotSurface, campaignById: Map<string, SnapshotCampaign>, at: number): PlacedZone[] {
  return surface.zones.map((zone) => {
    // Stable sort: equal priorities keep the snapshot's order (oldest deployment first).
    const deployments = [...zone.deployments].sort((a, b) => b.priority - a.priority);
    const seen = new Set<string>();
    const campaigns: SnapshotCampaign[] = [];
    for (const deployment of deployments) {
      const campaign = campaignById.get(deployment.campaignId);
      if (!campaign || seen.has(campaign.id) || !deploymentIsLive(deployment, at)) continue;
      seen.add(campaign.id);
      campaigns.push(campaign);
    }
    return { zone, surfaceId: surface.id, campaigns };
  });
}

/**
 * A campaign whose run ended at or before `at`: it has no page, no card and no slot any more (its offer is
 * over), and a visitor following an old link to it is told so (410, `endedCampaignAt`). The republish
 * workflow wakes at every campaign's end (`nextScheduleChange`), so this takes effect on time.
 */
export function hasEnded(campaign: SnapshotCampaign, at: number): boolean {
  const endsAt = campaign.endsAt ? Date.parse(campaign.endsAt) : Number.NaN;
  return Number.isFinite(endsAt) && endsAt <= at;
}

/** The ended campaign whose page was at `path`, or null (the path was never a campaign page, or it still is). */
export function endedCampaignAt(site: PublishedSite, path: string): SnapshotCampaign | null {
  const at = Date.parse(isoTime(site.publishedAt));
  return (
    site.snapshot.campaigns.find((campaign) => sitePaths.campaign(campaign.slug) === path && hasEnded(campaign, at)) ??
    null
  );
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function buildSiteIndex(site: PublishedSite): SiteIndex {
  const { snapshot } = site;
  const publishedAt = isoTime(site.publishedAt);
  const at = Date.parse(publishedAt);
  const brandUpdatedAt = snapshot.brand.updatedAt;

  const campaignById = new Map<string, SnapshotCampaign>();
  const campaigns: SnapshotCampaign[] = [];
  const seenSlugs = new Set<string>();
  for (const campaign of snapshot.campaigns) {
    // Slugs are unique per workspace; a duplicate would render two pages at one path.
    if (campaignById.has(campaign.id) || seenSlugs.has(campaign.slug) || hasEnded(campaign, at)) continue;
    campaignById.set(campaign.id, campaign);
    seenSlugs.add(campaign.slug);
    campaigns.push(campaign);
  }

  const productById = new Map<string, PublicProduct>();
  const campaignsByProduct = new Map<string, SnapshotCampaign[]>();
  const productsByCampaign = new Map<string, PublicProduct[]>();
  const variantsByCampaign = new Map<string, SnapshotVariant[]>();
  const campaignLastModified = new Map<string, string>();
  for (const campaign of campaigns) {
    const ownProducts = new Map<string, PublicProduct>();
    for (const product of campaign.products) {
      if (ownProducts.has(product.id)) continue;
      ownProducts.set(product.id, product);
      if (!productById.has(product.id)) productById.set(product.id, product);
      const featuring = campaignsByProduct.get(product.id);
      if (featuring) featuring.push(campaign);
      else campaignsByProduct.set(product.id, [campaign]);
    }
    productsByCampaign.set(campaign.id, [...ownProducts.values()]);
    const variants = campaign.variants.filter((variant) => variant.status === 'active').sort(byId);
    variantsByCampaign.set(campaign.id, variants);
    // What the campaign page shows: the campaign, its variants, its products, and the brand's name and colours.
    campaignLastModified.set(
      campaign.id,
      latestTime(publishedAt, [
        campaign.updatedAt,
        ...campaign.variants.map((variant) => variant.updatedAt),
        ...campaign.products.map((product) => product.updatedAt),
        brandUpdatedAt,
      ]),
    );
  }

  let homeSurface: SurfacePage | null = null;
  const surfacePages: SurfacePage[] = [];
  const takenPaths = new Set<string>();
  for (const surface of snapshot.surfaces) {
    if (surface.kind !== 'brand_page') continue;
    const path = normalizeSurfacePath(surface.path);
    if (!path || takenPaths.has(path) || isReservedPath(path)) continue;
    takenPaths.add(path);
    const page: SurfacePage = {
      surface,
      path,
      title: pageTitleFromPath(path) || brandIdentity(site).name,
      zones: placeZones(surface, campaignById, at),
    };
    if (path === sitePaths.home) homeSurface = page;
    else surfacePages.push(page);
  }

  return {
    site,
    origin: site.origin.replace(/\/+$/, ''),
    brandName: brandIdentity(site).name,
    publishedAt,
    campaigns,
    campaignById,
    products: [...productById.values()],
    campaignsByProduct,
    productsByCampaign,
    variantsByCampaign,
    homeSurface,
    surfacePages,
    campaignLastModified,
  };
}

/**
 * What the site says about a campaign where it has one line (lists, meta descriptions, JSON-LD, llms.txt):
 * its public summary, else the headline of its first active variant — copy written for the page anyway. The
 * snapshot holds no internal field (see site-snapshot.ts), so there is nothing else this could fall back to.
 */
export function campaignBlurb(index: SiteIndex, campaign: SnapshotCampaign): string | null {
  const text = campaign.summary ?? index.variantsByCampaign.get(campaign.id)?.[0]?.headline ?? null;
  return text ? oneLine(text) || null : null;
}

/** A brand page's one line: the campaigns it features now (its surface's description is internal). */
export function surfaceSummary(page: SurfacePage): string | null {
  const names = [...new Set(page.zones.flatMap((zone) => zone.campaigns.map((campaign) => oneLine(campaign.name))))];
  return names.length > 0 ? `Featuring ${names.join(', ')}.` : null;
}
