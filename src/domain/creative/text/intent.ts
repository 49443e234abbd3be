/**
 * Reads a marketer's intent ("launch to hikers in Scandinavia before winter; stress recycled materials and
 * lifetime repairs") into what the copy must carry: the audience ("hikers", and the whole phrase "hikers in
 * Scandinavia before winter"), the market (`places.ts`), the moment ("before winter"), the occasion
 * ("Back-to-school push" → "Back-to-school"), a thing offered apart from the product ("the June trips"), the
 * points to stress ("recycled materials", "lifetime repairs") and the kind of push (a launch, a gift, an offer).
 *
 * The reading is grammatical, not a list of expected briefs: clauses are split at `;`, `.` and dashes; a
 * clause led by a verb of emphasis ("stress", "highlight", "focus on"…) lists points to stress; the framing
 * clause is read as [occasion campaign] [verb [object] to|for|with] audience phrase, the audience phrase kept
 * whole with its place and situation ("whose skin gets dry in the cold months"); the moment is a calendar word
 * (a season, a month from Intl, a capitalised "… Day", or one of the few feasts named without "Day") with the
 * preposition before it. The copy then quotes these phrases in the brief's own words.
 */
import type { Market } from './market.ts';
import { detectMarket } from './places.ts';

export type Push = 'launch' | 'gift' | 'offer' | null;

export interface ParsedIntent {
  /** Who the campaign speaks to, the head of the phrase ("hikers", "young families"), or null. */
  audience: string | null;
  /**
   * The whole audience phrase as the brief words it, with place, situation and timing ("women over 35 in
   * Copenhagen and Aarhus whose skin gets dry in the cold months"), or null.
   */
  who: string | null;
  /** What the campaign is, when the brief names it ("Back-to-school", "Christmas gift", "Pre-order"), or null. */
  occasion: string | null;
  /** What is offered, when the brief names it apart from the product ("the June trips", "the subscription"). */
  object: string | null;
  market: Market | null;
  /** The timing as the brief words it ("before winter", "for Mother's Day"), or null. */
  moment: string | null;
  /** The calendar word of the moment ("winter", "Mother's Day"), or null. */
  season: string | null;
  /** Points to stress, in the brief's order and words. */
  stress: string[];
  push: Push;
}

/** Verbs (and verb phrases) a marketer uses to say what the copy must bring forward. */
const EMPHASIS =
  /^(?:and\s+|also\s+|then\s+|please\s+)*(?:stress(?:ing)?|emphasi[sz](?:e|ing)|highlight(?:ing)?|focus(?:ing)?\s+on|feature|featuring|lead(?:ing)?\s+with|mention(?:ing)?|underline|underlining|play(?:ing)?\s+up|showcas(?:e|ing)|spotlight(?:ing)?|call(?:ing)?\s+out|point(?:ing)?\s+out|talk(?:ing)?\s+about|push(?:ing)?|promot(?:e|ing)|put\s+forward|bring\s+out|make\s+(?:much|a\s+point)\s+of)\s+(.+)$/i;
/** The same, inside a clause: "… with a focus on X", "…, highlighting X". */
const INLINE_EMPHASIS =
  /(?:,\s*|\s+)(?:with\s+(?:a|an)\s+(?:focus|emphasis)\s+on|stressing|emphasi[sz]ing|highlighting|focusing\s+on|featuring|showcasing|spotlighting)\s+(.+)$/i;

const SEASONS = ['spring', 'summer', 'autumn', 'fall', 'winter', 'holidays', 'holiday season', 'festive season'];
/** Feasts without "Day" in their name that briefs name; days ("Mother's Day") are found by their form. */
const FEASTS = [
  'christmas',
  'xmas',
  'easter',
  'new year',
  "new year's eve",
  'black friday',
  'cyber monday',
  'halloween',
  'thanksgiving',
  'midsummer',
  'ramadan',
  'eid',
  'diwali',
  'hanukkah',
  'lunar new year',
  'back to school',
  'valentine’s',
  "valentine's",
];
/** English month names: the intent is read in English (docs/creative.md), whatever the market. */
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const CALENDAR = [...SEASONS, ...FEASTS, ...MONTHS].sort((a, b) => b.length - a.length);
const DAY = String.raw`(?:[\p{Lu}][\p{L}’']*\s+){1,3}Day\b`;
const TIME_PREP = String.raw`(?:before|ahead\s+of|in\s+time\s+for|for|during|this|next|over|by|until|through|throughout|around|at|in|across|all)`;
const LEAD = String.raw`(?:\b${TIME_PREP}\s+)?(?:the\s+)?(?:(?:coming|upcoming)\s+)?`;
/**
 * A moment: a calendar word (any case), or a "… Day" recognised by its capitals ("Mother's Day"), each with
 * the words that lead into it. Two expressions with plain flags rather than one with inline case modifiers
 * (`(?i:…)`): with those, two full test runs under load read month moments ("in September") as none, which
 * never reproduced in isolation; this form uses only long-established syntax.
 */
const CALENDAR_MOMENT = new RegExp(
  String.raw`${LEAD}(${CALENDAR.map((word) => word.replace(/ /g, '\\s+')).join('|')})(?![\p{L}])`,
  'iu',
);
/** The lead words in either case ("Before Mother's Day"); the day's own capitals must match as written. */
const ANY_CASE_LEAD = LEAD.replace(/(?<!\\)[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
const DAY_MOMENT = new RegExp(String.raw`${ANY_CASE_LEAD}(${DAY})`, 'u');
const MOMENT = {
  /** The earliest moment in a text, as `RegExp.exec` gives it (the whole phrase, then the moment itself). */
  exec(text: string): RegExpExecArray | null {
    const calendar = CALENDAR_MOMENT.exec(text);
    const day = DAY_MOMENT.exec(text);
    if (!calendar || !day) return calendar ?? day;
    return day.index < calendar.index ? day : calendar;
  },
  test(text: string): boolean {
    return this.exec(text) !== null;
  },
  /** Whether a text starts with a moment. */
  starts(text: string): boolean {
    return this.exec(text)?.index === 0;
  },
};

/** Words that end an audience phrase: prepositions, time words, conjunctions. */
const AUDIENCE_STOP =
  /^(?:in|across|throughout|around|before|ahead|this|next|for|during|by|over|on|from|who|that|which|with|at|to|and|but|so|while|until|as|via|through|using|the|a|an|our|their|its|new|launch|sale|campaign)$/i;
const AUDIENCE_LEAD =
  /\b(?:to|for|at|reach|reaching|target|targeting|targetting|win\s+over|winning\s+over|among|aimed\s+at|speak\s+to|talk\s+to)\s+/gi;
/** Words that make a "to …"/"for …" phrase something other than people. */
const NOT_AUDIENCE =
  /^(?:the\s+)?(?:launch|sale|sales|campaign|market|season|site|page|shop|store|web|email|social|instagram|bluesky|orders?|growth|awareness|traffic|sign-?ups?|conversions?|stress|highlight|emphasi[sz]e|focus|feature|promote|show|mention|introduce|sell|push|be|get|make|drive|boost|grow|increase|keep|bring)\b/i;

const PUSH_WORDS: [Push, RegExp][] = [
  ['gift', /\b(?:gift|gifts|gifting|present|presents)\b/i],
  ['offer', /\b(?:sale|offer|discount|deal|deals|%\s*off|clearance|promo|promotion|markdown|price\s+drop)\b/i],
  [
    'launch',
    /\b(?:launch|launching|introduce|introducing|debut|unveil|release|new\s+(?:product|collection|range|line))\b/i,
  ],
];

function clauses(text: string): string[] {
  return text
    .split(/\s*(?:[;\n]|[.!?](?=\s|$)|,\s*(?:then|and then)\s+|\s[–—-]\s)\s*/)
    .map((clause) => clause.trim())
    .filter(Boolean);
}

/** "recycled materials and lifetime repairs" → ["recycled materials", "lifetime repairs"]. */
function listItems(text: string): string[] {
  return text
    .replace(/[.!?]+$/, '')
    .split(/\s*,\s*(?:and\s+|&\s+|as\s+well\s+as\s+)?|\s+(?:and|&|as\s+well\s+as|plus)\s+/i)
    .map((item) =>
      item
        .replace(/^(?:both|also|its|our|their)\s+/i, '')
        .replace(/\s+(?:too|as\s+well)$/i, '')
        .trim(),
    )
    .filter((item) => item.length > 1 && /\p{L}/u.test(item));
}

/** The head of an audience phrase: its words up to the first preposition or relative ("young families"). */
function headOf(phrase: string, market: Market | null, moment: string | null): string | null {
  const words: string[] = [];
  for (const word of phrase.split(/\s+/)) {
    const bare = word.replace(/[,;:.!?]+$/, '');
    if (
      words.length > 0 &&
      (AUDIENCE_STOP.test(bare) ||
        /^(?:whose|looking|wanting|hoping|replacing|sending|moving|over|under|aged)$/i.test(bare))
    )
      break;
    if (words.length === 0 && /^(?:the|all|our|your)$/i.test(bare)) continue;
    words.push(bare);
    if (bare !== word || words.length >= 5) break;
  }
  const head = words.join(' ').trim();
  if (!head || !/\p{Ll}/u.test(head) || /^\p{Lu}/u.test(words.at(-1) ?? '')) return null;
  if (market && head.toLowerCase().includes(market.place.toLowerCase())) return null;
  if (moment && moment.toLowerCase().includes(head.toLowerCase())) return null;
  if (MOMENT.test(head) || NOT_AUDIENCE.test(head)) return null;
  return head;
}

function audienceIn(clause: string, market: Market | null, moment: string | null): string | null {
  for (const lead of clause.matchAll(AUDIENCE_LEAD)) {
    const head = headOf(clause.slice(lead.index + lead[0].length), market, moment);
    if (head) return head;
  }
  return null;
}

/** Verbs a brief opens with to say what the campaign should do for whom ("Reach…", "Sell … to…"). */
const LEAD_VERB =
  /^(?:launch|win\s+over|win\s+back|win|reach|sell|convert|recruit|fill|introduce|target|attract|invite|tempt|bring|get|drive|grow|promote|market|pitch|advertise|show|remind|help|encourage|persuade|court|woo|engage|speak\s+to|talk\s+to|offer|announce|present|tell|inspire|welcome)\b\s*/i;
/** "Christmas gift campaign for…", "Back-to-school push for…": the words before name the occasion. */
const OCCASION = /^(.{2,60}?)\s+(?:campaign|push|drive|promotion|promo|blitz|mailing)\b\s*/i;
const CALENDAR_WORDS = new Set(CALENDAR.flatMap((word) => word.split(' ')).concat(['day']));

interface Framing {
  occasion: string | null;
  object: string | null;
  who: string | null;
}

/** The framing clause read as occasion, the thing offered and the whole audience phrase. */
function framingOf(clause: string): Framing {
  let rest = clause.trim();
  let occasion: string | null = null;
  let object: string | null = null;
  const named = OCCASION.exec(rest);
  if (named && named[1]!.split(/\s+/).length <= 5 && !LEAD_VERB.test(named[1]!)) {
    occasion = named[1]!;
    rest = rest.slice(named[0].length);
  }
  const verb = LEAD_VERB.exec(rest);
  if (verb) rest = rest.slice(verb[0].length);
  const preposition = /^(?:to|for|at|with|among)\s+/i.exec(rest);
  if (preposition) {
    rest = rest.slice(preposition[0].length);
  } else if (verb) {
    // "Sell the February trips to couples…", "Fill Thursday tables in January with food lovers…".
    const split = /\s(?:to|with|among)\s/i.exec(rest);
    // "… with food lovers" names people; "… with a spring sale" names the means, not the audience.
    const people = split && !/^(?:a|an|the|our|their|its)\s/i.test(rest.slice(split.index + split[0].length));
    if (split && people && split.index > 0 && split.index <= 60) {
      object = rest.slice(0, split.index);
      rest = rest.slice(split.index + split[0].length);
    }
  } else if (!occasion) {
    return { occasion, object, who: null };
  }
  // "… for the subscription in the dark November weeks": the thing offered, named inside the audience phrase.
  const offered =
    /(?<!\b(?:looking|searching|shopping|hoping|waiting|asking|longing|saving|paying))\s+for\s+((?:the|a|an|our|their|its)\s+[^,;]+?)(?=\s+(?:in|at|around|before|ahead|during|on|from|who|whose|this|next|by|over|until)\b|[,;]|$)/i.exec(
      rest,
    );
  if (offered && !CALENDAR_WORDS.has(offered[1]!.split(/\s+/).at(-1)!.toLowerCase())) {
    object ??= offered[1]!;
    rest = `${rest.slice(0, offered.index)}${rest.slice(offered.index + offered[0].length)}`;
  }
  const who = rest.replace(/\s+/g, ' ').trim();
  // "Gift campaign for Mother's Day in London" names a moment, not people.
  if (!who || MOMENT.starts(who) || (/^\p{Lu}/u.test(who) && MOMENT.test(who.split(' ').slice(0, 3).join(' '))))
    return { occasion, object, who: null };
  return { occasion, object, who };
}

/** Reads an intent (and the campaign objective, which may say the rest) into what the copy must carry. */
export function parseIntent(intent: string, objective: string | null = null): ParsedIntent {
  const text = [intent, objective ?? ''].filter(Boolean).join('. ');
  const stress: string[] = [];
  const framing: string[] = [];
  for (const clause of clauses(intent)) {
    const led = EMPHASIS.exec(clause);
    if (led) {
      stress.push(...listItems(led[1]!));
      continue;
    }
    const inline = INLINE_EMPHASIS.exec(clause);
    if (inline) {
      stress.push(...listItems(inline[1]!));
      framing.push(clause.slice(0, inline.index));
    } else {
      framing.push(clause);
    }
  }
  const market = detectMarket(text);
  const found = MOMENT.exec(framing.join('; ')) ?? MOMENT.exec(text);
  // "the autumn term", "the June trips": the noun after the calendar word belongs to the moment.
  const noun = found ? /^\s+(\p{Ll}[\p{L}-]*)/u.exec(text.slice(text.indexOf(found[0]) + found[0].length)) : null;
  const extended =
    found &&
    noun &&
    !AUDIENCE_STOP.test(noun[1]!) &&
    !/^(?:campaign|push|drive|promotion|and|or|is|are)$/.test(noun[1]!)
      ? `${found[0]} ${noun[1]}`
      : found?.[0];
  const moment = extended
    ? extended
        .replace(/\s+/g, ' ')
        .replace(/^the\s+/i, '')
        .trim()
    : null;
  const season = found ? found[1]!.replace(/\s+/g, ' ').trim() : null;
  let read: Framing = { occasion: null, object: null, who: null };
  for (const clause of framing) {
    read = framingOf(clause);
    if (read.who || read.occasion) break;
  }
  let audience = read.who ? headOf(read.who, market, moment) : null;
  for (const clause of [...framing, ...(objective ? [objective] : [])]) {
    if (audience) break;
    audience = audienceIn(clause, market, moment);
  }
  const push = PUSH_WORDS.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
  const seen = new Set<string>();
  return {
    audience,
    who: read.who ?? audience,
    occasion: read.occasion,
    object: read.object,
    market,
    moment,
    season,
    stress: stress.filter((item) => {
      const k = item.toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    }),
    push,
  };
}
