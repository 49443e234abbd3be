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
 * Prices: JSON numbers or strings such as "12.99", "1,299.00", "1.299,00", "12,99", "1 299,00 €". With both
 * `.` and `,` the last one is the decimal separator; a lone `,` followed by exactly three digits groups
 * thousands ("1,299" is 1299) unless the whole part is 0 ("0,995" is 1.00); a lone `.` is always decimal
 * (schema.org's form: "1.299" is 1.299). Minor units are hundredths, as everywhere else on the platform
 * (`toProductView` divides by 100), rounded half up; a price that does not fit a PostgreSQL integer, or is
 * negative, is unknown (null).
 */
import { html as parse5Html, parse, parseFragment, type DefaultTreeAdapterTypes } from 'parse5';
import { visibleText } from '../shared/html-text.ts';

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
/** JSON-LD objects visited per page, and how deep the search for a nested Product goes. */
const MAX_JSON_LD_NODES = 20_000;
const MAX_JSON_LD_DEPTH = 32;
/** The largest PostgreSQL `integer`. */
const MAX_PRICE_MINOR = 2_147_483_647;

const PRODUCT_TYPES = new Set(['Product', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'ProductGroup']);

/** Elements whose boundaries do not separate words; every other element's do. */
/** Elements whose content is never text to keep. */

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

type JsonObject = { [key: string]: unknown };

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
// JSON-LD

interface JsonLdProduct {
  node: JsonObject;
  ids: Map<string, JsonObject>;
  brand: string | null;
  images: string[];
  offer: { price: unknown; currency: string | null; availability: string | null; condition: string | null };
}

function readJsonLdProduct(blocks: readonly string[]): JsonLdProduct | null {
  const roots = blocks.map(parseJsonLd).filter((root) => root !== undefined);
  const ids = new Map<string, JsonObject>();
  const topLevel: JsonObject[] = [];
  const nested: JsonObject[] = [];
  let visited = 0;
  // Pre-order over every object; top level = the blocks themselves, array items and @graph members.
  const stack: Array<{ value: unknown; depth: number; top: boolean }> = roots
    .map((value) => ({ value, depth: 0, top: true }))
    .reverse();
  while (stack.length > 0 && visited < MAX_JSON_LD_NODES) {
    const { value, depth, top } = stack.pop()!;
    if (depth > MAX_JSON_LD_DEPTH) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], depth: depth + 1, top });
      continue;
    }
    if (!isObject(value)) continue;
    visited += 1;
    const id = value['@id'];
    if (typeof id === 'string' && Object.keys(value).length > 1 && !ids.has(id)) ids.set(id, value);
    if (isProductNode(value)) (top ? topLevel : nested).push(value);
    const children = Object.entries(value);
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const [key, child] = children[i]!;
      if (child !== null && typeof child === 'object') {
        stack.push({ value: child, depth: depth + 1, top: top && key === '@graph' });
      }
    }
  }
  const node = topLevel[0] ?? nested[0];
  if (!node) return null;
  return {
    node,
    ids,
    brand: nameOrText(node.brand, ids),
    images: jsonLdImages(node.image, ids),
    offer: readOffer(node, ids),
  };
}

/** JSON.parse, tolerating HTML comment / CDATA wrappers and raw control characters; undefined if malformed. */
function parseJsonLd(text: string): unknown {
  const unwrapped = text
    .trim()
    .replace(/^(?:\/\/\s*)?<!\[CDATA\[|(?:\/\/\s*)?\]\]>$/g, '')
    .replace(/^<!--|-->$/g, '')
    .trim();
  try {
    return JSON.parse(unwrapped);
  } catch {
    try {
      // Raw newlines/tabs inside strings are common in hand-made JSON-LD; outside strings they are whitespace.
      // eslint-disable-next-line no-control-regex
      return JSON.parse(unwrapped.replace(/[\u0000-\u001f]/g, ' '));
    } catch {
      return undefined;
    }
  }
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** schema.org type or enumeration member without its prefix ("https://schema.org/InStock" → "InStock"). */
function schemaName(value: string): string {
  return value.trim().replace(/^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i, '');
}

function isProductNode(node: JsonObject): boolean {
  return asArray(node['@type']).some((type) => typeof type === 'string' && PRODUCT_TYPES.has(schemaName(type)));
}

/** A `{"@id": …}` reference replaced by the node it names, when the page defines it. */
function deref(value: unknown, ids: Map<string, JsonObject>): unknown {
  if (isObject(value) && typeof value['@id'] === 'string' && Object.keys(value).length === 1) {
    return ids.get(value['@id']) ?? value;
  }
  return value;
}

/** A JSON-LD text value: a string, a number, `{"@value"}`, or the first of an array of those. */
function jsonText(value: unknown): string | null {
  for (const item of asArray(value)) {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' && Number.isFinite(item)) return String(item);
    if (isObject(item) && (typeof item['@value'] === 'string' || typeof item['@value'] === 'number')) {
      return String(item['@value']);
    }
  }
  return null;
}

/** A text value or a thing's `name` (brand, model, …). */
function nameOrText(value: unknown, ids: Map<string, JsonObject>): string | null {
  for (const item of asArray(value)) {
    const resolved = deref(item, ids);
    const text = isObject(resolved) && !('@value' in resolved) ? jsonText(resolved.name) : jsonText(resolved);
    if (text !== null && text.trim() !== '') return text;
  }
  return null;
}

function jsonLdImages(value: unknown, ids: Map<string, JsonObject>): string[] {
  const urls: string[] = [];
  for (const item of asArray(value)) {
    const resolved = deref(item, ids);
    if (typeof resolved === 'string') urls.push(resolved);
    else if (isObject(resolved)) {
      const url = jsonText(resolved.url) ?? jsonText(resolved.contentUrl);
      if (url !== null) urls.push(url);
    }
    if (urls.length >= 50) break;
  }
  return urls;
}

/** The first offer with a price (an AggregateOffer's lowPrice, else its price, else its own offers). */
function readOffer(product: JsonObject, ids: Map<string, JsonObject>): JsonLdProduct['offer'] {
  let offers = asArray(product.offers);
  if (offers.length === 0) {
    // A ProductGroup often carries its offers on its variants.
    const variant = asArray(product.hasVariant)
      .map((v) => deref(v, ids))
      .find((v) => isObject(v) && v.offers !== undefined);
    if (isObject(variant)) offers = asArray(variant.offers);
  }
  let first: JsonLdProduct['offer'] | null = null;
  // Breadth-first; offers inside an AggregateOffer inherit its currency.
  const queue = offers.slice(0, 100).map((value) => ({ value, currency: null as string | null }));
  for (let i = 0; i < queue.length && i < 200; i += 1) {
    const offer = deref(queue[i]!.value, ids);
    if (!isObject(offer)) continue;
    const specification = asArray(offer.priceSpecification)
      .map((s) => deref(s, ids))
      .find((s): s is JsonObject => isObject(s) && s.price !== undefined);
    const price = offer.lowPrice ?? offer.price ?? specification?.price;
    const candidate = {
      price: priceToMinor(price) !== null ? price : null,
      currency: jsonText(offer.priceCurrency) ?? jsonText(specification?.priceCurrency) ?? queue[i]!.currency,
      availability: jsonText(offer.availability),
      condition: jsonText(offer.itemCondition),
    };
    first ??= candidate;
    if (candidate.price !== null) {
      return {
        ...candidate,
        availability: candidate.availability ?? first.availability,
        condition: candidate.condition ?? first.condition,
      };
    }
    for (const nested of asArray(offer.offers).slice(0, 100))
      queue.push({ value: nested, currency: candidate.currency });
  }
  return first ?? { price: null, currency: null, availability: null, condition: null };
}

function schemaEnum(value: string | null): string | null {
  return value === null ? null : schemaName(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Prices, currencies, attributes

/** Digit groups separated by `.` or `,`, or by a space/apostrophe that groups exactly three digits. */
const AMOUNT = /\d+(?:(?:[.,]|[ '’\u00a0\u202f\u2009](?=\d{3}(?!\d)))\d+)*/;

/** A price in hundredths, from a JSON number or a price string; null when absent, unreadable or out of range. */
export function priceToMinor(value: unknown): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= 1e15) return null;
    text = value.toFixed(6);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return null;
  }
  const match = AMOUNT.exec(text);
  if (!match) return null;
  if (/-\s*$/.test(text.slice(0, match.index))) return null;
  const amount = match[0].replace(/[ '’\u00a0\u202f\u2009]/g, '');

  const lastDot = amount.lastIndexOf('.');
  const lastComma = amount.lastIndexOf(',');
  let whole: string;
  let fraction = '';
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const index = Math.max(lastDot, lastComma);
    if (amount.indexOf(decimal) !== index) return null;
    const groups = amount.slice(0, index).split(decimal === '.' ? ',' : '.');
    if (!validGroups(groups)) return null;
    whole = groups.join('');
    fraction = amount.slice(index + 1);
  } else if (lastDot >= 0 || lastComma >= 0) {
    const separator = lastDot >= 0 ? '.' : ',';
    const parts = amount.split(separator);
    if (parts.length > 2 || (separator === ',' && parts[1]!.length === 3 && parts[0] !== '0')) {
      if (!validGroups(parts)) return null;
      whole = parts.join('');
    } else {
      whole = parts[0]!;
      fraction = parts[1]!;
    }
  } else {
    whole = amount;
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  if (whole.length > 12) return null;
  const cents = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
  const minor = cents + (Number(fraction[2] ?? '0') >= 5 ? 1 : 0);
  return Number.isSafeInteger(minor) && minor <= MAX_PRICE_MINOR ? minor : null;
}

/** Thousands groups: the first 1–3 digits, every other exactly 3. */
function validGroups(groups: readonly string[]): boolean {
  return groups.every((group, i) => (i === 0 ? group.length >= 1 && group.length <= 3 : group.length === 3));
}

function currencyCode(raw: string | null): string | null {
  const code = raw?.trim().toUpperCase() ?? '';
  return /^[A-Z]{3}$/.test(code) ? code : null;
}

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
