/**
 * The shapes shared by everything that renders or serves a brand site.
 *
 * A publication (see `domain/publishing`) freezes what is public into a `SiteSnapshot`; rendering turns a
 * `PublishedSite` into a `RenderedSite` (pages with an HTML and a markdown form, plus plain files such as
 * `/llms.txt`), which the republish activity stores and the brand host serves. Rendering is pure: same
 * publication in, same bytes out.
 *
 * Variants are chosen per visitor at serve time, not at render time, so a page is stored as parts: literal
 * text and slots. A slot names a campaign; the server picks that visitor's sticky variant and splices in the
 * variant's pre-rendered fragment (wrapped in the element that carries the impression beacon's data).
 */
import type { SiteSnapshot } from '../../domain/publishing/site-snapshot.ts';

/** Everything rendering needs about one publication of one workspace's brand site. */
export interface PublishedSite {
  workspaceId: string;
  /** The workspace slug: the brand host is `<slug>.<BRAND_ROOT_DOMAIN>`. */
  slug: string;
  /** Monotonic per workspace; bumps on every republish. */
  version: number;
  /** ISO time of this publication: the Last-Modified of everything in it unless a page knows better. */
  publishedAt: string;
  /** Absolute origin of the brand site, no trailing slash (`https://acme.brands.example.com`). */
  origin: string;
  snapshot: SiteSnapshot;
}

/** Deployment URLs the well-known files point at (from configuration). */
export interface PlatformLinks {
  /** Root public site, e.g. `https://example.com`. */
  base: string;
  /** The tool server's host; the MCP endpoint is `${platform}/api/mcp`. */
  platform: string;
  /** The authorization server (issuer). */
  auth: string;
}

/** A literal piece of page text, or the slot where a campaign's variant goes. */
export type PagePart = string | PageSlot;

export interface PageSlot {
  /** The campaign whose variant fills the slot. */
  campaignId: string;
  /** The zone the slot stands for when the page is a surface page; null on a campaign's own page. */
  zoneId: string | null;
  surfaceId: string | null;
}

/** One variant of a campaign rendered both ways; the server wraps the HTML in the beacon element. */
export interface VariantFragment {
  html: string;
  markdown: string;
}

export interface SlotFill {
  /** Active variants with their traffic weights, in a stable order (the sticky choice hashes over this). */
  variants: { id: string; weight: number }[];
  byVariant: Record<string, VariantFragment>;
}

export interface RenderedPage {
  /** Path on the brand host, starting with `/`, no trailing slash except the home page `/`. */
  path: string;
  title: string;
  /** ISO time; the page's Last-Modified. */
  lastModified: string;
  html: PagePart[];
  markdown: PagePart[];
  /** campaignId → its variants' fragments, for every slot on this page. */
  fills: Record<string, SlotFill>;
}

/** A file served as-is (llms.txt, robots.txt, sitemap.xml, agent card, skills, auth.md, server card). */
export interface RenderedFile {
  path: string;
  /** Full Content-Type header value, e.g. `text/plain; charset=utf-8`. */
  contentType: string;
  /** Exact bytes as UTF-8 text: served byte-exact (skill digests are computed over these bytes). */
  body: string;
  lastModified: string;
}

export interface RenderedSite {
  pages: RenderedPage[];
  files: RenderedFile[];
}

/** Paths the brand host serves itself (not rendered documents). */
export const BRAND_PATHS = {
  /** Impression, click and conversion beacons (POST, JSON or text/plain body). */
  events: '/_cp/events',
  /** The beacon script every HTML page loads. */
  beaconScript: '/_cp/beacon.js',
  /** The ask box's progressive enhancement (ask-script.ts): answers inline instead of on a new page. */
  askScript: '/_cp/ask.js',
  /** The call-to-action hand-off to the advertiser's site, carrying the visitor's id (hand-off.ts). */
  handOff: '/_cp/go',
  /** The concierge. */
  ask: '/ask',
  /** The concierge's A2A JSON-RPC binding, declared by the agent card. */
  a2a: '/a2a',
} as const;

/** The three skills a brand site publishes (spec G rule 1). */
export const BRAND_SKILL_NAMES = ['ask-venue', 'fetch-campaign-content', 'discover-campaigns'] as const;

/**
 * The title of a brand page, from its path (`/summer-sale` → "Summer sale"). A surface's name is the team's
 * label for it ("Hero test page Q4"), not public; its path is already public, and says what the page is.
 */
export function pageTitleFromPath(path: string): string {
  const segment = path.split('/').filter(Boolean).pop() ?? '';
  const words = segment.replace(/-+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : '';
}

/** Where each kind of content lives on a brand host; every renderer, link and citation goes through these. */
export const sitePaths = {
  home: '/',
  campaigns: '/campaigns',
  campaign: (campaignSlug: string) => `/campaigns/${campaignSlug}`,
  products: '/products',
  product: (productId: string) => `/products/${productId}`,
  /** A `brand_page` surface is served at its own path (`/summer`); `/` makes it the home page's zones. */
  surface: (surfacePath: string) => surfacePath,
} as const;
