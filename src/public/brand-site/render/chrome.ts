/**
 * What every HTML page of one publication shares around its content (header, stylesheet, ask box, footer),
 * and the site index it is built from. Pages rendered per request (the 404 page, the ask page) get both from
 * here, remembered per publication object: the site reader keeps one per published version, so a request
 * does not rebuild the index or recompute the palette.
 */
import type { PublishedSite } from '../site-model.ts';
import { brandStylesheet, type HtmlChrome } from './html.ts';
import { contactFacts } from './pages.ts';
import { buildSiteIndex, type SiteIndex } from './site-index.ts';
import { safeUrl } from './text.ts';

/** The brand profile has no language; pages are written in English (their fixed labels are). */
export const SITE_LANGUAGE = 'en';

export function chromeOf(site: PublishedSite, index: SiteIndex): HtmlChrome {
  const { brandbook, concierge } = site.snapshot.brand;
  return {
    origin: index.origin,
    brandName: index.brandName,
    logoUrl: safeUrl(brandbook.logoUrl),
    css: brandStylesheet(brandbook),
    lang: SITE_LANGUAGE,
    ask: concierge.enabled === false ? null : { greeting: concierge.greeting },
    contact: contactFacts(index),
  };
}

const built = new WeakMap<PublishedSite, { index: SiteIndex; chrome: HtmlChrome }>();

/** The site index and chrome of `site`, built once per publication object. */
export function siteChrome(site: PublishedSite): { index: SiteIndex; chrome: HtmlChrome } {
  let entry = built.get(site);
  if (!entry) {
    const index = buildSiteIndex(site);
    entry = { index, chrome: chromeOf(site, index) };
    built.set(site, entry);
  }
  return entry;
}
