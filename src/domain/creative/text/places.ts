/**
 * Finds the market a brief speaks to from the place names in its intent ("hikers in Scandinavia", "cottage
 * owners in Sweden", "city professionals in Paris", "puppy owners in Texas"): countries by their names in
 * English and in the country's own language (`i18n-iso-countries`), cities of 100,000+ people and their
 * states or provinces (`city-timezones`), and a few multi-country regions.
 *
 * Regions are a small table of our own because neither library knows them and marketers use them a lot. Each
 * lists its countries, largest market first; the largest market's locale formats the prices (within each of
 * these regions the number formats agree closely: `289,00 €` in Sweden, Norway and Denmark alike), and the
 * copy names the region as the brief does.
 *
 * Heavier than `market.ts` (it loads the place data), so only the brief step uses it.
 */
import cityTimezones from 'city-timezones';
import countries from 'i18n-iso-countries';
import { localeForCountry, type Market } from './market.ts';

/** Multi-country regions marketers name (lower case, also their adjectives), largest market first. */
const REGIONS: Record<string, { name: string; countries: string[] }> = {
  scandinavia: { name: 'Scandinavia', countries: ['SE', 'NO', 'DK'] },
  scandinavian: { name: 'Scandinavia', countries: ['SE', 'NO', 'DK'] },
  nordics: { name: 'the Nordics', countries: ['SE', 'DK', 'FI', 'NO', 'IS'] },
  nordic: { name: 'the Nordics', countries: ['SE', 'DK', 'FI', 'NO', 'IS'] },
  'nordic countries': { name: 'the Nordics', countries: ['SE', 'DK', 'FI', 'NO', 'IS'] },
  dach: { name: 'the DACH region', countries: ['DE', 'AT', 'CH'] },
  benelux: { name: 'the Benelux', countries: ['NL', 'BE', 'LU'] },
  iberia: { name: 'Iberia', countries: ['ES', 'PT'] },
  baltics: { name: 'the Baltics', countries: ['LT', 'LV', 'EE'] },
  'baltic states': { name: 'the Baltics', countries: ['LT', 'LV', 'EE'] },
  // The United Kingdom's nations are countries to their people but not ISO countries.
  uk: { name: 'the UK', countries: ['GB'] },
  britain: { name: 'Britain', countries: ['GB'] },
  'great britain': { name: 'Britain', countries: ['GB'] },
  england: { name: 'England', countries: ['GB'] },
  scotland: { name: 'Scotland', countries: ['GB'] },
  wales: { name: 'Wales', countries: ['GB'] },
  'northern ireland': { name: 'Northern Ireland', countries: ['GB'] },
  // English names of states and provinces that the place data (city-timezones) only has in the local
  // language ("Bayern", "Toscana"): the ones briefs for the markets above name most.
  bavaria: { name: 'Bavaria', countries: ['DE'] },
  saxony: { name: 'Saxony', countries: ['DE'] },
  tyrol: { name: 'Tyrol', countries: ['AT'] },
  lapland: { name: 'Lapland', countries: ['FI'] },
  catalonia: { name: 'Catalonia', countries: ['ES'] },
  andalusia: { name: 'Andalusia', countries: ['ES'] },
  tuscany: { name: 'Tuscany', countries: ['IT'] },
  lombardy: { name: 'Lombardy', countries: ['IT'] },
  brittany: { name: 'Brittany', countries: ['FR'] },
  flanders: { name: 'Flanders', countries: ['BE'] },
  // "America" in a marketing brief means the United States; the continents are named in full.
  america: { name: 'America', countries: ['US'] },
};

/** Cities smaller than this are not taken as a market: too many small towns share names with words. */
const MIN_CITY_POPULATION = 100_000;

function key(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').replace(/[’']/g, "'").toLowerCase();
}

interface Place {
  name: string;
  countries: string[];
  kind: 'region' | 'country' | 'province' | 'city';
  /** Only recognised when written with capitals (short aliases like "US", city names like "Nice"). */
  capitalised: boolean;
  /** A city's population (0 for other places). */
  population: number;
}

let index: Map<string, Place> | null = null;

/** Every recognised place name (normalised) → what it is; built once, on first use. */
function placeIndex(): Map<string, Place> {
  if (index) return index;
  const map = new Map<string, Place>();
  const add = (name: string, place: Place) => {
    const k = key(name);
    if (k && !map.has(k)) map.set(k, place);
  };
  for (const [alias, region] of Object.entries(REGIONS))
    add(alias, {
      name: region.name,
      countries: region.countries,
      kind: 'region',
      capitalised: alias === 'uk',
      population: 0,
    });
  const english = countries.getNames('en', { select: 'all' });
  for (const [code, names] of Object.entries(english)) {
    // The country's own name for itself ("Deutschland", "Sverige") counts too.
    const local = countries.getName(code, localeForCountry(code).split('-')[0]!, { select: 'all' }) ?? [];
    const display = names[0]!;
    for (const name of [...names, ...local])
      add(name, {
        name: display,
        countries: [code],
        kind: 'country',
        capitalised: name.replace(/\./g, '').length <= 3,
        population: 0,
      });
  }
  // Provinces and states with at least a few listed cities; the country most of their cities are in.
  const provinces = new Map<string, Map<string, number>>();
  const cities = new Map<string, { name: string; country: string; pop: number }>();
  for (const city of cityTimezones.cityMapping) {
    if (city.province) {
      const byCountry = provinces.get(city.province) ?? new Map<string, number>();
      byCountry.set(city.iso2, (byCountry.get(city.iso2) ?? 0) + 1);
      provinces.set(city.province, byCountry);
    }
    if (city.pop >= MIN_CITY_POPULATION) {
      const known = cities.get(key(city.city));
      if (!known || known.pop < city.pop)
        cities.set(key(city.city), { name: city.city, country: city.iso2, pop: city.pop });
    }
  }
  for (const [name, byCountry] of provinces) {
    const [country, count] = [...byCountry].sort((a, b) => b[1] - a[1])[0]!;
    if (count >= 3) add(name, { name, countries: [country], kind: 'province', capitalised: true, population: 0 });
  }
  for (const city of cities.values())
    add(city.name, {
      name: city.name,
      countries: [city.country],
      kind: 'city',
      capitalised: true,
      population: city.pop,
    });
  index = map;
  return map;
}

const KIND_RANK: Record<Place['kind'], number> = { region: 0, country: 0, province: 1, city: 2 };

/**
 * The market named in a brief's text, or null when it names no place. The first region or country named
 * wins, then a state or province, then a city; a city or state also counts only when written with a capital
 * and not as the first word of a sentence (so "Nice weather" or "Mobile users" do not move the market).
 */
export function detectMarket(text: string): Market | null {
  const places = placeIndex();
  const words = [...text.matchAll(/[\p{L}\p{N}]+(?:[.'’-][\p{L}\p{N}]+)*\.?/gu)];
  let best: { place: Place; at: number; written: string } | null = null;
  for (let i = 0; i < words.length; i += 1) {
    for (let n = 3; n >= 1; n -= 1) {
      if (i + n > words.length) continue;
      const span = words.slice(i, i + n);
      // An n-gram never spans punctuation other than a space between its words.
      const start = span[0]!.index;
      const last = span[n - 1]!;
      const written = text.slice(start, last.index + last[0].length).replace(/\.$/, '');
      if (/[,;:!?()]/.test(written)) continue;
      const place = places.get(key(written)) ?? places.get(key(written.replace(/^the\s+/i, '')));
      if (!place) continue;
      const capitalised = span.every((word) => /^\p{Lu}/u.test(word[0]));
      const sentenceStart = start === 0 || /[.!?;:]\s*$/.test(text.slice(0, start));
      // An intent typed all in lower case ("… in toronto") has no capitals to go by: then only cities of a
      // million or more count, whose names are not everyday words.
      const lowerCaseBig = !/\p{Lu}/u.test(text) && place.kind === 'city' && place.population >= 1_000_000;
      if (
        place.capitalised &&
        !lowerCaseBig &&
        (!capitalised || (place.kind !== 'country' && place.kind !== 'region' && sentenceStart))
      )
        continue;
      if (place.kind === 'country' && place.capitalised && written !== written.toUpperCase()) continue;
      if (!best || KIND_RANK[place.kind] < KIND_RANK[best.place.kind]) best = { place, at: start, written };
      break;
    }
    if (best && KIND_RANK[best.place.kind] === 0) break;
  }
  if (!best) return null;
  const [country] = best.place.countries as [string];
  return {
    country,
    locale: localeForCountry(country),
    // As the brief writes it, unless it wrote it without capitals (then as the place data does: "Toronto").
    place: best.place.kind === 'region' || !/\p{Lu}/u.test(best.written) ? best.place.name : best.written,
    countries: best.place.countries,
  };
}
