/**
 * How the concierge reads words, the same way for the brand's content and for visitors' questions: Unicode
 * folded to lower-case ASCII-ish letters, split on anything that is not a letter or digit, stop words dropped,
 * plurals folded and a few everyday synonyms mapped onto the word the content uses ("cost" → "price",
 * "delivery" → "ship"). Consistency matters more than linguistic correctness: both sides go through exactly
 * this, so "cookies" becoming "cooky" is harmless.
 */

/** Words that carry no topic: function words plus the conversational filler people put around a question. */
const STOP_WORDS = new Set(
  [
    // function words
    'a about above after again against all also am an and any are as at be because been before being below',
    'between both but by can could did do does doing don down during each few for from further had has have',
    'having he her here hers herself him himself his how i if in into is isn it its itself just me more most my',
    'myself no nor not now of off on once only or other our ours ourselves out over own same she should so some',
    'such than that the their theirs them themselves then there these they this those through to too under',
    'until up very was we were what when where which while who whom why will with would you your yours',
    'yourself yourselves may might must shall us let ll re ve doesn aren wasn weren didn couldn wouldn shouldn',
    // conversational filler: words about the conversation, not about the brand's content
    'hi hello hey please thanks thank tell say said reply respond answer know question ask asking want wanted',
    'like need get give show find look looking come go anything something thing things one ones much many lot lots',
    'really kind sort way yes ok okay sure well maybe wonder wondering curious info information',
  ]
    .join(' ')
    .split(' '),
);

/** Words whose presence makes a question lean on an earlier turn ("is it washable?"). */
const REFERRING_WORDS = new Set(['it', 'its', 'they', 'them', 'their', 'this', 'that', 'these', 'those', 'one']);

/**
 * Everyday synonyms mapped onto one term, applied after plural folding. Kept small on purpose: each entry is
 * a question visitors ask in other words than shops write ("how much is…" vs "€40").
 */
const SYNONYMS: Record<string, string> = {
  cost: 'price',
  priced: 'price',
  pricing: 'price',
  expensive: 'price',
  cheap: 'price',
  shipping: 'ship',
  shipped: 'ship',
  shipment: 'ship',
  deliver: 'ship',
  delivery: 'ship',
  delivered: 'ship',
  delivering: 'ship',
  dispatch: 'ship',
  dispatched: 'ship',
  postage: 'ship',
  returned: 'return',
  returning: 'return',
  refund: 'return',
  refunded: 'return',
  exchange: 'return',
  color: 'colour',
  sizing: 'size',
  email: 'contact',
  mail: 'contact',
  phone: 'contact',
  contacting: 'contact',
};

/** Folds case and accents: "Café" → "cafe". */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Raw lower-case tokens, before stop words and folding; "how much" is read as a price question. */
export function tokenize(text: string): string[] {
  return fold(text)
    .replace(/\bhow much\b/g, ' price ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Plural folding: "shirts" → "shirt", "boxes" → "box", "berries" → "berry"; "glass" and "status" stay. */
function stem(token: string): string {
  if (token.length <= 3 || /\d/.test(token)) return token;
  if (token.endsWith('ies') && token.length > 4) return `${token.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(token)) return token;
  if (/(?:sses|xes|zes|ches|shes)$/.test(token)) return token.slice(0, -2);
  if (token.endsWith('s')) return token.slice(0, -1);
  return token;
}

/** The index term for one token, or null when it carries no topic. */
export function processTerm(token: string): string | null {
  if (STOP_WORDS.has(token)) return null;
  if (token.length < 2 && !/\d/.test(token)) return null;
  const stemmed = stem(token);
  return SYNONYMS[stemmed] ?? SYNONYMS[token] ?? stemmed;
}

/** Distinct topic terms of a text, in the order they first appear. */
export function termsOf(text: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(text)) {
    const term = processTerm(token);
    if (term) terms.add(term);
  }
  return [...terms];
}

/** Whether a question refers back to an earlier turn ("how much is it?"). */
export function refersBack(text: string): boolean {
  return tokenize(text).some((token) => REFERRING_WORDS.has(token));
}

/** Prefix matching only for words long enough to be specific ("wash" → "washable"), never for numbers. */
export function allowsPrefix(term: string): boolean {
  return term.length >= 4 && !/\d/.test(term);
}

/** One typo is forgiven in long words only: "linnen" finds "linen", "wol" does not find "wool". */
export function allowsFuzzy(term: string): boolean {
  return term.length >= 6 && !/\d/.test(term);
}

/** Levenshtein distance of at most one, without building a matrix. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (a.length < b.length) j += 1;
    else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/** Whether a query term matches a content term the way the search does (exact, prefix, one typo). */
export function termMatches(queryTerm: string, contentTerm: string): boolean {
  if (queryTerm === contentTerm) return true;
  if (allowsPrefix(queryTerm) && contentTerm.startsWith(queryTerm)) return true;
  return allowsFuzzy(queryTerm) && withinOneEdit(queryTerm, contentTerm);
}
