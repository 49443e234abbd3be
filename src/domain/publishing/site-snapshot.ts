/**
 * What is public on a workspace's brand site right now, read from the live tables. The republish workflow
 * freezes this into a `SitePublication`; nothing here is served directly, but everything here may be: every
 * renderer (pages, markdown twins, llms.txt, JSON-LD, sitemap, agent card and skills) and the concierge read
 * the snapshot and nothing else.
 *
 * So the snapshot holds PUBLIC FIELDS ONLY, copied one by one (never spread from a view, so a field added to
 * an entity stays internal until someone decides otherwise here). Internal notes — a campaign's objective,
 * brief, channels and goals; variant labels; surface names and descriptions; zone names and constraints; the
 * brand's voice guide and copy rules; where a product was imported from — are not in these types, so no
 * renderer can reach them. `publicSnapshot` is the one place that decides; stored publications are read back
 * through it too, so one written before a field became internal is cut down when it is served.
 */
import type { WorkspaceScope } from '../shared/scope.ts';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Deployment } from '../campaigns/deployment.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { toVariantView, type VariantView } from '../campaigns/variants.ts';
import { toProductView, type ProductView } from '../products/products.service.ts';
import { Surface, Zone } from '../surfaces/surface.entity.ts';
import type { BrandView } from '../brand/brand.service.ts';
import type { Brandbook, BrandProfile, ConciergeSettings } from '../brand/brand.entity.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

/**
 * Which rules a stored publication and its rendered documents were made by. Bump it when a change to the
 * snapshot or the renderers must reach sites that are already published: on start the API republishes every
 * site whose latest publication is older (`republishOutdatedSites`), so no stored page goes on serving what
 * is no longer public. 1: pages led with the campaign objective; 2: public fields only; 3: pages for people
 * (hero, product photos, the ask box, a CSP) and ended campaigns taken off the site.
 */
export const PUBLICATION_FORMAT = 3;

/** The brand as visitors see it: its profile, its look, and what its concierge says. Not the voice guide. */
export interface PublicBrand {
  /** Name, tagline, about text, website, contact address, profiles: the brand's own public words. */
  profile: BrandProfile;
  /** Colours, fonts and logo; the brand book's copy rules are internal. */
  brandbook: Pick<Brandbook, 'colors' | 'fonts' | 'logoUrl'>;
  /** Whether the concierge answers, and its greeting, FAQ and escalation text. */
  concierge: ConciergeSettings;
  updatedAt: string | null;
}

/** What a product page shows. Not where it was imported from. */
export type PublicProduct = Pick<
  ProductView,
  | 'id'
  | 'title'
  | 'description'
  | 'price'
  | 'currency'
  | 'images'
  | 'url'
  | 'brand'
  | 'sku'
  | 'attributes'
  | 'untrusted'
  | 'updatedAt'
>;

/** An active variant's creative and its traffic weight. Not its label, channel copy or provenance. */
export interface PublicVariant extends Pick<
  VariantView,
  'id' | 'headline' | 'body' | 'callToAction' | 'ctaUrl' | 'status' | 'weight' | 'updatedAt'
> {
  /** Image URLs and alt texts (not the media ids behind them). */
  imageRefs: { url: string; alt?: string }[];
}

export interface PublicCampaign {
  id: string;
  /** The campaign page's title. */
  name: string;
  /** The campaign's public summary as written, or null (renderers then use the active variant's copy). */
  summary: string | null;
  slug: string;
  startsAt: string | null;
  endsAt: string | null;
  publishedAt: string | null;
  updatedAt: string;
  variants: PublicVariant[];
  products: PublicProduct[];
}

/** A brand page: where it is and which slots it has. Its name and description are the team's notes. */
export interface PublicSurface {
  id: string;
  kind: string;
  path: string | null;
  zones: {
    id: string;
    /** A short slot key (`hero`, `sidebar-1`): an identifier, used as the section's anchor. */
    key: string;
    kind: string;
    deployments: {
      id: string;
      campaignId: string;
      priority: number;
      startsAt: string | null;
      endsAt: string | null;
    }[];
  }[];
}

export interface SiteSnapshot {
  /** The workspace name is the brand's name until the profile sets a display name. */
  workspace: { id: string; name: string; slug: string };
  brand: PublicBrand;
  campaigns: PublicCampaign[];
  surfaces: PublicSurface[];
}

// Loose shapes of whatever `publicSnapshot` is given: live views, or a stored publication of any age.
type Loose = Record<string, unknown>;
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;
const list = (value: unknown): Loose[] =>
  Array.isArray(value) ? value.filter((item): item is Loose => !!item && typeof item === 'object') : [];
const record = (value: unknown): Loose => (value && typeof value === 'object' ? (value as Loose) : {});

/** The named string members of `value` (a missing one stays missing: the stylesheet has defaults). */
function pick<K extends string>(value: Loose, keys: readonly K[]): Record<K, string> {
  return Object.fromEntries(
    keys.flatMap((key) => (typeof value[key] === 'string' ? [[key, value[key]]] : [])),
  ) as Record<K, string>;
}

function publicBrand(brand: Loose): PublicBrand {
  const profile = record(brand.profile);
  const brandbook = record(brand.brandbook);
  const concierge = record(brand.concierge);
  return {
    profile: {
      displayName: str(profile.displayName) ?? '',
      tagline: str(profile.tagline),
      description: str(profile.description),
      website: str(profile.website),
      contactEmail: str(profile.contactEmail),
      sameAs: Array.isArray(profile.sameAs)
        ? profile.sameAs.filter((url): url is string => typeof url === 'string')
        : [],
    },
    brandbook: {
      // Field by field here too: a stored brand book may carry more than colours and fonts.
      colors: pick(record(brandbook.colors), ['primary', 'secondary', 'accent', 'background', 'text']),
      fonts: pick(record(brandbook.fonts), ['heading', 'body']),
      logoUrl: str(brandbook.logoUrl),
    },
    concierge: {
      enabled: concierge.enabled !== false,
      greeting: str(concierge.greeting),
      faq: list(concierge.faq).map((entry) => ({
        question: str(entry.question) ?? '',
        answer: str(entry.answer) ?? '',
      })),
      escalation: str(concierge.escalation),
    },
    updatedAt: str(brand.updatedAt),
  };
}

function publicProduct(product: Loose): PublicProduct {
  return {
    id: String(product.id),
    title: str(product.title) ?? '',
    description: str(product.description),
    price: typeof product.price === 'number' ? product.price : null,
    currency: str(product.currency),
    images: Array.isArray(product.images) ? product.images.filter((url): url is string => typeof url === 'string') : [],
    url: str(product.url),
    brand: str(product.brand),
    sku: str(product.sku),
    attributes: Object.fromEntries(
      Object.entries(record(product.attributes)).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    ),
    untrusted: product.untrusted === true,
    updatedAt: str(product.updatedAt) ?? '',
  };
}

function publicVariant(variant: Loose): PublicVariant {
  return {
    id: String(variant.id),
    headline: str(variant.headline) ?? '',
    body: str(variant.body) ?? '',
    callToAction: str(variant.callToAction) ?? '',
    ctaUrl: str(variant.ctaUrl),
    imageRefs: list(variant.imageRefs).map((ref) => ({
      url: str(ref.url) ?? '',
      ...(typeof ref.alt === 'string' ? { alt: ref.alt } : {}),
    })),
    status: variant.status === 'paused' ? 'paused' : 'active',
    weight: num(variant.weight, 50),
    updatedAt: str(variant.updatedAt) ?? '',
  };
}

function publicCampaign(campaign: Loose): PublicCampaign {
  return {
    id: String(campaign.id),
    name: str(campaign.name) ?? '',
    // `summary` is what a stored snapshot calls it; `publicSummary` what the campaign view calls it.
    summary: str(campaign.summary) ?? str(campaign.publicSummary),
    slug: String(campaign.slug),
    startsAt: str(campaign.startsAt),
    endsAt: str(campaign.endsAt),
    publishedAt: str(campaign.publishedAt),
    updatedAt: str(campaign.updatedAt) ?? '',
    variants: list(campaign.variants).map(publicVariant),
    products: list(campaign.products).map(publicProduct),
  };
}

function publicSurface(surface: Loose): PublicSurface {
  return {
    id: String(surface.id),
    kind: String(surface.kind),
    path: str(surface.path),
    zones: list(surface.zones).map((zone) => ({
      id: String(zone.id),
      key: str(zone.key) ?? '',
      kind: String(zone.kind),
      deployments: list(zone.deployments).map((deployment) => ({
        id: String(deployment.id),
        campaignId: String(deployment.campaignId),
        priority: num(deployment.priority, 0),
        startsAt: str(deployment.startsAt),
        endsAt: str(deployment.endsAt),
      })),
    })),
  };
}

/**
 * The public part of a snapshot-shaped value: exactly the fields of `SiteSnapshot`, copied one by one. The
 * one place that decides what a brand site may show; used when a publication is written and when one is read.
 */
export function publicSnapshot(raw: unknown): SiteSnapshot {
  const snapshot = record(raw);
  const workspace = record(snapshot.workspace);
  return {
    workspace: { id: String(workspace.id), name: str(workspace.name) ?? '', slug: String(workspace.slug) },
    brand: publicBrand(record(snapshot.brand)),
    campaigns: list(snapshot.campaigns).map(publicCampaign),
    surfaces: list(snapshot.surfaces).map(publicSurface),
  };
}

/** What the workspace of `scope` shows the public now (its EntityManager limits every read to it). */
export async function readSiteSnapshot(scope: WorkspaceScope, brand: BrandView): Promise<SiteSnapshot> {
  const { em } = scope;
  const workspace = await em.findOneOrFail(Workspace, { id: scope.workspaceId });
  const campaigns = await em.find(
    Campaign,
    { status: 'published', deletedAt: null },
    { populate: ['products'], orderBy: { publishedAt: 'desc', id: 'asc' } },
  );
  const variants = await em.find(
    Variant,
    { campaign: { $in: campaigns.map((c) => c.id) }, deletedAt: null, status: 'active' },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const surfaces = await em.find(Surface, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const zones = await em.find(Zone, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const deployments = await em.find(
    Deployment,
    { status: 'active', campaign: { $in: campaigns.map((c) => c.id) } },
    { orderBy: { priority: 'desc', createdAt: 'asc' } },
  );
  const variantViews: VariantView[] = variants.map(toVariantView);
  return publicSnapshot({
    workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
    brand,
    campaigns: campaigns.map((c) => ({
      id: c.id,
      name: c.name,
      publicSummary: c.publicSummary ?? null,
      slug: c.slug,
      startsAt: c.startsAt?.toISOString() ?? null,
      endsAt: c.endsAt?.toISOString() ?? null,
      publishedAt: c.publishedAt?.toISOString() ?? null,
      updatedAt: c.updatedAt.toISOString(),
      variants: variantViews.filter((v) => v.campaignId === c.id),
      products: c.products
        .getItems()
        .filter((p) => !p.deletedAt)
        .map((p): ProductView => toProductView(p)),
    })),
    surfaces: surfaces.map((s) => ({
      id: s.id,
      kind: s.kind,
      path: s.path ?? null,
      zones: zones
        .filter((z) => z.surface.id === s.id)
        .map((z) => ({
          id: z.id,
          key: z.key,
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
  });
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
