/**
 * Small pure helpers every brand-site writer shares: URLs that are safe to put in a link, prices, dates and
 * times. Brand and product text is typed by people or imported from the open web, so nothing here trusts it:
 * a URL that is not http(s) or scheme-less is dropped rather than escaped (escaping does not defuse
 * `javascript:`), and a price whose currency Intl rejects still renders as plain text instead of throwing.
 */
import { formatPrice } from '../../../domain/products/price.ts';
import type { ProductView } from '../../../domain/products/products.service.ts';

const FOLLOWABLE_SCHEMES = new Set(['http', 'https', 'mailto']);

/** `url` when a browser or agent can follow it harmlessly (http(s), mailto or relative), else null. */
export function safeUrl(url: string | null | undefined): string | null {
  const trimmed = url?.trim();
  if (!trimmed) return null;
  // Browsers drop control characters, tabs and newlines from URLs, so `java\tscript:` would still run.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f<>"\\]/.test(trimmed)) return null;
  // A scheme is letters before a ':' that comes before any '/', '?' or '#'.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) return trimmed;
  return FOLLOWABLE_SCHEMES.has(scheme) && URL.canParse(trimmed) ? trimmed : null;
}

/** True for a link into this site (`/campaigns/x`), false for another site (`https://…`, `//host`). */
export function isSitePath(href: string): boolean {
  return href.startsWith('/') && !href.startsWith('//');
}

/** The absolute URL of a site path (`/` → `https://host/`), or `href` unchanged when it is already external. */
export function absoluteUrl(origin: string, href: string): string {
  return isSitePath(href) ? `${origin}${href}` : href;
}

/** One line of display text: collapses whitespace (text typed by people spans lines) and caps the length. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

const fractionDigitsByCurrency = new Map<string, number | null>();

function fractionDigits(currency: string): number | null {
  let digits = fractionDigitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = null;
    }
    fractionDigitsByCurrency.set(currency, digits);
  }
  return digits;
}

// formatPrice builds an Intl.NumberFormat per call, which dominates rendering a big site: remember answers.
const displayPrices = new Map<string, string>();

/** The price as people read it ("€18.00"); a currency Intl does not know is shown as "18.00 XYZ". */
export function displayPrice(product: Pick<ProductView, 'price' | 'currency'>): string | null {
  if (product.price === null || !product.currency) return null;
  const key = `${product.currency} ${product.price}`;
  let display = displayPrices.get(key);
  if (display === undefined) {
    try {
      display = formatPrice(product) ?? '';
    } catch {
      display = `${product.price.toFixed(2)} ${product.currency}`;
    }
    if (displayPrices.size >= 10_000) displayPrices.clear();
    displayPrices.set(key, display);
  }
  return display || null;
}

/** schema.org `Offer.price`: the amount as a plain decimal string with the currency's minor digits ("18.00"). */
export function schemaPrice(product: Pick<ProductView, 'price' | 'currency'>): string | null {
  if (product.price === null || !product.currency) return null;
  return product.price.toFixed(fractionDigits(product.currency) ?? 2);
}

/** ISO time normalized to `toISOString` form, so strings compare and print the same everywhere. */
export function isoTime(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/** The latest of the given ISO times (nulls ignored), never later than `ceiling`. */
export function latestTime(ceiling: string, times: readonly (string | null | undefined)[]): string {
  const limit = Date.parse(ceiling);
  let latest = Number.NEGATIVE_INFINITY;
  for (const time of times) {
    const parsed = time ? Date.parse(time) : Number.NaN;
    if (!Number.isNaN(parsed) && parsed > latest) latest = parsed;
  }
  // Rows are read before the publication row is written; a clock skew must not date a page after it.
  if (latest === Number.NEGATIVE_INFINITY || latest > limit) return isoTime(ceiling);
  return new Date(latest).toISOString();
}

/** A date for people, independent of locale and time zone: `2026-11-01`, or `2026-11-01 09:30 UTC` off midnight. */
export function displayDate(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const stamp = new Date(time).toISOString();
  const day = stamp.slice(0, 10);
  const clock = stamp.slice(11, 16);
  return clock === '00:00' ? day : `${day} ${clock} UTC`;
}

/** "runs 2026-11-01 to 2026-11-30", "from 2026-11-01", "until 2026-11-30", or null without dates. */
export function campaignDates(startsAt: string | null, endsAt: string | null): string | null {
  if (startsAt && endsAt) return `runs ${displayDate(startsAt)} to ${displayDate(endsAt)}`;
  if (startsAt) return `from ${displayDate(startsAt)}`;
  if (endsAt) return `until ${displayDate(endsAt)}`;
  return null;
}
