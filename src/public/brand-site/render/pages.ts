/**
 * The page builders: what each page of a brand site says, as a content model (content.ts) that the HTML and
 * markdown writers both render. One builder per kind of page: home, campaign index and campaign pages,
 * product index and product pages, and `brand_page` surfaces with their zones.
 */
import type { PublicProduct } from '../../../domain/publishing/site-snapshot.ts';
import { sitePaths } from '../site-model.ts';
import type { Block, Fact, LinkItem, PageContent } from './content.ts';
import { campaignGraph, homeGraph, listPageGraph, productGraph, productImages, surfaceGraph } from './json-ld.ts';
import {
  campaignBlurb,
  surfaceSummary,
  type PlacedZone,
  type SiteIndex,
  type SnapshotCampaign,
  type SurfacePage,
} from './site-index.ts';
import { campaignDates, displayDate, displayPrice, oneLine, safeUrl } from './text.ts';

export const EMPTY_TEXT = {
  zone: 'Nothing is featured here right now.',
  campaigns: 'No campaign is running right now.',
  products: 'No product is on show right now.',
} as const;

/** One line about a campaign for lists: its blurb and its dates. */
export function campaignSummary(index: SiteIndex, campaign: SnapshotCampaign): string | null {
  // "Autumn offer; runs 2026-11-01 to 2026-11-30": the blurb's final full stop would stand before the ';'.
  const blurb = campaignBlurb(index, campaign);
  const parts = [
    blurb ? oneLine(blurb, 200).replace(/\.$/, '') : null,
    campaignDates(campaign.startsAt, campaign.endsAt),
  ];
  const summary = parts.filter(Boolean).join('; ');
  return summary || null;
}

export function campaignLink(index: SiteIndex, campaign: SnapshotCampaign): LinkItem {
  return { text: campaign.name, href: sitePaths.campaign(campaign.slug), note: campaignSummary(index, campaign) };
}

export function productLink(product: PublicProduct): LinkItem {
  return { text: product.title, href: sitePaths.product(product.id), note: displayPrice(product) };
}

/** A list of links, or the line saying the list is empty. */
function linksOrEmpty(links: LinkItem[], empty: string): Block {
  return links.length > 0 ? { kind: 'links', links } : { kind: 'empty', text: empty };
}

/**
 * How a deployed campaign appears in a zone: a slot when it has an active variant; otherwise a fixed teaser
 * (its public summary and a link), because a slot without a variant renders nothing (see fragments.ts).
 */
function campaignPlacement(index: SiteIndex, campaign: SnapshotCampaign, placed: PlacedZone): Block[] {
  if ((index.variantsByCampaign.get(campaign.id) ?? []).length > 0) {
    return [{ kind: 'slot', slot: { campaignId: campaign.id, zoneId: placed.zone.id, surfaceId: placed.surfaceId } }];
  }
  return [
    ...(campaign.summary ? [{ kind: 'text' as const, text: campaign.summary }] : []),
    { kind: 'links', links: [{ text: `See ${oneLine(campaign.name, 120)}`, href: sitePaths.campaign(campaign.slug) }] },
  ];
}

/**
 * A zone's section: each campaign placed there under its own name. A zone's name is the team's label for the
 * slot ("Hero"), not something to show visitors; its key is a short identifier and anchors the section.
 */
function zoneBlocks(index: SiteIndex, zones: PlacedZone[]): Block[] {
  const blocks: Block[] = [];
  for (const placed of zones) {
    const anchor = /^[a-z0-9][a-z0-9-]*$/.test(placed.zone.key) ? `zone-${placed.zone.key}` : null;
    if (placed.campaigns.length === 0) blocks.push({ kind: 'empty', text: EMPTY_TEXT.zone });
    placed.campaigns.forEach((campaign, position) => {
      blocks.push({ kind: 'heading', level: 2, text: campaign.name, anchor: position === 0 ? anchor : null });
      blocks.push(...campaignPlacement(index, campaign, placed));
    });
  }
  return blocks;
}

function contactBlocks(index: SiteIndex): Block[] {
  const { profile } = index.site.snapshot.brand;
  const facts: Fact[] = [];
  const website = safeUrl(profile.website);
  if (website) facts.push({ label: 'Website', value: website, href: website });
  if (profile.contactEmail) {
    facts.push({ label: 'Email', value: profile.contactEmail, href: safeUrl(`mailto:${profile.contactEmail}`) });
  }
  for (const url of profile.sameAs) {
    const href = safeUrl(url);
    if (href && /^https?:/i.test(href)) facts.push({ label: 'Profile', value: href, href });
  }
  if (facts.length === 0) return [];
  return [
    { kind: 'heading', level: 2, text: 'Contact' },
    { kind: 'facts', facts },
  ];
}

export function homePage(index: SiteIndex): PageContent {
  const { profile, concierge } = index.site.snapshot.brand;
  const blocks: Block[] = [];
  if (profile.tagline) blocks.push({ kind: 'text', text: profile.tagline, lead: true });
  if (profile.description) blocks.push({ kind: 'text', text: profile.description });
  if (index.homeSurface) blocks.push(...zoneBlocks(index, index.homeSurface.zones));
  blocks.push({ kind: 'heading', level: 2, text: 'Campaigns' });
  blocks.push(
    linksOrEmpty(
      index.campaigns.map((campaign) => campaignLink(index, campaign)),
      EMPTY_TEXT.campaigns,
    ),
  );
  blocks.push({ kind: 'heading', level: 2, text: 'Products' });
  blocks.push(linksOrEmpty(index.products.map(productLink), EMPTY_TEXT.products));
  if (concierge.faq.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: 'Questions and answers' });
    for (const entry of concierge.faq) {
      blocks.push({ kind: 'heading', level: 3, text: entry.question }, { kind: 'text', text: entry.answer });
    }
  }
  blocks.push(...contactBlocks(index));
  const about = profile.tagline ?? profile.description;
  return {
    path: sitePaths.home,
    title: index.brandName,
    description: about ? oneLine(about) : null,
    lastModified: index.publishedAt,
    blocks,
    structuredData: homeGraph(index),
    slotHeadingLevel: 3,
  };
}

export function campaignsIndexPage(index: SiteIndex): PageContent {
  const title = 'Campaigns';
  return {
    path: sitePaths.campaigns,
    title,
    description: `The campaigns ${index.brandName} is running now.`,
    lastModified: index.publishedAt,
    blocks: [
      { kind: 'text', text: `The campaigns ${index.brandName} is running now.`, lead: true },
      linksOrEmpty(
        index.campaigns.map((campaign) => campaignLink(index, campaign)),
        EMPTY_TEXT.campaigns,
      ),
    ],
    structuredData: listPageGraph(
      index,
      sitePaths.campaigns,
      title,
      index.campaigns.map((campaign) => ({ path: sitePaths.campaign(campaign.slug), name: campaign.name })),
    ),
    slotHeadingLevel: 2,
  };
}

export function productsIndexPage(index: SiteIndex): PageContent {
  const title = 'Products';
  return {
    path: sitePaths.products,
    title,
    description: `The products in ${index.brandName}'s campaigns.`,
    lastModified: index.publishedAt,
    blocks: [
      { kind: 'text', text: `The products in ${index.brandName}'s campaigns.`, lead: true },
      linksOrEmpty(index.products.map(productLink), EMPTY_TEXT.products),
    ],
    structuredData: listPageGraph(
      index,
      sitePaths.products,
      title,
      index.products.map((product) => ({ path: sitePaths.product(product.id), name: product.title })),
    ),
    slotHeadingLevel: 2,
  };
}

export function campaignPage(index: SiteIndex, campaign: SnapshotCampaign): PageContent {
  const lastModified = index.campaignLastModified.get(campaign.id) ?? index.publishedAt;
  const products = index.productsByCampaign.get(campaign.id) ?? [];
  const blocks: Block[] = [];
  // The lead is the public summary only: without one, the variant below already says what the campaign is.
  if (campaign.summary) blocks.push({ kind: 'text', text: campaign.summary, lead: true });
  const facts: Fact[] = [];
  if (campaign.startsAt)
    facts.push({ label: 'Starts', value: displayDate(campaign.startsAt), datetime: campaign.startsAt });
  if (campaign.endsAt) facts.push({ label: 'Ends', value: displayDate(campaign.endsAt), datetime: campaign.endsAt });
  if (facts.length > 0) blocks.push({ kind: 'facts', facts });
  // Without an active variant the page still has the campaign's name and summary (see fragments.ts).
  if ((index.variantsByCampaign.get(campaign.id) ?? []).length > 0) {
    blocks.push({ kind: 'slot', slot: { campaignId: campaign.id, zoneId: null, surfaceId: null } });
  }
  if (products.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: 'Products' }, { kind: 'links', links: products.map(productLink) });
  }
  return {
    path: sitePaths.campaign(campaign.slug),
    title: campaign.name,
    description: campaignBlurb(index, campaign),
    lastModified,
    blocks,
    structuredData: campaignGraph(index, campaign, lastModified),
    slotHeadingLevel: 2,
  };
}

export function productPage(index: SiteIndex, product: PublicProduct): PageContent {
  const blocks: Block[] = [];
  if (product.description) blocks.push({ kind: 'text', text: product.description, lead: true });
  const facts: Fact[] = [];
  const price = displayPrice(product);
  if (price) facts.push({ label: 'Price', value: price });
  facts.push({ label: 'Brand', value: product.brand ?? index.brandName });
  if (product.sku) facts.push({ label: 'SKU', value: product.sku });
  for (const [label, value] of Object.entries(product.attributes ?? {})) facts.push({ label, value: String(value) });
  const shop = safeUrl(product.url);
  if (shop && /^https?:/i.test(shop))
    facts.push({ label: 'Shop', value: shop, href: shop, untrusted: product.untrusted });
  blocks.push({ kind: 'facts', facts });
  const images = productImages(product).map((src) => ({ src, alt: product.title }));
  if (images.length > 0) blocks.push({ kind: 'images', images });
  const featuring = index.campaignsByProduct.get(product.id) ?? [];
  blocks.push({ kind: 'heading', level: 2, text: 'Featured in' });
  blocks.push(
    linksOrEmpty(
      featuring.map((campaign) => campaignLink(index, campaign)),
      EMPTY_TEXT.campaigns,
    ),
  );
  return {
    path: sitePaths.product(product.id),
    title: product.title,
    description: product.description ? oneLine(product.description) : null,
    lastModified: index.publishedAt,
    blocks,
    structuredData: productGraph(index, product),
    slotHeadingLevel: 2,
  };
}

export function surfacePage(index: SiteIndex, page: SurfacePage): PageContent {
  const blocks: Block[] = zoneBlocks(index, page.zones);
  return {
    path: sitePaths.surface(page.path),
    title: page.title,
    description: surfaceSummary(page),
    lastModified: index.publishedAt,
    blocks,
    structuredData: surfaceGraph(index, page),
    slotHeadingLevel: 3,
  };
}

/**
 * The page a person sees for a path the site does not have (served with 404): where they are, what they asked
 * for, and the ways on — home, the live campaigns, the products — instead of an error body.
 */
export function notFoundPage(index: SiteIndex, path: string): PageContent {
  const live = index.campaigns.slice(0, 5).map((campaign) => campaignLink(index, campaign));
  return {
    path,
    title: 'Page not found',
    description: null,
    lastModified: index.publishedAt,
    blocks: [
      {
        kind: 'text',
        text: `There is no page at ${oneLine(path, 200)} on this site. It may have moved, or the campaign may have ended.`,
        lead: true,
      },
      ...(live.length
        ? [
            { kind: 'heading' as const, level: 2 as const, text: 'Live campaigns' },
            { kind: 'links' as const, links: live },
          ]
        : []),
      ...(live.length ? [{ kind: 'heading' as const, level: 2 as const, text: 'More of the site' }] : []),
      {
        kind: 'links',
        links: [
          { text: `${index.brandName} home`, href: sitePaths.home },
          { text: 'All campaigns', href: sitePaths.campaigns },
          { text: 'All products', href: sitePaths.products },
        ],
      },
    ],
    structuredData: [],
    slotHeadingLevel: 2,
  };
}
