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
import { refersBack, termMatches, termsOf } from './terms.ts';

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
/** Earlier questions looked at: the most recent few carry the topic of a follow-up. */
const CONTEXT_TURNS = 3;
const MAX_PASSAGES = 3;
const MAX_ANSWER_CHARS = 1200;
const MAX_SUGGESTIONS = 5;
/** A second or third passage must score at least this share of the best one to be worth quoting. */
const RELATIVE_SCORE_FLOOR = 0.5;
/** How much a question term that only names the passage's own subject ("linen shirt") counts in a sentence. */
const SUBJECT_WEIGHT = 0.15;
/** Sentences scoring below this share of the best sentence are left out. */
const SENTENCE_SCORE_FLOOR = 0.6;
const LEAD_SENTENCES = 2;
/** Earlier questions pick passages; within one they only break ties between sentences. */
const CONTEXT_SENTENCE_WEIGHT = 0.1;

/** Topic terms a passage must contain out of `n` in the question: most of them, and all of one or two. */
export function requiredMatches(n: number): number {
  return n <= 2 ? n : Math.ceil(n * 0.6);
}

interface Candidate {
  passage: Passage;
  score: number;
  covered: number;
  usesContext: boolean;
}

/** How many of the query terms occur among a text's terms (exactly, as a prefix or with one typo). */
function hits(queryTerms: string[], terms: string[]): number {
  return queryTerms.filter((queryTerm) => terms.some((term) => termMatches(queryTerm, term))).length;
}

/**
 * The sentences of a passage that answer. Terms that merely name the passage's subject (its title) say little
 * about which sentence answers, so the rest of the question decides; a question that only names the subject
 * ("tell me about the thermo mug") gets the passage's lead.
 */
function quotedSentences(passage: Passage, primary: string[], context: string[]): string[] {
  if (passage.sentences.length === 0) return [];
  // An FAQ answer was written as a whole: quote its opening sentences as they are.
  if (passage.kind === 'faq') return passage.sentences.slice(0, 3);
  const titleTerms = termsOf(passage.title);
  const subject = primary.filter((term) => hits([term], titleTerms) > 0);
  const asked = primary.filter((term) => !subject.includes(term));
  if (asked.length === 0) return passage.sentences.slice(0, LEAD_SENTENCES);
  const scored = passage.sentenceTerms.map((terms, index) => ({
    index,
    score: hits(asked, terms) + SUBJECT_WEIGHT * hits(subject, terms) + CONTEXT_SENTENCE_WEIGHT * hits(context, terms),
  }));
  const best = Math.max(...scored.map((entry) => entry.score));
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

/** Answers from one content index. Pure given the index and `now`. */
export function answerFromIndex(index: ContentIndex, question: ConciergeQuestion, now: Date): EngineAnswer {
  let primary = termsOf(question.text);
  let context = [...new Set(question.previous.slice(-CONTEXT_TURNS).flatMap((text) => termsOf(text)))].filter(
    (term) => !primary.includes(term),
  );
  // "Tell me more" carries no topic of its own: it asks the previous question again.
  if (primary.length === 0 && context.length > 0) [primary, context] = [context, []];
  if (primary.length === 0) return dontKnow(index, [], now, true);

  const weights = new Map<string, number>([
    ...context.map((term) => [term, CONTEXT_WEIGHT] as const),
    ...primary.map((term) => [term, 1] as const),
  ]);
  const results = index.search.search([...primary, ...context].join(' '), {
    ...SEARCH_DEFAULTS,
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term,
    boostTerm: (term) => weights.get(term) ?? 1,
    filter: (result) => {
      const passage = index.passages.get(result.id as string);
      return passage !== undefined && isLive(passage, now);
    },
  });

  const required = requiredMatches(primary.length);
  const all: Candidate[] = results.map((result) => ({
    passage: index.passages.get(result.id as string)!,
    score: result.score,
    covered: primary.filter((term) => result.queryTerms.includes(term)).length,
    usesContext: context.some((term) => result.queryTerms.includes(term)),
  }));
  let candidates = all.filter((candidate) => candidate.covered >= required);
  // A follow-up that points back ("is it washable?") is about the earlier topic: a product, campaign or page
  // answers it only if it is that topic too, or a visitor asking about the sweater would be told about the
  // shirt. Shop-wide answers (FAQ, profile) apply to anything.
  if (context.length > 0 && refersBack(question.text)) {
    candidates = candidates.filter(
      (candidate) => candidate.usesContext || candidate.passage.kind === 'faq' || candidate.passage.kind === 'profile',
    );
  }
  if (candidates.length === 0) {
    const near = all.filter((candidate) => candidate.covered > 0).map((candidate) => candidate.passage);
    return dontKnow(index, near, now, false);
  }

  candidates.sort((a, b) => b.covered - a.covered || b.score - a.score);
  const best = candidates[0]!;
  const chosen = candidates
    .filter((candidate) => candidate.covered === best.covered && candidate.score >= best.score * RELATIVE_SCORE_FLOOR)
    .slice(0, MAX_PASSAGES);

  const sources: AnswerSource[] = [];
  const segments: AnswerSegment[] = [];
  let length = 0;
  for (const { passage } of chosen) {
    const text = quotedSentences(passage, primary, context).join(' ');
    if (!text || (segments.length > 0 && length + text.length > MAX_ANSWER_CHARS)) continue;
    let source = sources.findIndex((existing) => existing.url === passage.url) + 1;
    if (source === 0) {
      sources.push({ url: passage.url, title: passage.kind === 'faq' ? index.brandName : passage.title });
      source = sources.length;
    }
    segments.push({ text, source });
    length += text.length;
  }
  if (segments.length === 0) return dontKnow(index, [], now, false);
  return {
    answered: true,
    answer: segments.map((segment) => `${segment.text} [${segment.source}]`).join(' '),
    segments,
    sources,
    suggestions: [],
  };
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
