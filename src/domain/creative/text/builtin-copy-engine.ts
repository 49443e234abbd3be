/**
 * The built-in copy engine: deterministic and offline (the default). It writes from three sources and from
 * nothing else — no stock sentences:
 *
 * - the intent, read by `parseIntent`: audience, market, moment, the points to stress, the kind of push;
 * - the product's own facts: its description sentences and attributes, cleaned as untrusted text, matched to
 *   the points to stress by word stems (so "lifetime repairs" finds "free repairs for life");
 * - the brand voice: its "do say" phrases are quoted, its "don't say" phrases scrubbed from everything.
 *
 * Each variant takes another angle — benefit (what the points give the audience, backed by the description),
 * proof (each point answered by an attribute or another clause, then the figures), moment (the occasion or
 * timing, what the others leave out, the attributes with their labels, the price), story (the description in
 * order, in the brand's name) — and so quotes different facts in a different build, rather than reshuffling
 * one set of words; a variant still too close to an earlier one leaves quotes out (`MAX_OVERLAP`). The
 * connecting words are few and short and always sit next to the brief's or the product's own words, so no
 * four-word phrase is the same across unrelated briefs. The copy then goes through the rules every engine's
 * output ends in (`finishDraft`: untrusted text, prices in the market's format, banned phrases, lengths per
 * surface). The same inputs always give the same copy (tests and regenerations are reproducible). Docs:
 * docs/creative.md.
 */
import { stemmer } from 'stemmer';
import type { BrandView } from '../../brand/brand.service.ts';
import type { ProductView } from '../../products/products.service.ts';
import { COPY_LIMITS } from './channel-lengths.ts';
import { finishDraft, MAX_OVERLAP, overlap, trigrams } from './finish.ts';
import type {
  BriefRequest,
  CampaignBrief,
  CopyDraft,
  CopyEngine,
  CopyRequest,
  FilmScript,
  FilmScriptRequest,
  ImageDirection,
  ImageDirectionRequest,
} from './copy-engine.ts';
import { parseIntent, type ParsedIntent } from './intent.ts';
import { formatProductPrice, localiseNumbers, marketOf, type Market } from './market.ts';
import { cleanText, fitLength, looksLikeInstruction, scrubPhrases, sentencesOf } from './sanitize.ts';

/** A currency amount inside product text ("was €349", "save 20 USD"): such sentences are not quoted. */
const MONEY_IN_TEXT =
  /(?:\p{Sc}\s?\d|\d\s?\p{Sc}|\b\d[\d.,]*\s?(?:kr|zł|Kč|Ft|CHF|SEK|NOK|DKK|EUR|USD|GBP|PLN|CZK|HUF|JPY)\b|\b(?:CHF|SEK|NOK|DKK|EUR|USD|GBP|PLN|CZK|HUF|JPY)\s?\d)/u;

const STOP_WORDS = new Set(
  'a an and the of for to in on with by from at as is are be it its our your their this that these those or but'.split(
    ' ',
  ),
);

interface Fact {
  /** As quoted in copy: a clause of the description, or an attribute's value ("410 g", "7 courses"). */
  text: string;
  kind: 'sentence' | 'attribute';
  stems: Set<string>;
  /** An attribute as the product lists it, label and value ("Origin: Ethiopia, Colombia, Brazil"). */
  listed?: string;
}

interface ProductFacts {
  title: string;
  /**
   * What a call to action names the product: the title when short, else "the <noun>" when the title ends in
   * a common noun the description also uses ("the jacket"), else null (the call to action then names none).
   */
  callName: string | null;
  facts: Fact[];
  price: string | null;
}

function stemsOf(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((word) => !STOP_WORDS.has(word)).map((word) => stemmer(word)));
}

/**
 * A long description sentence as the clauses a variant can quote on their own: split after a colon or
 * semicolon, or at a comma before a connecting word ("…, with water-based paint…"), when both sides keep at
 * least four words. Shorter facts let each variant quote different ones.
 */
function clausesOf(sentence: string): string[] {
  if (sentence.length < 80) return [sentence];
  // A comma before a connecting word or a participle ("…, filled with…", "…, sleeping in…") starts a clause.
  const pieces = sentence.split(
    /(?:[:;]|,(?=\s+(?:with|and|so|which|while|plus|where|including|each|then|but|\p{Ll}+(?:ed|ing))\s))\s+/iu,
  );
  const out: string[] = [];
  for (const piece of pieces) {
    const words = piece.split(/\s+/).length;
    if (out.length > 0 && (words < 4 || out.at(-1)!.split(/\s+/).length < 4)) out[out.length - 1] += `, ${piece}`;
    else out.push(piece);
  }
  return out
    .map((clause) =>
      clause
        .replace(/^(?:and|so|but|then)\s+/i, '')
        .replace(/[,;:]$/, '')
        .trim(),
    )
    .filter(Boolean);
}

/** Product facts safe to quote: cleaned, instruction-like sentences and foreign price mentions removed. */
function factsOf(product: ProductView | undefined, market: Market | null): ProductFacts {
  if (!product) return { title: 'our range', callName: null, facts: [], price: null };
  const cleanTitle = cleanText(product.title, 80);
  const title = !cleanTitle || looksLikeInstruction(cleanTitle) ? 'our product' : cleanTitle;
  const description = cleanText(product.description ?? '', 1200);
  const facts: Fact[] = sentencesOf(description)
    .filter((sentence) => !looksLikeInstruction(sentence) && !MONEY_IN_TEXT.test(sentence))
    .flatMap(clausesOf)
    .map((clause) => ({ text: localiseNumbers(clause, market), kind: 'sentence' as const, stems: stemsOf(clause) }));
  for (const [rawKey, rawValue] of Object.entries(product.attributes ?? {}).slice(0, 12)) {
    const label = cleanText(rawKey, 40).replace(/[_-]+/g, ' ').toLowerCase();
    const value = cleanText(String(rawValue), 80);
    if (!label || !value || looksLikeInstruction(`${label} ${value}`) || MONEY_IN_TEXT.test(value)) continue;
    // A bare number needs its label ("courses: 7" reads "7 courses"); "100% recycled nylon" needs none.
    const text = localiseNumbers(/^[\d.,\s×x/-]+$/u.test(value) ? `${value} ${label}` : value, market);
    facts.push({
      text,
      kind: 'attribute',
      stems: stemsOf(`${label} ${value}`),
      listed: `${cap(label)}: ${localiseNumbers(value, market)}`,
    });
  }
  const noun =
    title
      .replace(/\s*\([^)]*\)\s*/g, ' ')
      .trim()
      .split(/\s+/)
      .at(-1)
      ?.toLowerCase() ?? '';
  const common = noun.length >= 3 && new RegExp(`\\b${noun.replace(/[^\p{L}]/gu, '')}\\b`, 'u').test(description);
  return {
    title,
    callName: title.length <= 18 ? title : common ? `the ${noun}` : null,
    facts,
    price: formatProductPrice(product, market),
  };
}

function voiceOf(brand: BrandView): string {
  const tone = cleanText(brand.voice.tone ?? '', 120);
  const personality = brand.voice.personality.map((word) => cleanText(word, 40)).filter(Boolean);
  return [tone, ...personality].filter(Boolean).join(', ') || 'clear, warm and confident';
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function list(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A sentence: capitalised, ending in a full stop unless it already ends in punctuation. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/[\s,;:]+$/, '');
  if (!trimmed) return '';
  return cap(/[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`);
}

/** The first candidate that fits `max` (after trimming), else the last one cut to fit. */
function firstFitting(candidates: (string | null | false | undefined)[], max: number): string {
  const usable = candidates.filter((candidate): candidate is string => !!candidate && candidate.trim() !== '');
  return usable.find((candidate) => candidate.length <= max) ?? fitLength(usable.at(-1) ?? '', max);
}

/** Everything one brief gives the copy, resolved once. */
interface Plan {
  intent: ParsedIntent;
  product: ProductFacts;
  brand: string;
  /** The audience phrase in full ("parents in Vienna and Graz whose children…"), or "people in <place>". */
  who: string | null;
  /** The campaign's moment for headlines and calls to action: its occasion, else its timing. */
  when: string | null;
  /** Points to stress, as copy ("woven by hand", "you can cancel any time"). */
  points: string[];
  /** For each point, the description clause that backs it best (the benefit angle quotes these). */
  support: (Fact | null)[];
  /** For each point, an attribute that backs it, else another clause (the proof angle quotes these). */
  evidence: (Fact | null)[];
  /** Clauses neither of the above quotes, in the description's order. */
  spare: Fact[];
  /** The brand's "do say" phrases of two words or more: said as they are. */
  doSay: string[];
  lively: boolean;
}

/** A point to stress as the brief words it, made into copy: "that it is woven by hand" → "woven by hand". */
function pointOf(item: string): string {
  return item
    .replace(/^(?:that|how|the fact that)\s+/i, '')
    .replace(/^it(?:'s|’s|\s+is)\s+/i, '')
    .replace(/^it\s+(?=\p{Ll})/iu, '')
    .replace(/^they\s+/i, 'you ')
    .trim();
}

/** Whether a point reads as a name of something ("recycled silver"), not a statement ("it is waterproof"). */
function isPhrase(point: string): boolean {
  return !/\b(?:is|are|was|were|has|have|had|can|will|would|does|do|gets|get|makes)\b/i.test(point);
}

/** Seasons are common nouns mid-sentence ("Order for autumn"); feasts and months keep their capitals. */
function midSentence(text: string): string {
  return text.replace(/\b(?:Spring|Summer|Autumn|Fall|Winter)\b/g, (season) => season.toLowerCase());
}

/** The brief's timing when the audience phrase and the occasion do not say it already. */
function unsaidTiming(plan: Plan): string | null {
  const moment = plan.intent.moment;
  if (!moment) return null;
  const said = `${plan.who ?? ''} ${plan.intent.occasion ?? ''} ${plan.intent.object ?? ''}`.toLowerCase();
  return said.includes(moment.toLowerCase()) ? null : midSentence(moment);
}

/** A point without its article, for headlines: "the rear light" → "rear light". */
function bare(point: string): string {
  return point.replace(/^(?:the|a|an)\s+/i, '');
}

/** For each point, the fact among `candidates` sharing most word stems with it (each fact used once). */
function bestFacts(points: string[], candidates: Fact[]): (Fact | null)[] {
  const used = new Set<Fact>();
  return points.map((point) => {
    const stems = stemsOf(point);
    let best: Fact | null = null;
    let bestScore = 0;
    for (const fact of candidates) {
      if (used.has(fact)) continue;
      let score = 0;
      for (const stem of stems) if (fact.stems.has(stem)) score += 1;
      if (score > bestScore) {
        best = fact;
        bestScore = score;
      }
    }
    if (best) used.add(best);
    return best;
  });
}

function planOf(intent: ParsedIntent, product: ProductFacts, brand: BrandView): Plan {
  const doSay = brand.voice.doSay
    .map((phrase) => cleanText(phrase, 80))
    .filter((p) => p.includes(' ') && !looksLikeInstruction(p) && !/^(?:your|our|my|their)\b/i.test(p));
  const clauses = product.facts.filter((fact) => fact.kind === 'sentence');
  const attributes = product.facts.filter((fact) => fact.kind === 'attribute');
  const points =
    intent.stress.length > 0
      ? intent.stress.slice(0, 3).map(pointOf).filter(Boolean)
      : attributes.slice(0, 2).map((fact) => fact.text);
  // The benefit angle quotes the clauses backing the first two points; the others stay for the other angles.
  const support = bestFacts(points, clauses).map((fact, i) => (i < 2 ? fact : null));
  const supporting = new Set(support);
  const fromAttributes = bestFacts(points, attributes);
  const otherClauses = bestFacts(
    points,
    clauses.filter((fact) => !supporting.has(fact)),
  );
  const evidence = points.map((_, i) => fromAttributes[i] ?? otherClauses[i] ?? null);
  const quoted = new Set([...support, ...evidence]);
  return {
    intent,
    product,
    brand: cleanText(brand.profile.displayName, 80) || 'us',
    who: intent.who ?? (intent.market ? `people in ${intent.market.place}` : null),
    when: intent.occasion ?? intent.moment ?? (intent.push === 'launch' ? 'new' : null),
    points,
    support,
    evidence,
    spare: clauses.filter((fact) => !quoted.has(fact)),
    doSay,
    lively: /\b(?:playful|cheerful|fun|energetic|bold|upbeat|lively|excited|joyful)\b/i.test(brand.voice.tone ?? ''),
  };
}

/** A sentence quoted from the product or the brand: a variant may leave it out to differ from the others. */
interface Quote {
  quote: string;
  /** Whether it quotes the product's description (a variant keeps at least one such quote). */
  described: boolean;
}

function quote(text: string, described = false): Quote {
  return { quote: sentence(text), described };
}

interface Written {
  angle: string;
  headline: (string | null | false | undefined)[];
  /** The body's sentences in order: the brief's (always said) and quotes (said when they add something). */
  body: (string | Quote)[];
  callToAction: (string | null | false | undefined)[];
  subject: (string | null | false | undefined)[];
  preheader: (string | null | false | undefined)[];
}

type AngleWriter = (plan: Plan) => Written;

function titled(plan: Plan): string {
  return plan.intent.push === 'launch' ? `the new ${plan.product.title}` : plan.product.title;
}

/** The points not already said by `said` (a title that names one, "The Salt Road — signed first edition"). */
function unsaid(points: string[], said: string): string[] {
  const folded = said.toLowerCase();
  return points.filter((point) => !folded.includes(bare(point).toLowerCase()));
}

/** A fact's text without its closing full stop, for joining with " · ". */
function bareFact(fact: Fact): string {
  return fact.text.replace(/[.!?]$/, '');
}

function distinct(facts: (Fact | null | undefined)[]): Fact[] {
  return [...new Set(facts.filter((fact): fact is Fact => !!fact))];
}

function attributesOf(plan: Plan): Fact[] {
  return plan.product.facts.filter((fact) => fact.kind === 'attribute');
}

/** "Order before winter", "Order for Christmas": a call to action with the brief's timing, when it has one. */
function orderWhen(plan: Plan): string | null {
  const moment = plan.intent.moment;
  if (!moment) return null;
  const said = midSentence(moment);
  return /^(?:before|by|for|this|in|ahead|during|until|next)\b/i.test(said) ? `Order ${said}` : `Order for ${said}`;
}

/** Benefit: the product for this audience, each point, and the description clauses that back them. */
const benefit: AngleWriter = (plan) => {
  const { intent, product, points, who } = plan;
  const [first, second] = points.filter(isPhrase).map(bare);
  const occasion = intent.occasion;
  const proofs = distinct(plan.support);
  const quoted = proofs.length > 0 ? proofs : plan.spare.slice(0, 1);
  const headlines = [
    first && second && intent.audience && `${cap(first)} and ${second} for ${intent.audience}`,
    first && intent.audience && `${cap(first)} for ${intent.audience}`,
    first && `${product.title}: ${first}`,
    product.title,
  ];
  // The occasion leads the headline when it fits there; otherwise the body says it.
  const withOccasion = occasion ? headlines.filter(Boolean).map((headline) => `${cap(occasion)}: ${headline}`) : [];
  const fits = withOccasion.find((headline) => headline.length <= COPY_LIMITS.headline);
  return {
    angle: 'Benefit',
    headline: fits ? [fits] : headlines,
    body: [
      sentence(
        [
          cap(intent.object ?? titled(plan)),
          who ? `for ${who}` : '',
          unsaidTiming(plan) ? `, ${unsaidTiming(plan)}` : '',
        ]
          .filter(Boolean)
          .join(' ')
          .replace(' ,', ','),
      ),
      ...unsaid(points, `${product.title} ${intent.object ?? ''}`).map(sentence),
      ...quoted.map((fact) => quote(fact.text, fact.kind === 'sentence')),
      plan.doSay[0] && !unsaid([plan.doSay[0]], [...points, ...quoted.map((fact) => fact.text)].join(' ')).length
        ? ''
        : plan.doSay[0]
          ? quote(plan.doSay[0])
          : '',
      occasion && !fits ? sentence(`${occasion}, ${product.title}${product.price ? ` at ${product.price}` : ''}`) : '',
      (!occasion || fits) && product.price ? sentence(`${product.title}: ${product.price}`) : '',
    ],
    callToAction: [product.callName && `Get ${product.callName}`, 'Get yours'],
    subject: [
      first && who && `${cap(first)} for ${who}`,
      first && intent.audience && `${cap(first)} for ${intent.audience}`,
      first && `${product.title}: ${first}`,
      product.title,
    ],
    preheader: [
      quoted[0] && product.price && `${bareFact(quoted[0])} · ${product.price}`,
      quoted[0]?.text,
      product.price ? `${product.title}, ${product.price}` : product.title,
    ],
  };
};

/** Proof: every point answered by an attribute or another clause of the description, then the figures. */
const proof: AngleWriter = (plan) => {
  const { intent, product, points, who } = plan;
  const answers = points.map((point, i) => {
    const fact = plan.evidence[i];
    const same = fact && fact.text.toLowerCase().includes(bare(point).toLowerCase());
    return fact && !same ? `${cap(bare(point))}: ${bareFact(fact)}.` : sentence(fact ? fact.text : bare(point));
  });
  const answering = new Set(plan.evidence);
  // One clause of the description too, one the benefit angle does not quote, so every angle quotes the product.
  const clause = plan.evidence.find((fact) => fact?.kind === 'sentence') ?? plan.spare[0] ?? null;
  const figures = attributesOf(plan)
    .filter((fact) => !answering.has(fact))
    .map((fact) => fact.text);
  const values = attributesOf(plan).map((fact) => fact.text);
  return {
    angle: 'Proof',
    headline: [
      values.length >= 2 && `${product.title}: ${values.slice(0, 2).join(', ')}`,
      values.length >= 1 && `${product.title}: ${values[0]}`,
      `${product.title}, ${bare(points[0] ?? plan.brand)}`,
      product.title,
    ],
    body: [
      ...answers,
      clause && !answering.has(clause) ? quote(clause.text, true) : '',
      figures.length > 0 ? quote(figures.join(' · ')) : '',
      who
        ? sentence(
            [intent.occasion ? `${intent.occasion} for ${who}` : `Made for ${who}`, unsaidTiming(plan)]
              .filter(Boolean)
              .join(', '),
          )
        : '',
      product.price ? sentence(`${cap(intent.object ?? product.title)}: ${product.price}`) : '',
    ],
    callToAction: [product.callName && `See ${product.callName}`, 'See details'],
    subject: [
      values[0] && `${product.title}: ${values[0]}`,
      points[0] && `${product.title}: ${bare(points[0])}`,
      product.title,
    ],
    preheader: [
      values.length > 0 && product.price && `${values.join(' · ')} · ${product.price}`,
      values.join(' · '),
      list(points),
    ],
  };
};

/** Moment: the occasion or timing first, the points in reverse, what the others leave out, the price. */
const moment: AngleWriter = (plan) => {
  const { intent, product, points, who, when } = plan;
  // Clauses neither the benefit nor the proof angle quotes (the proof takes the first spare one).
  const spare = plan.spare.slice(plan.evidence.some((fact) => fact?.kind === 'sentence') ? 0 : 1, 3);
  // With every clause already quoted by another angle, the shortest of them: the least said twice.
  const shortest = product.facts
    .filter((fact) => fact.kind === 'sentence')
    .reduce<Fact | null>((found, fact) => (!found || fact.text.length < found.text.length ? fact : found), null);
  const own = spare.length > 0 ? spare : shortest ? [shortest] : [];
  // The attributes as the product lists them, label and value: the proof angle gives only the values.
  const listed = attributesOf(plan)
    .slice(0, 3)
    .map((fact) => fact.listed ?? fact.text);
  const offered = intent.object ?? titled(plan);
  const lead = when && !offered.toLowerCase().includes(when.toLowerCase()) ? `${cap(when)}: ${offered}` : cap(offered);
  // The timing is said once here: out of the audience phrase ("… in September") and the price line.
  const timing =
    intent.moment && /^(?:before|by|for|this|in|ahead|during|until|next)\b/i.test(intent.moment) ? intent.moment : null;
  const audience =
    timing && who?.includes(timing)
      ? who
          .replace(timing, '')
          .replace(/\s{2,}/g, ' ')
          .trim()
      : who;
  const timed = !!timing && audience !== who;
  return {
    angle: when ? 'Moment' : 'Urgency',
    headline: [
      when && intent.audience && `${cap(when)}: ${product.title} for ${intent.audience}`,
      when && `${cap(when)}: ${product.title}`,
      intent.audience && `${product.title} for ${intent.audience}`,
      product.title,
    ],
    body: [
      sentence(audience ? `${lead}, for ${audience}` : lead),
      ...unsaid([...points].reverse(), `${offered} ${product.title}`).map((point) => sentence(bare(point))),
      ...own.map((fact) => quote(fact.text, true)),
      ...listed.map((line) => quote(line)),
      product.price
        ? sentence(
            [
              `${intent.object ? `${product.title}: ` : ''}${product.price}`,
              timed || when === intent.moment ? '' : intent.moment,
            ]
              .filter(Boolean)
              .join(', '),
          )
        : '',
      plan.doSay[1] ? quote(plan.doSay[1]) : '',
    ],
    callToAction: [orderWhen(plan), product.callName && `Order ${product.callName}`, 'Order now'],
    subject: [
      when && `${product.title}, ${midSentence(when)}`,
      intent.audience && `${product.title} for ${intent.audience}`,
      product.title,
    ],
    preheader: [
      product.price && points.length > 0 && `${product.price} · ${list(points.map(bare))}`,
      product.price ? `${product.title}, ${product.price}` : list(points),
    ],
  };
};

/** Story: the product's description in its own order, then who it was made for, in the brand's name. */
const story: AngleWriter = (plan) => {
  const { intent, product, points, who } = plan;
  const clauses = product.facts.filter((fact) => fact.kind === 'sentence').slice(0, 3);
  return {
    angle: 'Story',
    headline: [
      ...(product.title.toLowerCase().startsWith(plan.brand.toLowerCase())
        ? [points[0] && `${product.title}, ${bare(points[0])}`]
        : [points[0] && `${plan.brand}’s ${product.title}, ${bare(points[0])}`, `${plan.brand}’s ${product.title}`]),
      product.title,
    ],
    body: [
      ...(clauses.length > 0 ? clauses : attributesOf(plan).slice(0, 2)).map((fact) =>
        quote(fact.text, fact.kind === 'sentence'),
      ),
      sentence([`${plan.brand} made it for ${who ?? 'you'}`, intent.occasion ?? ''].filter(Boolean).join(', ')),
      points.length > 0 ? sentence(cap(list(points.map(bare)))) : '',
      product.price ? sentence(product.price) : '',
    ],
    callToAction: [product.callName && `Meet ${product.callName}`, 'Meet it'],
    subject: [`${plan.brand}: ${product.title}`, product.title],
    preheader: [clauses[0]?.text, product.title],
  };
};

/** The angles in the order variants take them; without a moment the story comes before the urgency. */
function anglesFor(plan: Plan): AngleWriter[] {
  return plan.when ? [benefit, proof, moment, story] : [benefit, proof, story, moment];
}

function scrub(text: string, brand: BrandView, max: number, fallback?: string): string {
  return fitLength(scrubPhrases(text, brand.voice.dontSay, fallback), max);
}

/** The body's sentences within the limit, quotes another variant already says dropped while too alike. */
function bodyOf(parts: (string | Quote)[], max: number, headline: string, earlier: Set<string>[]): string {
  const kept = parts.filter((part) => (typeof part === 'string' ? part !== '' : part.quote !== ''));
  const text = (list: (string | Quote)[]) => {
    let body = '';
    for (const part of list) {
      const piece = typeof part === 'string' ? part : part.quote;
      const next = body ? `${body} ${piece}` : piece;
      if (next.length <= max) body = next;
    }
    return body;
  };
  const worst = (list: (string | Quote)[]) => {
    const grams = trigrams(`${headline} ${text(list)}`);
    return Math.max(0, ...earlier.map((other) => overlap(grams, other)));
  };
  const describes = (list: (string | Quote)[]) => list.some((part) => typeof part !== 'string' && part.described);
  const mustDescribe = describes(kept);
  let current = kept;
  while (worst(current) >= MAX_OVERLAP) {
    const quotes = current.filter((part): part is Quote => typeof part !== 'string');
    // Leave out the quote whose removal lowers the overlap most, keeping one of the description if there was one.
    const candidates = quotes
      .map((dropped) => current.filter((part) => part !== dropped))
      .filter(
        (candidate) => candidate.some((part) => typeof part !== 'string') && (!mustDescribe || describes(candidate)),
      );
    if (candidates.length === 0) break;
    const best = candidates.reduce((found, candidate) => (worst(candidate) < worst(found) ? candidate : found));
    if (worst(best) >= worst(current)) break;
    current = best;
  }
  return (
    text(current) || fitLength(current.map((part) => (typeof part === 'string' ? part : part.quote)).join(' '), max)
  );
}

/** The parsed intent a request carries: the brief's fields when the brief step recorded them, else read anew. */
function intentOf(brief: CampaignBrief, intent: string): ParsedIntent {
  const parsed = parseIntent(cleanText(intent || brief.intent, 500));
  const market = marketOf(brief);
  return market ? { ...parsed, market } : parsed;
}

export function createBuiltinCopyEngine(): CopyEngine {
  return {
    name: 'builtin',

    async writeBrief(request: BriefRequest): Promise<CampaignBrief> {
      const intentText = cleanText(request.intent, 500);
      const objective = cleanText(request.objective ?? '', 200);
      const intent = parseIntent(intentText, objective || null);
      const product = factsOf(request.products[0], intent.market);
      const plan = planOf(intent, product, request.brand);
      const keyMessages = [
        ...plan.points.map((point, i) => {
          const fact = plan.support[i];
          return fact ? `${cap(point)}: ${fact.text}` : cap(point);
        }),
        ...(product.price ? [`${product.title}: ${product.price}`] : []),
        ...plan.doSay.slice(0, 2),
      ]
        .map((message) => scrub(message, request.brand, 200))
        .filter(Boolean)
        .slice(0, 5);
      return {
        intent: intentText,
        audience:
          [intent.audience, intent.market ? `in ${intent.market.place}` : null].filter(Boolean).join(' ') ||
          (objective
            ? `People who ${objective.charAt(0).toLowerCase()}${objective.slice(1)}`
            : `People interested in ${product.title}`),
        angle: anglesFor(plan)
          .slice(0, 3)
          .map((writer) => writer(plan).angle)
          .join(', '),
        keyMessages: keyMessages.length > 0 ? keyMessages : [`${product.title}, from ${plan.brand}`],
        tone: voiceOf(request.brand),
        channels: request.channels,
        productIds: request.products.map((p) => p.id),
        ...(intent.market ? { market: intent.market } : {}),
        moment: intent.moment,
        stress: intent.stress,
      };
    },

    async writeCopy(request: CopyRequest): Promise<CopyDraft[]> {
      const brand = request.brand;
      const intent = intentOf(request.brief, request.intent);
      const product = factsOf(request.products[0], intent.market);
      const plan = planOf(intent, product, brand);
      const angles = anglesFor(plan);
      const context = {
        brand,
        product: request.products[0] ?? null,
        market: intent.market,
        channels: request.channels,
      };
      const drafts: CopyDraft[] = [];
      const said: Set<string>[] = [];
      for (let index = 0; index < request.variantCount; index += 1) {
        const written = angles[index % angles.length]!(plan);
        const round = Math.floor(index / angles.length);
        const fitted = firstFitting(written.headline, COPY_LIMITS.headline);
        const headline =
          plan.lively && written.angle !== 'Proof' && !/[.!?]$/.test(fitted) && fitted.length < COPY_LIMITS.headline
            ? `${fitted}!`
            : fitted;
        const body = bodyOf(written.body, COPY_LIMITS.body, headline, said);
        const draft = finishDraft(
          {
            name: `${written.angle} ${index + 1}${round > 0 ? ` (${round + 1})` : ''}`,
            headline,
            body,
            callToAction: firstFitting(written.callToAction, COPY_LIMITS.callToAction),
            emailSubject: firstFitting(written.subject, COPY_LIMITS.emailSubject),
            emailPreheader: firstFitting(written.preheader, COPY_LIMITS.emailPreheader),
            socialCaption: `${headline}\n\n${body}`,
            hashtags: [product.title, intent.market?.place ?? ''],
          },
          context,
          index,
        );
        said.push(trigrams(`${draft.headline} ${draft.body}`));
        drafts.push(draft);
      }
      return drafts;
    },

    async describeImage(request: ImageDirectionRequest): Promise<ImageDirection> {
      const market = marketOf(request.brief);
      const product = request.product ? factsOf(request.product, market).title : 'the product';
      const style = cleanText(request.style ?? '', 200) || 'clean editorial layout';
      const colours = Object.values(request.brand.brandbook.colors).slice(0, 3).join(', ');
      return {
        prompt: `${style}: ${product}, headline "${request.draft.headline}", brand colours ${colours}`,
        alt: fitLength(`${request.draft.headline} — ${product}`, 300),
      };
    },

    async writeFilmScript(request: FilmScriptRequest): Promise<FilmScript> {
      const title = cleanText(request.title, 120) || 'Untitled film';
      const sentences = sentencesOf(cleanText(request.brief, 2000)).filter((s) => !looksLikeInstruction(s));
      const notes = cleanText(request.notes ?? '', 300);
      const sceneCount = Math.max(2, Math.min(6, Math.round(request.durationSeconds / 5)));
      const seconds = request.durationSeconds / sceneCount;
      const scenes = Array.from({ length: sceneCount }, (_, index) => {
        const line = sentences[index % Math.max(1, sentences.length)] ?? title;
        const onScreen =
          index === 0 ? title : index === sceneCount - 1 ? request.brand.profile.displayName : fitLength(line, 60);
        return {
          index,
          seconds: Math.round(seconds * 10) / 10,
          visual: scrub(
            `${index === 0 ? 'Opening' : index === sceneCount - 1 ? 'Closing' : 'Scene'}: ${line}${notes ? ` (revised: ${notes})` : ''}`,
            request.brand,
            300,
          ),
          voiceover: scrub(line, request.brand, 300),
          onScreenText: scrub(onScreen, request.brand, 80, title),
        };
      });
      return { logline: scrub(`${title}: ${sentences[0] ?? title}`, request.brand, 200, title), scenes };
    },
  };
}
