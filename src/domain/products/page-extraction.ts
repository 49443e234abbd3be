/**
 * Reading one product out of a product page's HTML, for `manage_products import_from_url`.
 *
 * The page is untrusted data from the open web. It is parsed (parse5, the WHATWG algorithm) and read, never
 * executed or rendered: scripts are not run, JSON-LD is only `JSON.parse`d, URLs are only resolved. Text that
 * says "ignore previous instructions" is stored as that text; callers mark the product untrusted and quote it
 * as data. Every value is bounded (lengths, counts), tags are stripped from text, control and bidi-override
 * characters are removed, and only absolute http(s) URLs without credentials are kept (no data:, javascript:).
 *
 * Where each field comes from, first source that has a usable value wins, per field:
 *
 * 1. schema.org JSON-LD `Product` (also `IndividualProduct`, `ProductModel`, `SomeProducts`, `ProductGroup`)
 *    from `<script type="application/ld+json">` blocks: objects, arrays, `@graph` containers, nested nodes
 *    (e.g. a WebPage's `mainEntity`) and `{"@id"}` references. The first top-level Product wins, else the first
 *    nested one. Malformed blocks are skipped (a second try tolerates raw control characters in strings).
 * 2. OpenGraph and product meta tags (`og:*`, `product:*`, read from `property` or `name`), with `og:site_name`
 *    as the last brand fallback.
 * 3. Plain HTML: the document `<title>`, then the first `<h1>`; `<meta name=description>`; `<img>` sources in
 *    document order (lazy-load `data-src` when `src` is missing or not http(s); 1×1 pixels skipped).
 *
 * Exceptions, on purpose:
 * - `url` is the page's own claim about itself: `<link rel=canonical>`, then `og:url`, then the JSON-LD
 *   Product's `url`, else `pageUrl` (then `sources.url` is absent: nothing on the page said it).
 * - `images` come whole from one source (the first with at least one usable image); sources are not mixed.
 * - Price and currency are read as a pair: the currency of the source that gave the price, else the first
 *   currency any source gives.
 * - `attributes` are merged key by key (JSON-LD over meta tags) and have no entry in `sources`.
 *
 * Prices are read by `prices.ts`, JSON-LD by `json-ld.ts`.
 */
import { html as parse5Html, parse, parseFragment, type DefaultTreeAdapterTypes } from 'parse5';
import { visibleText } from '../shared/html-text.ts';
import { asArray, deref, isObject, jsonText, nameOrText, readJsonLdProduct, schemaEnum } from './json-ld.ts';
import { currencyCode, priceToMinor } from './prices.ts';

// The unit tests read prices through this module.
export { priceToMinor } from './prices.ts';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

export type ExtractionSource = 'json-ld' | 'opengraph' | 'html';

export interface ExtractedProduct {
  /** ≤ 300 characters. */
  title: string | null;
  /** ≤ 5000 characters, plain text (tags stripped, whitespace collapsed). */
  description: string | null;
  /** Integer hundredths of the currency unit (12.99 EUR → 1299); null when unknown. */
  priceMinor: number | null;
  /** ISO 4217 code, upper case, or null. */
  currency: string | null;
  /** Absolute http(s) URLs resolved against the page URL, de-duplicated, at most 10. */
  images: string[];
  /** Canonical URL (absolute http(s)); the page URL when the page names none. */
  url: string;
  /** ≤ 200 characters. */
  brand: string | null;
  /** ≤ 100 characters. */
  sku: string | null;
  /** e.g. gtin13, mpn, color, material, availability: keys ≤ 60, values ≤ 500 characters, at most 30 keys. */
  attributes: Record<string, string>;
  /** Which source each non-null field (and non-empty `images`) came from; `attributes` has no entry. */
  sources: Record<string, ExtractionSource>;
}

export const EXTRACTION_LIMITS = {
  title: 300,
  description: 5000,
  brand: 200,
  sku: 100,
  attributeKey: 60,
  attributeValue: 500,
  attributes: 30,
  images: 10,
  url: 2048,
} as const;

/** Beyond this much HTML the rest is not read (the fetch caps pages at 2 MB anyway). */
const MAX_HTML_CHARS = 5_000_000;
const MAX_JSON_LD_BLOCKS = 50;
/** Raw text (with markup) read for one field before tags are stripped. */
const MAX_TEXT_INPUT_CHARS = 200_000;

/** JSON-LD product attributes kept, in order (schema.org property → attribute key). */
const JSON_LD_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [
  ['gtin', 'gtin'],
  ['gtin8', 'gtin8'],
  ['gtin12', 'gtin12'],
  ['gtin13', 'gtin13'],
  ['gtin14', 'gtin14'],
  ['isbn', 'isbn'],
  ['mpn', 'mpn'],
  ['productID', 'productID'],
  ['model', 'model'],
  ['color', 'color'],
  ['material', 'material'],
  ['size', 'size'],
  ['pattern', 'pattern'],
  ['category', 'category'],
];

/** Meta tags read as attributes (meta key → attribute key), after the JSON-LD ones. */
const META_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [
  ['product:ean', 'gtin13'],
  ['product:upc', 'gtin12'],
  ['product:gtin', 'gtin'],
  ['product:isbn', 'isbn'],
  ['product:mfr_part_no', 'mpn'],
  ['product:color', 'color'],
  ['product:material', 'material'],
  ['product:size', 'size'],
  ['product:pattern', 'pattern'],
  ['product:category', 'category'],
  ['product:availability', 'availability'],
  ['og:availability', 'availability'],
  ['product:condition', 'condition'],
];

/** What the HTML walk collects, in document order. */
interface PageFacts {
  jsonLd: string[];
  meta: Map<string, string[]>;
  canonical: string | null;
  title: string | null;
  h1: string | null;
  images: string[];
}

interface Candidate<T> {
  value: T;
  source: ExtractionSource;
}

/**
 * Extracts one product from a product page. Never throws for anything in `html`; throws a TypeError only when
 * `pageUrl` is not an absolute http(s) URL (the caller's mistake, not the page's).
 */
export function extractProductFromHtml(html: string, pageUrl: string): ExtractedProduct {
  const base = parsePageUrl(pageUrl);
  const facts = collectPageFacts(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html, base);
  const ld = readJsonLdProduct(facts.jsonLd);
  const meta = (key: string): string | null => facts.meta.get(key)?.find((value) => value.trim() !== '') ?? null;
  const sources: Record<string, ExtractionSource> = {};

  const pick = <T>(field: string, candidates: Array<Candidate<T | null> | null>): T | null => {
    for (const candidate of candidates) {
      if (candidate && candidate.value !== null) {
        sources[field] = candidate.source;
        return candidate.value;
      }
    }
    return null;
  };
  const fromLd = (value: unknown, max: number): Candidate<string | null> => ({
    value: plainText(jsonText(value), max),
    source: 'json-ld',
  });
  const fromMeta = (key: string, max: number): Candidate<string | null> => ({
    value: plainText(meta(key), max),
    source: 'opengraph',
  });
  const fromHtml = (value: string | null, max: number): Candidate<string | null> => ({
    value: plainText(value, max),
    source: 'html',
  });

  const title = pick('title', [
    ld && fromLd(ld.node.name, EXTRACTION_LIMITS.title),
    fromMeta('og:title', EXTRACTION_LIMITS.title),
    fromHtml(facts.title, EXTRACTION_LIMITS.title),
    fromHtml(facts.h1, EXTRACTION_LIMITS.title),
  ]);

  const description = pick('description', [
    ld && fromLd(ld.node.description, EXTRACTION_LIMITS.description),
    fromMeta('og:description', EXTRACTION_LIMITS.description),
    fromHtml(meta('description'), EXTRACTION_LIMITS.description),
  ]);

  const brand = pick('brand', [
    ld && { value: plainText(ld.brand, EXTRACTION_LIMITS.brand), source: 'json-ld' },
    fromMeta('product:brand', EXTRACTION_LIMITS.brand),
    fromMeta('og:brand', EXTRACTION_LIMITS.brand),
    fromMeta('og:site_name', EXTRACTION_LIMITS.brand),
  ]);

  const sku = pick('sku', [
    ld && fromLd(ld.node.sku, EXTRACTION_LIMITS.sku),
    fromMeta('product:retailer_item_id', EXTRACTION_LIMITS.sku),
  ]);

  const url =
    pick('url', [
      { value: httpUrl(facts.canonical, base), source: 'html' },
      { value: httpUrl(meta('og:url'), base), source: 'opengraph' },
      ld && { value: httpUrl(jsonText(ld.node.url), base), source: 'json-ld' },
    ]) ?? base.href;

  const images =
    pick('images', [
      ld && { value: nonEmpty(imageList(ld.images, base)), source: 'json-ld' },
      { value: nonEmpty(imageList(ogImages(facts.meta), base)), source: 'opengraph' },
      { value: nonEmpty(imageList(facts.images, base)), source: 'html' },
    ]) ?? [];

  // Price and currency as a pair: each source's price with its own currency.
  const offers: Array<{ price: number | null; currency: string | null; source: ExtractionSource }> = [
    ...(ld
      ? [{ price: priceToMinor(ld.offer.price), currency: currencyCode(ld.offer.currency), source: 'json-ld' as const }]
      : []),
    {
      price: priceToMinor(meta('product:price:amount')),
      currency: currencyCode(meta('product:price:currency')),
      source: 'opengraph',
    },
    {
      price: priceToMinor(meta('og:price:amount')),
      currency: currencyCode(meta('og:price:currency')),
      source: 'opengraph',
    },
  ];
  const priced = offers.find((offer) => offer.price !== null);
  const priceMinor = pick('priceMinor', [priced ? { value: priced.price, source: priced.source } : null]);
  const currency = pick('currency', [
    priced ? { value: priced.currency, source: priced.source } : null,
    ...offers.map((offer) => ({ value: offer.currency, source: offer.source })),
  ]);

  const attributes = new AttributeBag();
  if (ld) {
    for (const [property, key] of JSON_LD_ATTRIBUTES) attributes.add(key, nameOrText(ld.node[property], ld.ids));
    attributes.add('availability', schemaEnum(ld.offer.availability));
    attributes.add('condition', schemaEnum(ld.offer.condition ?? jsonText(ld.node.itemCondition)));
  }
  for (const [metaKey, key] of META_ATTRIBUTES) attributes.add(key, meta(metaKey));
  if (ld) {
    for (const property of asArray(ld.node.additionalProperty)) {
      const entry = deref(property, ld.ids);
      if (isObject(entry)) attributes.add(plainText(jsonText(entry.name), Infinity), jsonText(entry.value));
    }
  }

  return {
    title,
    description,
    priceMinor,
    currency,
    images,
    url,
    brand,
    sku,
    attributes: attributes.toRecord(),
    sources,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The HTML walk

function collectPageFacts(html: string, base: URL): PageFacts {
  const facts: PageFacts = { jsonLd: [], meta: new Map(), canonical: null, title: null, h1: null, images: [] };
  // Iterative pre-order walk (document order); <template> content is inert and not visited.
  const stack: Node[] = [parse(html)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!('childNodes' in node)) continue;
    if ('tagName' in node && node.namespaceURI === parse5Html.NS.HTML) {
      if (!readElement(node, facts, base)) continue;
    }
    for (let i = node.childNodes.length - 1; i >= 0; i -= 1) stack.push(node.childNodes[i]!);
  }
  return facts;
}

/** Records what one element tells; false when its children need no visit. */
function readElement(element: Element, facts: PageFacts, base: URL): boolean {
  switch (element.tagName) {
    case 'script': {
      const type = (attr(element, 'type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === 'application/ld+json' && facts.jsonLd.length < MAX_JSON_LD_BLOCKS) {
        facts.jsonLd.push(element.childNodes.map((child) => ('value' in child ? child.value : '')).join(''));
      }
      return false;
    }
    case 'meta': {
      const content = attr(element, 'content');
      if (content === null) return false;
      for (const name of ['property', 'name']) {
        const key = attr(element, name)?.trim().toLowerCase();
        if (!key) continue;
        const values = facts.meta.get(key);
        if (values) values.push(content);
        else facts.meta.set(key, [content]);
      }
      return false;
    }
    case 'link': {
      const rel = (attr(element, 'rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr(element, 'href');
      if (facts.canonical === null && href && rel.includes('canonical')) facts.canonical = href;
      return false;
    }
    case 'title':
      if (facts.title === null) facts.title = visibleText(element);
      return false;
    case 'h1':
      if (facts.h1 === null) facts.h1 = visibleText(element);
      return true;
    case 'img': {
      if (isTrackingPixel(element)) return false;
      // Lazy-loading pages put a placeholder (often a data: URL) in src and the real image in data-src.
      const chosen = httpUrl(attr(element, 'src'), base) ?? httpUrl(attr(element, 'data-src'), base);
      if (chosen) facts.images.push(chosen);
      return false;
    }
    case 'template':
    case 'style':
      return false;
    default:
      return true;
  }
}

function attr(element: Element, name: string): string | null {
  return element.attrs.find((a) => a.name === name && !a.namespace)?.value ?? null;
}

function isTrackingPixel(element: Element): boolean {
  const width = attr(element, 'width')?.trim();
  const height = attr(element, 'height')?.trim();
  return (width === '0' || width === '1') && (height === '0' || height === '1');
}

// ---------------------------------------------------------------------------------------------------------------
// Text and URLs

/**
 * Plain text from untrusted text that may hold markup or entities: tags stripped (by the HTML parser, never
 * a regex), control and bidi-override characters removed, whitespace collapsed, cut to `max` UTF-16 units
 * without splitting a surrogate pair. Empty → null.
 */
function plainText(raw: string | null, max: number): string | null {
  if (raw === null) return null;
  // No field keeps more than 5000 characters; markup-heavy text needs more input than that, but not unbounded.
  const bounded = raw.length > MAX_TEXT_INPUT_CHARS ? raw.slice(0, MAX_TEXT_INPUT_CHARS) : raw;
  const text = /[<&]/.test(bounded) ? visibleText(parseFragment(bounded)) : bounded;
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return null;
  return truncate(clean, max);
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

function parsePageUrl(pageUrl: string): URL {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    throw new TypeError(`pageUrl must be an absolute http(s) URL: ${pageUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`pageUrl must be an absolute http(s) URL: ${pageUrl}`);
  }
  return url;
}

/** An absolute http(s) URL without credentials, at most 2048 characters, else null. */
function httpUrl(raw: string | null, base: URL): string | null {
  if (raw === null) return null;
  const trimmed = raw.trim();
  if (trimmed === '') return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return url.href.length <= EXTRACTION_LIMITS.url ? url.href : null;
}

function imageList(raw: readonly string[], base: URL): string[] {
  const seen = new Set<string>();
  for (const candidate of raw) {
    const url = httpUrl(candidate, base);
    if (url) seen.add(url);
    if (seen.size >= EXTRACTION_LIMITS.images) break;
  }
  return [...seen];
}

function ogImages(meta: Map<string, string[]>): string[] {
  const images = [...(meta.get('og:image') ?? []), ...(meta.get('og:image:url') ?? [])];
  return images.length > 0 ? images : (meta.get('og:image:secure_url') ?? []);
}

const nonEmpty = <T>(list: T[]): T[] | null => (list.length > 0 ? list : null);

// ---------------------------------------------------------------------------------------------------------------
// Attributes

/** Attributes in insertion order; the first value for a key wins; bounded keys, values and count. */
class AttributeBag {
  private readonly entries = new Map<string, string>();

  add(rawKey: string | null, rawValue: string | null): void {
    if (this.entries.size >= EXTRACTION_LIMITS.attributes) return;
    const key = rawKey?.trim() ?? '';
    if (key === '' || key.length > EXTRACTION_LIMITS.attributeKey || key === '__proto__' || this.entries.has(key)) {
      return;
    }
    const value = plainText(rawValue, EXTRACTION_LIMITS.attributeValue);
    if (value !== null) this.entries.set(key, value);
  }

  toRecord(): Record<string, string> {
    return Object.fromEntries(this.entries);
  }
}
