/**
 * The page builders: what each page of a brand site says, as a content model (content.ts) that the HTML and
 * markdown writers both render. One builder per kind of page: home, campaign index and campaign pages,
 * product index and product pages, `brand_page` surfaces with their zones, and the page for a missing path.
 *
 * What is said is the same in both forms; where it is said differs. HTML heads a page with a band (the
 * title, the page's `intro`, and the product photo beside them), puts the lead campaign in a hero on the
 * home page, and shows campaigns and products as cards; the twin writes `intro` and `blocks` in order, as
 * it always has.
 */
import type { PublicProduct } from '../../../domain/publishing/site-snapshot.ts';
import { sitePaths } from '../site-model.ts';
import type { Block, CardItem, Fact, Feature, ImageItem, LinkItem, PageContent, SlotStyle } from './content.ts';
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

/** A product's first usable photo, described by its title. */
function productPhoto(product: PublicProduct): ImageItem | null {
  const src = productImages(product)[0];
  return src ? { src, alt: product.title } : null;
}

/** The photo a campaign is shown with: the first of its products that has one. */
export function campaignPhoto(index: SiteIndex, campaign: SnapshotCampaign): ImageItem | null {
  for (const product of index.productsByCampaign.get(campaign.id) ?? []) {
    const photo = productPhoto(product);
    if (photo) return photo;
  }
  return null;
}

function campaignCard(index: SiteIndex, campaign: SnapshotCampaign): CardItem {
  return { ...campaignLink(index, campaign), image: campaignPhoto(index, campaign) };
}

function productCard(product: PublicProduct): CardItem {
  return { ...productLink(product), image: productPhoto(product) };
}

/** Cards, or the line saying the list is empty. */
function cardsOrEmpty(cards: CardItem[], empty: string): Block {
  return cards.length > 0 ? { kind: 'cards', cards } : { kind: 'empty', text: empty };
}

/** A campaign has something to splice into a slot only with an active variant (see fragments.ts). */
function hasVariants(index: SiteIndex, campaign: SnapshotCampaign): boolean {
  return (index.variantsByCampaign.get(campaign.id) ?? []).length > 0;
}

/** Variants in zones: a headline under the campaign's name, with the variant's own picture. */
const ZONE_SLOT: SlotStyle = { level: 3, image: true };

/**
 * How a deployed campaign appears in a zone: a slot when it has an active variant; otherwise a fixed teaser
 * (its public summary and a link), because a slot without a variant renders nothing (see fragments.ts).
 */
function campaignPlacement(index: SiteIndex, campaign: SnapshotCampaign, placed: PlacedZone): Block[] {
  if (hasVariants(index, campaign)) {
    return [
      {
        kind: 'slot',
        slot: { campaignId: campaign.id, zoneId: placed.zone.id, surfaceId: placed.surfaceId },
        style: ZONE_SLOT,
      },
    ];
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

/** How to reach the brand: its website, address and profiles (the footer of every page, the home twin). */
export function contactFacts(index: SiteIndex): Fact[] {
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
  return facts;
}

/**
 * The home page's hero: the first live campaign with a variant to show that no zone of the home page already
 * places (a campaign twice on one page would report two impressions of one view).
 */
function leadCampaign(index: SiteIndex): SnapshotCampaign | null {
  const placed = new Set(index.homeSurface?.zones.flatMap((zone) => zone.campaigns.map((campaign) => campaign.id)));
  return index.campaigns.find((campaign) => hasVariants(index, campaign) && !placed.has(campaign.id)) ?? null;
}

function homeFeature(index: SiteIndex): Feature | null {
  const campaign = leadCampaign(index);
  if (!campaign) return null;
  const image = campaignPhoto(index, campaign);
  return {
    campaignName: campaign.name,
    campaignHref: sitePaths.campaign(campaign.slug),
    image,
    // With the product photo beside it the variant is text; without one, its own picture stands in.
    slot: {
      kind: 'slot',
      slot: { campaignId: campaign.id, zoneId: null, surfaceId: null },
      style: { level: 2, image: image === null },
    },
  };
}

export function homePage(index: SiteIndex): PageContent {
  const { profile, concierge } = index.site.snapshot.brand;
  const intro: Block[] = [];
  if (profile.tagline) intro.push({ kind: 'text', text: profile.tagline, lead: true });
  if (profile.description) intro.push({ kind: 'text', text: profile.description });
  const blocks: Block[] = [];
  if (index.homeSurface) blocks.push(...zoneBlocks(index, index.homeSurface.zones));
  blocks.push({ kind: 'heading', level: 2, text: 'Campaigns' });
  blocks.push(
    cardsOrEmpty(
      index.campaigns.map((campaign) => campaignCard(index, campaign)),
      EMPTY_TEXT.campaigns,
    ),
  );
  blocks.push({ kind: 'heading', level: 2, text: 'Products' });
  blocks.push(cardsOrEmpty(index.products.map(productCard), EMPTY_TEXT.products));
  if (concierge.faq.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: 'Questions and answers' });
    for (const entry of concierge.faq) {
      blocks.push({ kind: 'heading', level: 3, text: entry.question }, { kind: 'text', text: entry.answer });
    }
  }
  const contact = contactFacts(index);
  if (contact.length > 0) {
    // Every HTML page has the contact details in its footer; the twin keeps its own section.
    blocks.push(
      { kind: 'heading', level: 2, text: 'Contact', only: 'markdown' },
      { kind: 'facts', facts: contact, only: 'markdown' },
    );
  }
  const about = profile.tagline ?? profile.description;
  return {
    path: sitePaths.home,
    title: index.brandName,
    description: about ? oneLine(about) : null,
    lastModified: index.publishedAt,
    intro,
    media: [],
    titleStyle: 'display',
    feature: homeFeature(index),
    blocks,
    structuredData: homeGraph(index),
    askBox: true,
  };
}

export function campaignsIndexPage(index: SiteIndex): PageContent {
  const title = 'Campaigns';
  return {
    path: sitePaths.campaigns,
    title,
    description: `The campaigns ${index.brandName} is running now.`,
    lastModified: index.publishedAt,
    intro: [{ kind: 'text', text: `The campaigns ${index.brandName} is running now.`, lead: true }],
    media: [],
    titleStyle: 'display',
    feature: null,
    blocks: [
      cardsOrEmpty(
        index.campaigns.map((campaign) => campaignCard(index, campaign)),
        EMPTY_TEXT.campaigns,
      ),
    ],
    structuredData: listPageGraph(
      index,
      sitePaths.campaigns,
      title,
      index.campaigns.map((campaign) => ({ path: sitePaths.campaign(campaign.slug), name: campaign.name })),
    ),
    askBox: true,
  };
}

export function productsIndexPage(index: SiteIndex): PageContent {
  const title = 'Products';
  return {
    path: sitePaths.products,
    title,
    description: `The products in ${index.brandName}'s campaigns.`,
    lastModified: index.publishedAt,
    intro: [{ kind: 'text', text: `The products in ${index.brandName}'s campaigns.`, lead: true }],
    media: [],
    titleStyle: 'display',
    feature: null,
    blocks: [cardsOrEmpty(index.products.map(productCard), EMPTY_TEXT.products)],
    structuredData: listPageGraph(
      index,
      sitePaths.products,
      title,
      index.products.map((product) => ({ path: sitePaths.product(product.id), name: product.title })),
    ),
    askBox: true,
  };
}

export function campaignPage(index: SiteIndex, campaign: SnapshotCampaign): PageContent {
  const lastModified = index.campaignLastModified.get(campaign.id) ?? index.publishedAt;
  const products = index.productsByCampaign.get(campaign.id) ?? [];
  const media = campaignPhoto(index, campaign);
  const intro: Block[] = [];
  // The lead is the public summary only: without one, the variant below already says what the campaign is.
  if (campaign.summary) intro.push({ kind: 'text', text: campaign.summary, lead: true });
  const facts: Fact[] = [];
  if (campaign.startsAt)
    facts.push({ label: 'Starts', value: displayDate(campaign.startsAt), datetime: campaign.startsAt });
  if (campaign.endsAt) facts.push({ label: 'Ends', value: displayDate(campaign.endsAt), datetime: campaign.endsAt });
  if (facts.length > 0) intro.push({ kind: 'facts', facts });
  // Without an active variant the page still has the campaign's name and summary (see fragments.ts).
  const slotted = hasVariants(index, campaign);
  if (slotted) {
    intro.push({
      kind: 'slot',
      slot: { campaignId: campaign.id, zoneId: null, surfaceId: null },
      // The product photo heads the page; the variant's own picture only where there is none.
      style: { level: 2, image: media === null },
    });
  }
  const blocks: Block[] = [];
  if (products.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: 'Products' }, { kind: 'cards', cards: products.map(productCard) });
  }
  return {
    path: sitePaths.campaign(campaign.slug),
    title: campaign.name,
    description: campaignBlurb(index, campaign),
    lastModified,
    intro,
    media: media ? [media] : [],
    // The variant's headline is the page's message; the campaign's name labels it.
    titleStyle: slotted ? 'label' : 'display',
    feature: null,
    blocks,
    structuredData: campaignGraph(index, campaign, lastModified),
    askBox: true,
  };
}

export function productPage(index: SiteIndex, product: PublicProduct): PageContent {
  const intro: Block[] = [];
  if (product.description) intro.push({ kind: 'text', text: product.description, lead: true });
  const facts: Fact[] = [];
  const price = displayPrice(product);
  if (price) facts.push({ label: 'Price', value: price, highlight: true });
  facts.push({ label: 'Brand', value: product.brand ?? index.brandName });
  if (product.sku) facts.push({ label: 'SKU', value: product.sku });
  for (const [label, value] of Object.entries(product.attributes ?? {})) facts.push({ label, value: String(value) });
  const shop = safeUrl(product.url);
  if (shop && /^https?:/i.test(shop))
    facts.push({ label: 'Shop', value: shop, href: shop, untrusted: product.untrusted });
  intro.push({ kind: 'facts', facts });
  const images = productImages(product).map((src) => ({ src, alt: product.title }));
  // In HTML the photos head the page (see `media`); the twin lists them where it always did.
  if (images.length > 0) intro.push({ kind: 'images', images, only: 'markdown' });
  const blocks: Block[] = [];
  const featuring = index.campaignsByProduct.get(product.id) ?? [];
  blocks.push({ kind: 'heading', level: 2, text: 'Featured in' });
  blocks.push(
    cardsOrEmpty(
      featuring.map((campaign) => campaignCard(index, campaign)),
      EMPTY_TEXT.campaigns,
    ),
  );
  return {
    path: sitePaths.product(product.id),
    title: product.title,
    description: product.description ? oneLine(product.description) : null,
    lastModified: index.publishedAt,
    intro,
    media: images,
    titleStyle: 'display',
    feature: null,
    blocks,
    structuredData: productGraph(index, product),
    askBox: true,
  };
}

export function surfacePage(index: SiteIndex, page: SurfacePage): PageContent {
  return {
    path: sitePaths.surface(page.path),
    title: page.title,
    description: surfaceSummary(page),
    lastModified: index.publishedAt,
    intro: [],
    media: [],
    titleStyle: 'display',
    feature: null,
    blocks: zoneBlocks(index, page.zones),
    structuredData: surfaceGraph(index, page),
    askBox: true,
  };
}

/** The ways on from a page that is not there: the live campaigns, then home and the indexes. */
function waysOn(index: SiteIndex): Block[] {
  const live = index.campaigns.slice(0, 6).map((campaign) => campaignCard(index, campaign));
  return [
    ...(live.length
      ? [
          { kind: 'heading' as const, level: 2 as const, text: 'Live campaigns' },
          { kind: 'cards' as const, cards: live },
          { kind: 'heading' as const, level: 2 as const, text: 'More of the site' },
        ]
      : []),
    {
      kind: 'links',
      links: [
        { text: `${index.brandName} home`, href: sitePaths.home },
        { text: 'All campaigns', href: sitePaths.campaigns },
        { text: 'All products', href: sitePaths.products },
      ],
    },
  ];
}

/**
 * The page a person sees for a path the site does not have (served with 404): where they are, what they asked
 * for, and the ways on — home, the live campaigns, the products — instead of an error body.
 */
export function notFoundPage(index: SiteIndex, path: string): PageContent {
  return {
    path,
    title: 'Page not found',
    description: null,
    lastModified: index.publishedAt,
    intro: [
      {
        kind: 'text',
        text: `There is no page at ${oneLine(path, 200)} on this site. It may have moved, or the campaign may have ended.`,
        lead: true,
      },
    ],
    media: [],
    titleStyle: 'display',
    feature: null,
    blocks: waysOn(index),
    structuredData: [],
    askBox: true,
  };
}

/**
 * The page a person sees for a campaign whose run has ended (served with 410): what it was, when it ended,
 * and the ways on. Its name and dates were public while it ran; nothing else of it is shown.
 */
export function endedCampaignPage(index: SiteIndex, campaign: SnapshotCampaign, path: string): PageContent {
  const ended = campaign.endsAt ? ` on ${displayDate(campaign.endsAt)}` : '';
  return {
    path,
    title: 'This campaign has ended',
    description: null,
    lastModified: index.publishedAt,
    intro: [
      {
        kind: 'text',
        text: `${oneLine(campaign.name, 200)} ended${ended}. Here is what ${index.brandName} has on now.`,
        lead: true,
      },
    ],
    media: [],
    titleStyle: 'display',
    feature: null,
    blocks: waysOn(index),
    structuredData: [],
    askBox: true,
  };
}
