/**
 * Reading a schema.org `Product` out of a page's JSON-LD blocks: objects, arrays, `@graph` containers, nested
 * nodes and `{"@id"}` references, within bounds on how many objects are visited and how deep. Values are returned
 * raw; the page extraction bounds and cleans them.
 */
import { priceToMinor } from './prices.ts';

/** JSON-LD objects visited per page, and how deep the search for a nested Product goes. */
const MAX_JSON_LD_NODES = 20_000;
const MAX_JSON_LD_DEPTH = 32;

const PRODUCT_TYPES = new Set(['Product', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'ProductGroup']);

export type JsonObject = { [key: string]: unknown };

interface JsonLdProduct {
  node: JsonObject;
  ids: Map<string, JsonObject>;
  brand: string | null;
  images: string[];
  offer: { price: unknown; currency: string | null; availability: string | null; condition: string | null };
}

export function readJsonLdProduct(blocks: readonly string[]): JsonLdProduct | null {
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

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
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
export function deref(value: unknown, ids: Map<string, JsonObject>): unknown {
  if (isObject(value) && typeof value['@id'] === 'string' && Object.keys(value).length === 1) {
    return ids.get(value['@id']) ?? value;
  }
  return value;
}

/** A JSON-LD text value: a string, a number, `{"@value"}`, or the first of an array of those. */
export function jsonText(value: unknown): string | null {
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
export function nameOrText(value: unknown, ids: Map<string, JsonObject>): string | null {
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

export function schemaEnum(value: string | null): string | null {
  return value === null ? null : schemaName(value);
}
