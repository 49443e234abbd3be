/**
 * A campaign's market (the country its copy speaks to, and that country's locale) and how prices and numbers
 * are written there: `1.299,00 €` in Germany, `12 900 kr` in Sweden, `$59.00` in the United States.
 *
 * The brief step records the market it detected on the brief (`CampaignBrief.market`, see `places.ts`), so
 * every later step — copy, images, video frames, the brand site — formats a product's price the same way by
 * calling `formatProductPrice(product, brief.market)`. This module is pure (Intl only, no data files) so the
 * brand-site renderers can load it.
 */

export interface Market {
  /** ISO 3166-1 alpha-2 country code of the market ("SE"). */
  country: string;
  /** BCP 47 locale used for numbers and prices ("sv-SE"). */
  locale: string;
  /** The place as the brief names it ("Scandinavia", "Oslo", "Germany"), for the copy. */
  place: string;
  /** The countries a region covers ("Scandinavia": SE, NO, DK); the market's own country otherwise. */
  countries: string[];
}

/**
 * Currencies whose whole retail prices are written without decimals in their home markets ("12 900 kr",
 * "1 290 Kč", "4 990 Ft"); everywhere else a whole price keeps its cents ("1.299,00 €", "£35.00"), as
 * price tags there do. Currencies without minor units (JPY, KRW…) never show decimals anyway (Intl knows).
 */
const WHOLE_PRICE_CURRENCIES = new Set(['SEK', 'NOK', 'DKK', 'ISK', 'CZK', 'HUF']);

/** The locale people in `country` read numbers in: the country's most likely language (CLDR likely subtags). */
export function localeForCountry(country: string): string {
  const region = country.toUpperCase();
  if (!/^[A-Z]{2}$/.test(region)) throw new Error(`Not an ISO 3166-1 alpha-2 country code: ${JSON.stringify(country)}`);
  const likely = new Intl.Locale('und', { region }).maximize();
  // Hindi digits and grouping are not what Indian shoppers see on price tags online; English (India) is.
  const language = region === 'IN' ? 'en' : likely.language;
  return `${language}-${region}`;
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let found = formatters.get(key);
  if (!found) {
    // Many inputs, few distinct formats: Intl.NumberFormat is costly to build, cheap to reuse.
    found = new Intl.NumberFormat(locale, options);
    if (formatters.size > 500) formatters.clear();
    formatters.set(key, found);
  }
  return found;
}

/**
 * An amount of `currency` as the market writes it: the market's locale, the currency's symbol as used there,
 * decimals dropped for whole amounts where natives do. Without a market, English (the platform's default).
 * Throws for a currency code Intl does not know, instead of printing something wrong.
 */
export function formatMoney(amount: number, currency: string, market: Pick<Market, 'locale'> | null): string {
  if (!Number.isFinite(amount)) throw new Error(`Not an amount: ${amount}`);
  const code = currency.toUpperCase();
  const locale = market?.locale ?? 'en';
  const whole = Number.isInteger(amount) && WHOLE_PRICE_CURRENCIES.has(code);
  return formatter(locale, {
    style: 'currency',
    currency: code,
    ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
  }).format(amount);
}

/** A product's price for a market (see `formatMoney`), or null when the product has no price or currency. */
export function formatProductPrice(
  product: { price: number | null; currency: string | null } | null,
  market: Pick<Market, 'locale'> | null,
): string | null {
  if (!product || product.price === null || !product.currency) return null;
  return formatMoney(product.price, product.currency, market);
}

/** A plain number as the market writes it ("12 900", "1.299,5"). */
export function formatNumber(value: number, market: Pick<Market, 'locale'> | null): string {
  return formatter(market?.locale ?? 'en', { maximumFractionDigits: 2 }).format(value);
}

/** The market recorded on a stored brief (`campaign.brief`), or null when there is none or it is malformed. */
export function marketOf(brief: unknown): Market | null {
  if (!brief || typeof brief !== 'object') return null;
  const market = (brief as { market?: unknown }).market;
  if (!market || typeof market !== 'object') return null;
  const { country, locale, place, countries } = market as Record<string, unknown>;
  if (typeof country !== 'string' || typeof locale !== 'string') return null;
  try {
    // A locale Intl cannot use would throw on every price later; refuse it here instead.
    new Intl.NumberFormat(locale);
  } catch {
    return null;
  }
  return {
    country,
    locale,
    place: typeof place === 'string' ? place : country,
    countries: Array.isArray(countries) ? countries.filter((c): c is string => typeof c === 'string') : [country],
  };
}

/**
 * Numbers written the English way inside quoted product text ("20,000 mm", "12,000 banks") regrouped for the
 * market ("20 000 mm" in Norway, "20.000 mm" in Germany). Only grouped thousands are touched: they cannot be
 * misread, whereas "2.5" could be a version number and "1,5" is already someone's decimal.
 */
export function localiseNumbers(text: string, market: Pick<Market, 'locale'> | null): string {
  if (!market) return text;
  return text.replace(/(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)/g, (digits) =>
    formatNumber(Number(digits.replace(/,/g, '')), market),
  );
}
