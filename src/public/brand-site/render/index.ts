/**
 * The brand-site renderer: a publication in, every page (HTML and markdown twin, stored as parts with slots
 * for the visitor's variants) and the site files (`/llms.txt`, `/sitemap.xml`, `/robots.txt`) out. Pure and
 * deterministic: no clock, no I/O, no randomness; the same publication gives the same bytes. Linear in the
 * size of the site: everything is looked up through the indexes built once in `buildSiteIndex`.
 *
 * Pages: `/` (with the zones of a `brand_page` at `/`), `/campaigns` and `/campaigns/<slug>`, `/products` and
 * `/products/<id>` for every product of a published campaign, and each other `brand_page` at its path
 * (unless that path belongs to the host itself, see `isReservedPath`). The well-known agent files are
 * rendered separately (`renderBrandAgentFiles`).
 */
import type { PublishedSite, RenderedFile, RenderedPage, RenderedSite, SlotFill } from '../site-model.ts';
import { chromeOf, siteChrome } from './chrome.ts';
import type { Block, PageContent } from './content.ts';
import { createFillRenderer, type FillRenderer } from './fragments.ts';
import { writeHtmlPage, type HtmlChrome } from './html.ts';
import { LLMS_TXT_CONTENT_TYPE, LLMS_TXT_PATH, renderBrandLlmsTxt } from './llms-txt.ts';
import { writeMarkdownPage } from './markdown.ts';
import {
  campaignPage,
  campaignsIndexPage,
  endedCampaignPage,
  homePage,
  notFoundPage,
  productPage,
  productsIndexPage,
  surfacePage,
} from './pages.ts';
import { renderRobotsTxt, ROBOTS_PATH } from './robots.ts';
import { buildSiteIndex, endedCampaignAt, type SiteIndex } from './site-index.ts';
import { renderSitemapFiles, SITEMAP_PATH } from './sitemap.ts';

/** Every slot block of a page, wherever it stands (the head, the hero, the body). */
function slotBlocks(content: PageContent): Extract<Block, { kind: 'slot' }>[] {
  const all = [...content.intro, ...(content.feature ? [content.feature.slot] : []), ...content.blocks];
  return all.filter((block): block is Extract<Block, { kind: 'slot' }> => block.kind === 'slot');
}

function renderPage(content: PageContent, chrome: HtmlChrome, fills: FillRenderer): RenderedPage {
  const html = writeHtmlPage(content, chrome);
  const pageFills: Record<string, SlotFill> = {};
  // One fill per campaign and page: a page places a campaign in one style (pages.ts keeps the hero's
  // campaign out of the home page's zones), so the first slot's style is the campaign's.
  for (const block of slotBlocks(content)) {
    if (pageFills[block.slot.campaignId]) continue;
    const fill = fills(block.slot.campaignId, block.style);
    // Slots are only placed for campaigns with an active variant, so a fill always exists here.
    if (fill) pageFills[block.slot.campaignId] = fill;
  }
  return {
    path: content.path,
    title: content.title,
    lastModified: content.lastModified,
    html,
    markdown: writeMarkdownPage(content, chrome.origin),
    fills: pageFills,
  };
}

function pageContents(index: SiteIndex): PageContent[] {
  return [
    homePage(index),
    campaignsIndexPage(index),
    ...index.campaigns.map((campaign) => campaignPage(index, campaign)),
    productsIndexPage(index),
    ...index.products.map((product) => productPage(index, product)),
    ...index.surfacePages.map((page) => surfacePage(index, page)),
  ];
}

/** The HTML a browser is shown for a path the site does not have, in the brand's own chrome (no slots). */
export function renderNotFoundPage(site: PublishedSite, path: string): string {
  const { index, chrome } = siteChrome(site);
  return writeHtmlPage(notFoundPage(index, path), chrome)
    .filter((part): part is string => typeof part === 'string')
    .join('');
}

/**
 * The HTML a browser is shown for the page of a campaign whose run has ended (served with 410 Gone), or null
 * when `path` was not such a page.
 */
export function renderGonePage(site: PublishedSite, path: string): string | null {
  const campaign = endedCampaignAt(site, path);
  if (!campaign) return null;
  const { index, chrome } = siteChrome(site);
  return writeHtmlPage(endedCampaignPage(index, campaign, path), chrome)
    .filter((part): part is string => typeof part === 'string')
    .join('');
}

export function renderBrandSite(site: PublishedSite): RenderedSite {
  const index = buildSiteIndex(site);
  const chrome = chromeOf(site, index);
  const fills = createFillRenderer(index);
  const pages = pageContents(index).map((content) => renderPage(content, chrome, fills));
  const text = (path: string, contentType: string, body: string): RenderedFile => ({
    path,
    contentType,
    body,
    lastModified: index.publishedAt,
  });
  const files: RenderedFile[] = [
    text(LLMS_TXT_PATH, LLMS_TXT_CONTENT_TYPE, renderBrandLlmsTxt(index, SITEMAP_PATH)),
    ...renderSitemapFiles(index.origin, pages, index.publishedAt),
    text(ROBOTS_PATH, 'text/plain; charset=utf-8', renderRobotsTxt(index.origin, SITEMAP_PATH)),
  ];
  return { pages, files };
}

export { buildSiteIndex, isReservedPath, normalizeSurfacePath, type SiteIndex } from './site-index.ts';
export { EMPTY_TEXT } from './pages.ts';
export { SITE_LANGUAGE } from './chrome.ts';
export { renderAskPage, type AskPageInput, type AskProblem } from './ask-page.ts';
export { AGENT_FILE_PATHS, LLMS_TXT_PATH } from './llms-txt.ts';
export { SITEMAP_PATH } from './sitemap.ts';
export { ROBOTS_PATH } from './robots.ts';
