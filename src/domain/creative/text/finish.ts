/**
 * The last step of every copy engine, built-in or model-backed: what a variant must satisfy before it is
 * stored, in one place so both engines meet the same rules.
 *
 * - Untrusted text rules: markup, links and invisible characters go (`cleanText`), and sentences that read
 *   like instructions to a machine are left out — a model can echo an injection from product text.
 * - Prices: an amount that is the product's price is written in the market's format (`formatProductPrice`);
 *   a sentence quoting any other amount is left out, since nothing vouches for it ("was €349").
 * - Voice: none of the brand's "don't say" phrases remains (`scrubPhrases`).
 * - Lengths per surface (`channel-lengths.ts`); the social caption fits the tightest network with its hashtags.
 */
import type { BrandView } from '../../brand/brand.service.ts';
import type { ProductView } from '../../products/products.service.ts';
import { COPY_LIMITS, SOCIAL_CAPTION_LIMIT } from './channel-lengths.ts';
import type { CopyDraft } from './copy-engine.ts';
import { formatProductPrice, type Market } from './market.ts';
import {
  cleanText,
  containsPhrase,
  fitLength,
  looksLikeInstruction,
  scrubPhrases,
  sentencesOf,
  toHashtag,
} from './sanitize.ts';

/** A variant as an engine wrote it, before the rules. */
export interface RawDraft {
  name: string;
  headline: string;
  body: string;
  callToAction: string;
  emailSubject?: string | null;
  emailPreheader?: string | null;
  socialCaption?: string | null;
  hashtags?: readonly string[] | null;
}

export interface FinishContext {
  brand: BrandView;
  product: Pick<ProductView, 'title' | 'price' | 'currency'> | null;
  market: Pick<Market, 'locale'> | null;
  channels: readonly string[];
}

// A sign may carry its country's letters ("CA$", "US$", "R$"), which belong to the amount as written.
const CURRENCY_SIGN = String.raw`(?:\b[A-Z]{1,3}\p{Sc}|\p{Sc}|\b(?:kr\.?|zł|Kč|Ft|lei|CHF|SEK|NOK|DKK|ISK|EUR|USD|GBP|PLN|CZK|HUF|JPY|AUD|CAD|NZD|R\$)(?![\p{L}]))`;
const AMOUNT = String.raw`\d{1,3}(?:[\s\u00a0\u202f,.'’]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
/** An amount with a currency sign or code on either side ("€289.00", "1.299,00 €", "12 900 kr", "CHF 89"). */
const MONEY = new RegExp(
  String.raw`${CURRENCY_SIGN}[\s\u00a0\u202f]?(?:${AMOUNT})(?:,[-–])?|(?:${AMOUNT})[\s\u00a0\u202f]?${CURRENCY_SIGN}`,
  'gu',
);

/** The value of an amount however it is grouped: "1.299,00" and "1,299.00" are both 1299; "18.995" is 18995. */
export function parseAmount(written: string): number | null {
  const digits = written.replace(/[^\d.,]/g, '');
  if (!/\d/.test(digits)) return null;
  const last = Math.max(digits.lastIndexOf('.'), digits.lastIndexOf(','));
  // The last separator is a decimal point when one or two digits follow it; three digits follow a group.
  const decimals = last >= 0 && /^\d{1,2}$/.test(digits.slice(last + 1));
  const whole = decimals ? digits.slice(0, last) : digits;
  const fraction = decimals ? digits.slice(last + 1) : '';
  const value = Number(`${whole.replace(/[.,]/g, '')}${fraction ? `.${fraction}` : ''}`);
  return Number.isFinite(value) ? value : null;
}

/** How `currency` may be written: its code and its symbols in the market's locale and in English. */
function signsOf(currency: string, market: FinishContext['market']): Set<string> {
  const signs = new Set([currency.toUpperCase()]);
  for (const locale of [market?.locale ?? 'en', 'en'])
    for (const currencyDisplay of ['symbol', 'narrowSymbol'] as const) {
      const parts = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay }).formatToParts(1);
      const sign = parts.find((part) => part.type === 'currency')?.value;
      if (sign) signs.add(sign.replace(/\.$/, ''));
    }
  return signs;
}

/**
 * `text` with the product's price in the market's format wherever it is quoted, and without the sentences
 * that quote any other amount, or this amount in another currency.
 */
export function marketPrices(text: string, product: FinishContext['product'], market: FinishContext['market']): string {
  if (!MONEY.test(text)) return text;
  MONEY.lastIndex = 0;
  const price = formatProductPrice(product, market);
  const signs = price && product?.currency ? signsOf(product.currency, market) : new Set<string>();
  const kept = sentencesOf(text).flatMap((sentence) => {
    let foreign = false;
    const fixed = sentence.replace(MONEY, (written) => {
      const value = parseAmount(written);
      const sign = written
        .replace(/[\d\s\u00a0\u202f.,'’–-]+/g, ' ')
        .trim()
        .replace(/\.$/, '');
      if (price && value !== null && signs.has(sign) && Math.abs(value - product!.price!) < 0.005)
        // "12 900 kr." at a sentence's end: the full stop stays when the market's format has none of its own.
        return written.endsWith('.') && !price.endsWith('.') ? `${price}.` : price;
      foreign = true;
      return written;
    });
    return foreign ? [] : [fixed];
  });
  return kept.join(' ');
}

/** Plain text a shopper may read: cleaned, instruction-like sentences dropped, prices fixed, voice kept. */
function finishText(raw: string, context: FinishContext, max: number, fallback?: string): string {
  const cleaned = sentencesOf(cleanText(raw, max * 4))
    .filter((sentence) => !looksLikeInstruction(sentence))
    .join(' ');
  const priced = marketPrices(cleaned, context.product, context.market);
  // Nothing left (all of it markup, an injection or a foreign price): the fallback, under the same rules.
  if (priced.trim() === '') return fallback === undefined ? '' : finishText(fallback, context, max);
  return fitLength(scrubPhrases(priced, context.brand.voice.dontSay, fallback), max);
}

/** Word 3-grams, case- and diacritics-insensitive: what "the same words" means between two variants. */
export function trigrams(text: string): Set<string> {
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i += 1) grams.add(words.slice(i, i + 3).join(' '));
  return grams;
}

export function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

/**
 * Variants share at most this much of their wording (word 3-grams, Jaccard on headline and body): the
 * built-in engine leaves quotes out until a variant is this different from the ones before it, and a model's
 * variant that is not is dropped as a repeat.
 */
export const MAX_OVERLAP = 0.4;

/** The drafts without those that repeat an earlier one (too alike, see `MAX_OVERLAP`); never none. */
export function dropRepeats(drafts: CopyDraft[]): CopyDraft[] {
  const kept: { draft: CopyDraft; grams: Set<string> }[] = [];
  for (const draft of drafts) {
    const grams = trigrams(`${draft.headline} ${draft.body}`);
    if (kept.length === 0 || kept.every((other) => overlap(grams, other.grams) < MAX_OVERLAP))
      kept.push({ draft, grams });
  }
  return kept.map((entry) => entry.draft);
}

/** A caption keeps its paragraphs (a headline line, then the body); each is finished like any text. */
function finishCaption(raw: string, context: FinishContext, max: number, fallback: string): string {
  const paragraphs = raw
    .split(/\n\s*\n/)
    .map((paragraph) => finishText(paragraph, context, max))
    .filter(Boolean);
  let caption = '';
  for (const paragraph of paragraphs) {
    const next = caption ? `${caption}\n\n${paragraph}` : paragraph;
    if (next.length <= max) caption = next;
    else {
      // The last paragraph that does not fit whole is cut at a sentence or word boundary.
      const room = max - caption.length - 2;
      if (room > 40) caption = caption ? `${caption}\n\n${fitLength(paragraph, room)}` : fitLength(paragraph, max);
      break;
    }
  }
  return caption || finishText(fallback, context, max);
}

/** A draft that meets the rules above, whichever engine wrote it. */
export function finishDraft(raw: RawDraft, context: FinishContext, index: number): CopyDraft {
  const { brand, channels } = context;
  const title = context.product ? cleanText(context.product.title, 80) : '';
  const displayName = cleanText(brand.profile.displayName, 80);
  const headline = finishText(raw.headline, context, COPY_LIMITS.headline, title || displayName || 'See what is new');
  const body = finishText(raw.body, context, COPY_LIMITS.body, headline);
  const hashtags = [...new Set((raw.hashtags ?? []).map((tag) => toHashtag(tag)))]
    .filter((tag): tag is string => !!tag && !brand.voice.dontSay.some((phrase) => containsPhrase(tag, phrase)))
    .slice(0, 5);
  const tags = hashtags.join(' ');
  return {
    name: cleanText(raw.name, 60) || `Variant ${index + 1}`,
    headline,
    body,
    callToAction: finishText(raw.callToAction, context, COPY_LIMITS.callToAction, 'See details'),
    channelFields: {
      ...(channels.includes('email')
        ? {
            email: {
              subject: finishText(raw.emailSubject || headline, context, COPY_LIMITS.emailSubject, title || headline),
              preheader: finishText(raw.emailPreheader || body, context, COPY_LIMITS.emailPreheader, headline),
            },
          }
        : {}),
      ...(channels.includes('social')
        ? {
            social: {
              // UTF-16 length bounds the grapheme count from above, so this fits a grapheme limit too.
              caption: finishCaption(
                raw.socialCaption || `${headline}\n\n${body}`,
                context,
                SOCIAL_CAPTION_LIMIT - (tags ? tags.length + 1 : 0),
                headline,
              ),
              hashtags,
            },
          }
        : {}),
      ...(channels.includes('web') && displayName
        ? { web: { eyebrow: fitLength(displayName, COPY_LIMITS.webEyebrow) } }
        : {}),
    },
  };
}
