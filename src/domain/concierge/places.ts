/**
 * Place names in visitors' questions, resolved to the country they are in: "Oslo" → Norway (the
 * `city-timezones` city list, most populous city of a name), "Norge", "Deutschland", "UK", "USA" → the
 * country (`i18n-iso-countries`, every name and alias in every language it ships). The concierge then looks
 * for the country, or a larger place WordNet says it belongs to (Scandinavia, the EU, Europe), in the brand's
 * own words.
 *
 * Both data sets are loaded on the first question that has a word the brand's content does not use, once per
 * process: the city list is a 1.9 MB JSON file and the country names 78 locale files, too much for start-up.
 */
import { createRequire } from 'node:module';

export interface Place {
  /** ISO 3166-1 alpha-2 code of the country. */
  country: string;
  /** The country's English names and aliases, lower case ("united kingdom", "uk", "great britain"). */
  names: string[];
  /** How it was found: a city's name or a country's name. */
  via: 'city' | 'country';
}

interface CountryNames {
  getNames(lang: string, options: { select: 'all' }): Record<string, string[]>;
  getSupportedLanguages(): string[];
  langs(): string[];
}

interface City {
  city: string;
  city_ascii: string;
  iso2: string;
  pop: number;
}

/**
 * Cities smaller than this are not looked up: small towns share their names with ordinary words and people
 * ("Price", "Mobile" are towns); a visitor naming a town is rarer than one of those.
 */
const MIN_CITY_POPULATION = 100_000;

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

let tables:
  | {
      countries: Map<string, string>;
      englishCountries: Set<string>;
      cities: Map<string, City>;
      english: Map<string, string[]>;
    }
  | undefined;

function load(): NonNullable<typeof tables> {
  if (tables) return tables;
  const require = createRequire(import.meta.url);
  // The package's main entry registers every locale it ships, which is what we want here (and only here).
  const library = require('i18n-iso-countries') as CountryNames;
  const countries = new Map<string, string>();
  const englishCountries = new Set<string>();
  const english = new Map<string, string[]>();
  for (const [code, names] of Object.entries(library.getNames('en', { select: 'all' }))) {
    english.set(code, [...new Set(names.map(fold))]);
  }
  for (const lang of library.langs()) {
    for (const [code, names] of Object.entries(library.getNames(lang, { select: 'all' }))) {
      for (const name of names) {
        const key = fold(name);
        if (!key || countries.has(key)) continue;
        countries.set(key, code);
        if (lang === 'en') englishCountries.add(key);
      }
    }
  }
  const cities = new Map<string, City>();
  for (const city of (require('city-timezones') as { cityMapping: City[] }).cityMapping) {
    if (!(city.pop >= MIN_CITY_POPULATION)) continue;
    for (const name of new Set([fold(city.city), fold(city.city_ascii)])) {
      const known = cities.get(name);
      if (!known || known.pop < city.pop) cities.set(name, city);
    }
  }
  tables = { countries, englishCountries, cities, english };
  return tables;
}

/**
 * The country a phrase (one to three words, any case) names, directly or as one of its cities; null when it
 * names none. `englishOnly` restricts country names to the English ones (for words that are also ordinary
 * English words in some other language's list).
 */
export function placeOf(phrase: string, options: { englishOnly?: boolean } = {}): Place | null {
  const key = fold(phrase);
  if (!key) return null;
  const { countries, englishCountries, cities, english } = load();
  const country = countries.get(key);
  if (country && (!options.englishOnly || englishCountries.has(key))) {
    return { country, names: english.get(country) ?? [], via: 'country' };
  }
  const city = cities.get(key);
  if (city) return { country: city.iso2, names: english.get(city.iso2) ?? [fold(city.city)], via: 'city' };
  return null;
}
