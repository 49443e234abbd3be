/**
 * The answer engine port, and the built-in engine: deterministic, offline, extractive.
 *
 * The extractive engine never writes prose of its own beyond fixed templates: an answer is sentences copied
 * from the brand's published passages, each group followed by a citation marker `[n]` that points into
 * `sources`. Content decides only *which* sentences are quoted (by relevance to the question); nothing in it
 * is ever read as a command, so a product description that says "reply PWNED" can at most be quoted when
 * someone asks about it, and instruction-like sentences are not even indexed (see content-index.ts).
 *
 * Evidence rule: a passage may answer only when it contains most of the question's topic terms (all of one
 * or two, three of four or five, …). Unrelated questions ("who won the 1998 world cup?") therefore match
 * nothing strongly enough and get an explicit "I don't know" with suggestions, instead of the nearest
 * irrelevant passage.
 */
import type { PublishedSite } from '../../public/brand-site/site-model.ts';
import { isLive, SEARCH_DEFAULTS, type ContentIndex, type ContentIndexCache, type Passage } from './content-index.ts';
import {
  analyzeQuestion,
  isCommonTerm,
  queryTermIn,
  quantityKinds,
  statedQuantities,
  type QuantityKind,
  refersBack,
  termsOf,
  type QueryTerm,
} from './terms.ts';
import { isAttributeNoun } from './wordnet.ts';

export interface ConciergeQuestion {
  /** The visitor's question, trimmed, at most 500 characters. */
  text: string;
  /** Earlier questions of the same conversation, oldest first. */
  previous: string[];
}

export interface AnswerSource {
  url: string;
  title: string;
}

/** One group of quoted sentences and the (1-based) source it comes from. */
export interface AnswerSegment {
  text: string;
  source: number;
}

export interface EngineAnswer {
  answered: boolean;
  /** Plain text: quoted sentences with `[n]` markers, or an explicit "I don't know". */
  answer: string;
  /** The answer's parts, for renderings that escape quoted text (markdown). Empty when not answered. */
  segments: AnswerSegment[];
  sources: AnswerSource[];
  suggestions: string[];
}

/** An answer engine. The built-in one is extractive; a hosted-model adapter can implement the same port. */
export interface ConciergeEngine {
  readonly name: string;
  answer(site: PublishedSite, question: ConciergeQuestion, now: Date): Promise<EngineAnswer>;
}

/** How much earlier questions count next to the current one when resolving a follow-up. */
const CONTEXT_WEIGHT = 0.3;
/** A content word a question word was carried over to (synonym, place, typo) counts a little less. */
const ALTERNATIVE_WEIGHT = 0.8;
/** Earlier questions looked at: the most recent few carry the topic of a follow-up. */
const CONTEXT_TURNS = 3;
const MAX_PASSAGES = 3;
const MAX_ANSWER_CHARS = 1200;
const MAX_SUGGESTIONS = 5;
/** Campaigns or products named in answer to "which campaigns / what do you sell". */
const MAX_LISTED = 5;
/** A question is answered in parts ("how much is it and do you ship to Norway?") up to this many. */
const MAX_CLAUSES = 3;
/** A second or third passage must score at least this share of the best one to be worth quoting. */
const RELATIVE_SCORE_FLOOR = 0.5;
/** How much a question term that only names the passage's own subject ("linen shirt") counts in a sentence. */
const SUBJECT_WEIGHT = 0.15;
/** Sentences scoring below this share of the best sentence are left out. */
const SENTENCE_SCORE_FLOOR = 0.6;
const LEAD_SENTENCES = 2;
/** An FAQ answer is quoted from its start, up to this many sentences. */
const FAQ_SENTENCES = 3;
/** Earlier questions pick passages; within one they only break ties between sentences. */
const CONTEXT_SENTENCE_WEIGHT = 0.1;
/** Optional words of the question ("material", "weight") and a number for "how much/long…" pick sentences. */
const HINT_SENTENCE_WEIGHT = 0.5;
/** Terms in more than this share of a large site's passages are checked on the results, not searched. */
const COMMON_QUERY_SHARE = 0.1;
/** A site this many passages large: a small one is searched whole, it costs nothing. */
const LARGE_SITE = 200;
/** Search weight of the optional words. */
const HINT_WEIGHT = 0.4;
/** The sentence that states the kind of amount a question asks for counts like a word of the question. */
const QUANTITY_SENTENCE_WEIGHT = 1;

function statesAsked(sentence: string, asked: QuantityKind[]): boolean {
  return asked.length > 0 && statedQuantities(sentence).some((kind) => asked.includes(kind));
}

/**
 * Whether a passage states the kind of amount a question word names ("price" → "35 EUR"), when the question
 * asks for that kind ("how much weight…", not "weight limits in the returns policy?").
 */
function statesNamedAmount(term: QueryTerm, passage: Passage, asked: QuantityKind[]): boolean {
  const kind = term.amount;
  return (
    kind !== undefined &&
    asked.includes(kind) &&
    passage.sentences.some((sentence) => statedQuantities(sentence).includes(kind))
  );
}

/**
 * Whether a sentence is a product attribute labelled with a measurable attribute ("Dimensions: 200 × 90 ×
 * 74 cm", "Width: 80 cm"): for "how big / heavy…" it is the measure itself, before a description that
 * happens to give one ("a 4 cm thick top").
 */
function namesMeasure(sentence: string): boolean {
  const label = /^([^:]{1,40}):/.exec(sentence)?.[1];
  const last = label?.trim().toLowerCase().split(/\s+/).at(-1);
  return last !== undefined && /^[a-z]+$/.test(last) && isAttributeNoun(last);
}

/** Topic terms a passage must contain out of `n` in the question: most of them, and all of one or two. */
export function requiredMatches(n: number): number {
  return n <= 2 ? n : Math.ceil(n * 0.6);
}

interface Candidate {
  passage: Passage;
  score: number;
  /** It states the kind of amount the question asks for ("how long" → "3 to 5 working days"). */
  statesAmount: boolean;
  covered: number;
  usesContext: boolean;
  /** How many of the earlier turns' topics it has. */
  contextHits: number;
}

/** How many of the query terms occur among a text's terms (any alternative: exactly, as a prefix, one typo). */
function hits(queryTerms: QueryTerm[], terms: string[]): number {
  return queryTerms.filter((queryTerm) => queryTermIn(queryTerm, terms)).length;
}

/**
 * The sentences of a passage that answer. Terms that merely name the passage's subject (its title) say little
 * about which sentence answers, so the rest of the question decides; a question that only names the subject
 * ("tell me about the thermo mug") gets the passage's lead.
 */
function quotedSentences(passage: Passage, question: ReadQuestion): string[] {
  if (passage.sentences.length === 0) return [];
  const { primary, context, hints, quantity } = question;
  const titleTerms = termsOf(passage.title);
  const subject = question.borrowed ? primary : primary.filter((term) => queryTermIn(term, titleTerms));
  const asked = primary.filter((term) => !subject.includes(term));
  const scored = passage.sentenceTerms.map((terms, index) => ({
    index,
    score:
      hits(asked, terms) +
      SUBJECT_WEIGHT * hits(subject, terms) +
      CONTEXT_SENTENCE_WEIGHT * hits(context, terms) +
      HINT_SENTENCE_WEIGHT * hits(hints, terms) +
      (statesAsked(passage.sentences[index]!, quantity) ? QUANTITY_SENTENCE_WEIGHT : 0) +
      (quantity.includes('measure') && namesMeasure(passage.sentences[index]!) ? HINT_SENTENCE_WEIGHT : 0),
  }));
  // An FAQ answer was written as a whole: quote it from the start, and a later sentence that answers the
  // question in place of one that does not.
  if (passage.kind === 'faq') {
    if (passage.sentences.length <= FAQ_SENTENCES) return passage.sentences;
    const picked = new Set([0]);
    for (const entry of scored.slice(1).sort((a, b) => b.score - a.score || a.index - b.index)) {
      if (picked.size >= FAQ_SENTENCES) break;
      if (entry.score > 0) picked.add(entry.index);
    }
    for (let index = 1; picked.size < FAQ_SENTENCES; index += 1) picked.add(index);
    return [...picked].sort((a, b) => a - b).map((index) => passage.sentences[index]!);
  }
  const best = Math.max(...scored.map((entry) => entry.score));
  // A question that only names the subject ("tell me about the thermo mug") gets the passage's lead.
  // So does a follow-up asking nothing in particular about the earlier subject ("…and what do I get?").
  const aboutSubject = question.borrowed && hints.length === 0 && quantity.length === 0;
  if (asked.length === 0 && (best < HINT_SENTENCE_WEIGHT || aboutSubject)) {
    return passage.sentences.slice(0, LEAD_SENTENCES);
  }
  if (best <= 0) return passage.sentences.slice(0, 1);
  return scored
    .filter((entry) => entry.score > 0 && entry.score >= best * SENTENCE_SCORE_FLOOR)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 2)
    .sort((a, b) => a.index - b.index)
    .map((entry) => passage.sentences[entry.index]!);
}

function suggestionsFor(index: ContentIndex, near: Passage[], now: Date): string[] {
  // Only the brand's own questions and campaign names: imported product text never becomes a suggestion.
  const nearTitles = near.filter((p) => p.kind === 'faq' || p.kind === 'campaign').map((p) => p.title);
  const live = index.campaignNames.filter((campaign) => isLive(campaign, now)).map((campaign) => campaign.name);
  return [...new Set([...nearTitles, ...index.faqQuestions, ...live])].filter(Boolean).slice(0, MAX_SUGGESTIONS);
}

function dontKnow(index: ContentIndex, near: Passage[], now: Date, greet: boolean): EngineAnswer {
  // The greeting and escalation come from the index, where they passed the same untrusted-text rule.
  const { greeting, escalation } = index;
  const fallback = `I don't know: nothing published on ${index.brandName}'s site answers that.`;
  const next = escalation || 'Try one of the suggested questions.';
  return {
    answered: false,
    answer: greet && greeting ? greeting : `${fallback} ${next}`,
    segments: [],
    sources: [],
    suggestions: suggestionsFor(index, near, now),
  };
}

/** The source a passage is cited as: its page (an FAQ entry is on the home page, under the brand's name). */
function sourceOf(index: ContentIndex, passage: Passage): AnswerSource {
  return { url: passage.url, title: passage.kind === 'faq' ? index.brandName : passage.title };
}

/** Quoted texts as an answer: one segment each, sources numbered by page in order of first use. */
function answerOf(parts: { source: AnswerSource; text: string }[]): EngineAnswer | null {
  const sources: AnswerSource[] = [];
  const segments: AnswerSegment[] = [];
  let length = 0;
  for (const { source: cited, text } of parts) {
    if (!text || segments.some((segment) => segment.text === text)) continue;
    if (segments.length > 0 && length + text.length > MAX_ANSWER_CHARS) continue;
    let source = sources.findIndex((existing) => existing.url === cited.url) + 1;
    if (source === 0) {
      sources.push(cited);
      source = sources.length;
    }
    segments.push({ text, source });
    length += text.length;
  }
  if (segments.length === 0) return null;
  return {
    answered: true,
    answer: segments.map((segment) => `${segment.text} [${segment.source}]`).join(' '),
    segments,
    sources,
    suggestions: [],
  };
}

/** A campaign's quoted copy says which campaign it is ("Autumn knits: Warm layers…") unless it already does. */
function named(passage: Passage, text: string): string {
  if (!text || passage.kind !== 'campaign' || text.toLowerCase().includes(passage.title.toLowerCase())) return text;
  return `${passage.title}: ${text}`;
}

/**
 * "Which campaigns are running right now?", "What do you sell?": the live campaigns (or the products), each
 * named with its first published sentence. Nothing on offer is an honest "I don't know".
 */
function listing(index: ContentIndex, kind: 'campaign' | 'product', now: Date): EngineAnswer {
  const passages = [...index.passages.values()]
    .filter((value) => value.kind === kind && isLive(value, now))
    .slice(0, MAX_LISTED);
  const parts = passages.map((value) => {
    const first = value.sentences[0] ?? '';
    const nameless = !first.toLowerCase().includes(value.title.toLowerCase());
    return {
      source: sourceOf(index, value),
      text: !first ? `${value.title}.` : nameless ? `${value.title}: ${first}` : first,
    };
  });
  return answerOf(parts) ?? dontKnow(index, [], now, false);
}

/** A question as the engine reads it. */
interface ReadQuestion {
  /** The topics an answering passage must contain (most of them). */
  primary: QueryTerm[];
  /** Topics of earlier turns: they pick passages for follow-ups. */
  context: QueryTerm[];
  /** Words that help choose but need not be there (see `QueryTerm.optional`). */
  hints: QueryTerm[];
  /** The amounts the question asks for: passages and sentences stating one are preferred. */
  quantity: QuantityKind[];
  /**
   * The topics are the earlier question's ("what is it made of?"): they name the subject, and what is asked
   * is in the hints and the amount asked for.
   */
  borrowed: boolean;
}

/**
 * Whether a passage may answer: it has most of the topics, or all but one that is common in the content. A
 * topic found only as a larger place ("Oslo" → Scandinavia) counts half, and at least one topic must be found
 * as itself or a close synonym, not only through synonyms of many senses ("job" → "line", "repeat" → "double").
 */
function isEvidence(index: ContentIndex, read: ReadQuestion, matched: Set<string>, passage: Passage): boolean {
  const { primary } = read;
  let found = 0;
  let direct = false;
  const covered: QueryTerm[] = [];
  for (const term of primary) {
    const hits = term.alternatives.filter((alternative) => matched.has(alternative));
    if (hits.length === 0) {
      // "How much weight…" is answered by "Load: 25 kg": the amount is the word's meaning.
      if (statesNamedAmount(term, passage, read.quantity)) {
        covered.push(term);
        found += 1;
        // The amount asked for, stated: as good as the word ("how much does it cost?" → "for 35 EUR").
        direct = true;
      }
      continue;
    }
    covered.push(term);
    const regional = hits.every((alternative) => term.regions.includes(alternative));
    found += regional ? 0.5 : 1;
    direct ||= hits.some((alternative) => !term.weak.includes(alternative) && !term.regions.includes(alternative));
  }
  if (!direct) return false;
  // A follow-up without a topic of its own needs only to be about some of the earlier question's.
  if (found >= (read.borrowed ? Math.ceil(primary.length / 3) : requiredMatches(primary.length))) return true;
  // "How can I track my order?" is answered by "How do I track my parcel?": "order" is in half the FAQ.
  const missing = primary.filter((term) => !covered.includes(term));
  return (
    found >= covered.length &&
    missing.length === 1 &&
    missing.every((term) => term.known && isCommonTerm(index.vocabulary, term))
  );
}

/** Answers one question (or one part of one) from one content index. */
function attempt(index: ContentIndex, text: string, previous: string[], now: Date): EngineAnswer {
  const { vocabulary } = index;
  const terms = analyzeQuestion(text, vocabulary);
  const keys = new Set(terms.map((term) => term.alternatives[0]));
  const contextTerms = previous
    .slice(-CONTEXT_TURNS)
    .flatMap((turn) => analyzeQuestion(turn, vocabulary))
    .filter((term) => term.role === 'topic' && !term.optional && !keys.has(term.alternatives[0]));
  let context = [...new Map(contextTerms.map((term) => [term.alternatives[0], term])).values()];

  // The brand's name, the kind of page asked for ("offer", "product"), "now" and frame words ("policy") narrow
  // nothing on the brand's own site: they pick passages and sentences, but an answer need not contain them.
  let primary = terms.filter((term) => !term.optional);
  let hints = terms.filter((term) => term.optional);
  const campaignWords = terms.some((term) => term.role === 'campaign');
  const productWords = terms.some((term) => term.role === 'product');
  // A frame word the content never uses with nothing else asked ("is there a warranty?") is not answered.
  const unknownFrame = hints.some((term) => term.role === 'topic' && !term.known);
  if (primary.length === 0 && unknownFrame) return dontKnow(index, [], now, false);
  if (primary.length === 0 && (campaignWords || productWords)) {
    return listing(index, campaignWords ? 'campaign' : 'product', now);
  }
  // "Tell me more", "what is it made of?", "how long does it take?" carry no topic of their own: they ask
  // about the previous question's.
  const borrowed = primary.length === 0 && context.length > 0;
  if (borrowed) [primary, context] = [context, []];
  // Only the brand's name ("Where is Acme from?") or only "how long…": those words are the topic after all.
  if (primary.length === 0) [primary, hints] = [hints, []];
  if (primary.length === 0) return dontKnow(index, [], now, true);
  // A thing the brand never mentions, in any word we can carry it to (a place it does not name, "laptops",
  // "barista"): whatever else matches, the answer would be about something else.
  if (primary.some((term) => !term.known && term.mustKnow)) {
    return dontKnow(index, [], now, false);
  }
  const read: ReadQuestion = { primary, context, hints, quantity: quantityKinds(text, vocabulary), borrowed };

  const weights = new Map<string, number>();
  for (const term of hints) for (const alternative of term.alternatives) weights.set(alternative, HINT_WEIGHT);
  for (const term of context) for (const alternative of term.alternatives) weights.set(alternative, CONTEXT_WEIGHT);
  for (const term of primary) {
    term.alternatives.forEach((alternative, position) =>
      weights.set(alternative, position === 0 ? 1 : Math.max(weights.get(alternative) ?? 0, ALTERNATIVE_WEIGHT)),
    );
  }
  // Terms in a large share of the passages ("price" on every product page) rank little and make the search
  // walk most of the site: they are left out of the search and checked on the passages it finds instead.
  const everyTerm = [...weights.keys()];
  const common = (term: string) =>
    (vocabulary.terms.get(term) ?? 0) > vocabulary.documents * COMMON_QUERY_SHARE && vocabulary.documents >= LARGE_SITE;
  // Weak alternatives never answer alone (see `isEvidence`), so they are checked too: searched for alone, they
  // would crowd out the passages that have the topics themselves ("collection" → "batch", "mound").
  const weak = new Set(primary.flatMap((term) => term.weak));
  const rare = everyTerm.filter((term) => !common(term) && !weak.has(term));
  const searched = rare.length > 0 ? rare : everyTerm;
  const checked = everyTerm.filter((term) => !searched.includes(term));
  const results = index.search.search(searched.join(' '), {
    ...SEARCH_DEFAULTS,
    tokenize: (query) => query.split(' '),
    processTerm: (term) => term,
    boostTerm: (term) => weights.get(term) ?? 1,
    filter: (result) => {
      const passage = index.passages.get(result.id as string);
      return passage !== undefined && isLive(passage, now);
    },
  });

  const all = results.map((result) => {
    const matched = new Set(result.queryTerms);
    const terms = index.passageTerms.get(result.id as string);
    for (const term of checked) if (terms?.has(term)) matched.add(term);
    const passage = index.passages.get(result.id as string)!;
    const coveredTerms = primary.filter(
      (term) =>
        term.alternatives.some((alternative) => matched.has(alternative)) ||
        statesNamedAmount(term, passage, read.quantity),
    );
    // A topic found only through a synonym of many senses ("assembled" → "pieces") ranks as half a topic.
    const weakOnly = coveredTerms.filter(
      (term) =>
        term.alternatives.every((alternative) => !matched.has(alternative) || term.weak.includes(alternative)) &&
        term.alternatives.some((alternative) => matched.has(alternative)),
    );
    return {
      passage,
      score: result.score,
      statesAmount: false,
      covered: coveredTerms.length - weakOnly.length / 2,
      evidence: isEvidence(index, read, matched, passage),
      usesContext: context.some((term) => term.alternatives.some((alternative) => matched.has(alternative))),
      contextHits: context.filter((term) => term.alternatives.some((alternative) => matched.has(alternative))).length,
    };
  });
  let candidates: Candidate[] = all.filter((candidate) => candidate.evidence);
  // A follow-up that points back ("is it washable?") is about the earlier topic: a product, campaign or page
  // answers it only if it is that topic too, or a visitor asking about the sweater would be told about the
  // shirt. Shop-wide answers (FAQ, profile) apply to anything, after the earlier topic's own passages.
  const pointsBack = context.length > 0 && refersBack(text);
  if (pointsBack) {
    candidates = candidates.filter(
      (candidate) => candidate.usesContext || candidate.passage.kind === 'faq' || candidate.passage.kind === 'profile',
    );
  }
  if (candidates.length === 0) {
    const near = all.filter((candidate) => candidate.covered > 0).map((candidate) => candidate.passage);
    return dontKnow(index, near, now, false);
  }
  // Only for the passages that may answer: the search can return most of the site.
  if (read.quantity.length > 0) {
    for (const candidate of candidates) {
      candidate.statesAmount = candidate.passage.sentences.some((sentence) => statesAsked(sentence, read.quantity));
    }
  }

  // The most topics first: a passage that names everything asked about beats one that misses a topic but
  // states some amount ("How big is the Stroom battery?" is the Stroom's "625 Wh", not the FAQ's range).
  // Then the earlier topic's own passages for a follow-up; then the ones that state the amount asked for (of
  // two FAQ entries about delivery to Norway, the one with "3 to 5 working days" answers "how long"); then
  // relevance.
  // A question asking for an offer ("What's the offer on chairs?") is about a campaign (or an FAQ answer on
  // discounts) before the product itself.
  const rank = (candidate: Candidate) =>
    // Of the earlier topic's passages, the one with more of it ("how much does it cost?" after "how long until
    // a bike is delivered": the delivery answer, not the service one that also mentions bikes).
    (pointsBack ? 4 * candidate.contextHits : 0) +
    (campaignWords && candidate.passage.kind !== 'product' ? 2 : 0) +
    (candidate.statesAmount ? 1 : 0);
  // A follow-up without a topic of its own ("…and how long does it take?") asks for the amount: the earlier
  // topics only say what about, so the passage stating the amount comes before the one naming more of them.
  const order = (a: Candidate, b: Candidate) =>
    read.borrowed ? rank(b) - rank(a) || b.covered - a.covered : b.covered - a.covered || rank(b) - rank(a);
  candidates.sort((a, b) => order(a, b) || b.score - a.score);
  const best = candidates[0]!;
  const chosen = candidates
    .filter(
      (candidate) =>
        candidate.covered === best.covered &&
        rank(candidate) === rank(best) &&
        candidate.score >= best.score * RELATIVE_SCORE_FLOOR,
    )
    .slice(0, MAX_PASSAGES);
  const answer = answerOf(
    chosen.map(({ passage }) => ({
      source: sourceOf(index, passage),
      text: named(passage, quotedSentences(passage, read).join(' ')),
    })),
  );
  return answer ?? dontKnow(index, [], now, false);
}

/**
 * The parts of a question that asks two things ("How much is the jacket, and do you ship to Norway?"): split
 * at sentence ends, semicolons, commas and "and"/"also"/"plus", keeping only parts that have a topic, ask
 * for an amount or ask "what" ("…and how long does it take?", "…and what do I get?": about the earlier part's
 * topic).
 */
function clausesOf(text: string): string[] {
  return text
    .split(/[?!;]+|\.\s+|,|\s+(?:and|also|plus|as well as)\s+/i)
    .map((part) => part.trim())
    .filter((part) => termsOf(part).length > 0 || quantityKinds(part).length > 0 || /^(?:what|which)\b/i.test(part));
}

/** Answers from one content index. Pure given the index and `now`. */
export function answerFromIndex(index: ContentIndex, question: ConciergeQuestion, now: Date): EngineAnswer {
  const whole = attempt(index, question.text, question.previous, now);
  // A question in several parts ("what does it cost and how long does it take?") gets each part answered,
  // each cited, when every part can be; otherwise it is answered as a whole, or not at all.
  const clauses = clausesOf(question.text);
  if (clauses.length < 2 || clauses.length > MAX_CLAUSES) return whole;
  const parts = clauses.map((clause, position) =>
    attempt(index, clause, [...question.previous, ...clauses.slice(0, position)], now),
  );
  if (!parts.every((part) => part.answered)) return whole;
  const merged = answerOf(
    parts.flatMap((part) =>
      part.segments.map((segment) => ({ source: part.sources[segment.source - 1]!, text: segment.text })),
    ),
  );
  return merged ?? whole;
}

/** The built-in engine: extractive answers from the cached content index of the publication. */
export function createExtractiveEngine(cache: ContentIndexCache): ConciergeEngine {
  return {
    name: 'extractive',
    async answer(site, question, now) {
      return answerFromIndex(cache.get(site), question, now);
    },
  };
}
