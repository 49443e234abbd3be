/**
 * Text hygiene for generated copy and for the untrusted product text it is built from.
 *
 * Product text imported from the web is data, never instructions: before it reaches copy (or a prompt) it is
 * reduced to plain text here. Markup is removed by the HTML parser (parse5, never a regex), decoded entities
 * cannot smuggle a tag back in (`<` and `>` are dropped), Markdown links keep only their label, URLs, e-mail
 * addresses, control, zero-width and bidi-override characters are removed, whitespace is collapsed and the
 * result is cut at a word boundary. Sentences that read like instructions to a machine ("ignore previous
 * instructions…") are recognised so callers can leave them out.
 *
 * Brand voice: `scrubPhrases` guarantees that none of the brand's "don't say" phrases is present in a text
 * (case-insensitively, also inside longer words), swapping in an allowed synonym where one exists.
 */
import { parseFragment } from 'parse5';
import { visibleText } from '../../shared/html-text.ts';

/** Never more input than this is looked at (fields are at most 5000 characters; markup needs headroom). */
const MAX_INPUT_CHARS = 50_000;

// C0/C1 controls (newline and tab are handled as whitespace), zero-width, soft hyphen, bidi overrides/isolates.
const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const COMMON_TLDS =
  'com|net|org|io|co|ai|app|dev|shop|store|info|biz|xyz|online|site|link|live|me|ly|gl|to|us|uk|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|cz|ru|cn|jp|kr|in|au|ca|br|mx|tk|top|click|ws|cc|tv|gg|ws|su|pw|eu|biz|page|blog|news';

/** Anything that could be followed: scheme URLs (any scheme), www. hosts, host/path strings… */
const URL_LIKE = new RegExp(
  [
    String.raw`\b[a-z][a-z0-9+.-]{1,20}:\/\/\S*`,
    String.raw`\b(?:javascript|data|vbscript|mailto|file|tel|sms|blob):\S*`,
    String.raw`\bwww\.\S+`,
    String.raw`\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+\/\S*`,
  ].join('|'),
  'giu',
);
/** …and bare domains with a common (lower-case) top-level domain: "example.com", "shop.example.co/x". */
const BARE_DOMAIN = new RegExp(
  String.raw`\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:${COMMON_TLDS})\b(?:[/?#:]\S*)?`,
  'gu',
);
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const MARKDOWN_IMAGE = /!\[([^\]]{0,300})\]\([^)]{0,2000}\)/g;
const MARKDOWN_LINK = /\[([^\]]{0,300})\]\([^)]{0,2000}\)/g;

export interface CleanTextOptions {
  /** Keep paragraph breaks (`\n\n`) instead of collapsing every whitespace run to one space. */
  paragraphs?: boolean;
  /** Remove URLs and e-mail addresses (default true). */
  stripUrls?: boolean;
}

/**
 * Plain, single-line (or paragraph-preserving) text of at most `max` UTF-16 units; '' when nothing is left.
 * Safe for untrusted input: no markup, no URLs, no control or invisible characters.
 */
export function cleanText(raw: unknown, max: number, options: CleanTextOptions = {}): string {
  if (typeof raw !== 'string' || raw === '' || max <= 0) return '';
  let text = raw.length > MAX_INPUT_CHARS ? raw.slice(0, MAX_INPUT_CHARS) : raw;
  text = text.normalize('NFC');
  if (options.paragraphs) text = text.replace(/\r\n?/g, '\n');
  // Markup: parsed, never pattern-matched; twice, so that entity-encoded tags ("&lt;b&gt;") die too.
  for (let pass = 0; pass < 2 && /[<&]/.test(text); pass += 1) text = visibleText(parseFragment(text));
  text = text.replace(INVISIBLE, ' ');
  text = text.replace(MARKDOWN_IMAGE, '$1').replace(MARKDOWN_LINK, '$1');
  if (options.stripUrls !== false) text = text.replace(URL_LIKE, ' ').replace(EMAIL, ' ').replace(BARE_DOMAIN, ' ');
  text = text
    .replace(/[<>`]/g, ' ')
    .replace(/\*{2,}|_{2,}|~{2,}/g, '')
    .replace(/^[ \t]*(?:#{1,6}|[-*+]|>+)[ \t]+/gm, '');
  if (options.paragraphs) {
    text = text
      .split(/\n[ \t]*\n\s*/)
      .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('\n\n');
  } else {
    text = text.replace(/\s+/g, ' ').trim();
  }
  text = tidyPunctuation(text);
  return fitLength(text, max);
}

/** Spaces before punctuation, doubled punctuation and empty brackets that removals leave behind. */
export function tidyPunctuation(text: string): string {
  return text
    .replace(/[ \t]+([,.;:!?…)])/g, '$1')
    .replace(/([(])[ \t]+/g, '$1')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
    .replace(/([,;:])\s*([.!?])/g, '$2')
    .replace(/([.!?])(?:\s*[.,;:])+/g, '$1')
    .replace(/^[\s,;:.!?·—–-]+/, '')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/[ \t]*[·—–-][ \t]*$/, '')
    .trim();
}

/**
 * Cuts `text` to at most `max` UTF-16 units: at the end of a sentence when that keeps most of it, else at a
 * word boundary with an ellipsis; never splits a surrogate pair.
 */
export function fitLength(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentenceEnd >= max * 0.6) return head.slice(0, sentenceEnd + 1).trim();
  let cut = text.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(' ');
  if (space >= max * 0.5) cut = cut.slice(0, space);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/[\s,;:.!?·—–-]+$/, '');
  return cut === '' ? '' : `${cut}…`;
}

/** Sentences of a plain text (ends kept), empty ones dropped. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

const INSTRUCTION_PATTERNS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,60}\b(?:instruction|instructions|prompt|prompts|rules?|above|previous|prior|earlier|system|guidelines?|context)\b/,
  /\b(?:system|developer|hidden)\s+(?:prompt|message|instruction|instructions)\b/,
  /\b(?:new|updated|real|actual|secret)\s+(?:instruction|instructions|task|rules)\b/,
  /\byou\s+(?:are|will|must|should|shall)\s+(?:now\s+)?(?:an?\s+|the\s+)?(?:ai|assistant|chatbot|bot|language model|llm|model|gpt|chatgpt|copywriter|system)\b/,
  /\b(?:as an ai|language model|chatgpt|openai|anthropic|claude|gemini|llm|jailbreak|prompt injection|do anything now|dan mode)\b/,
  /\b(?:assistant|system|user|developer)\s*:/,
  /\b(?:respond|reply|answer|output|print|write|say|repeat|return)\s+(?:only|exactly|with|the following|verbatim)\b/,
  // Machine secrets have no place in shopper copy. Passwords do ("reset your password from the sign-in page"),
  // so they count only when something asks for one to be handed over.
  /\b(?:api[\s_-]?keys?|secret keys?|access tokens?|bearer tokens?|private keys?)\b/,
  /\b(?:reveal|share|send|give|tell|print|show|leak|disclose|expose|output|list|dump|paste|email)\b[^.!?\n]{0,60}\b(?:passwords?|passcodes?|credentials?)\b/,
  // Anything shaped like a credential: this platform's API keys (`cpk_…`), common provider key prefixes, JWTs.
  /\b(?:cpk|sk|pk|rk|ghp|gho|xox[abp])[_-][a-z0-9_-]{8,}/,
  /\beyj[a-z0-9_-]{10,}\.[a-z0-9_-]{10,}/,
  /\b(?:click here|click the link|follow (?:this|the) link|visit (?:our|this|the) (?:site|website|page|link)|dm us|whatsapp|telegram|wire transfer|bitcoin|crypto(?:currency)?)\b/,
  /\b(?:product_data|<\/?\s*system)\b/,
];

/** True when a piece of (untrusted) text reads like an instruction to a machine or a lure, not product facts. */
export function looksLikeInstruction(text: string): boolean {
  const folded = fold(text);
  return INSTRUCTION_PATTERNS.some((pattern) => pattern.test(folded));
}

/** The comparison form used for phrase checks: NFKC, lower case. */
export function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Whether `text` contains `phrase` (case-insensitive, also inside a longer word). */
export function containsPhrase(text: string, phrase: string): boolean {
  const needle = fold(phrase).trim();
  return needle !== '' && fold(text).includes(needle);
}

/** Allowed substitutes for words brands commonly ban; a substitute is used only if it is not banned too. */
const SUBSTITUTES: Record<string, string[]> = {
  cheap: ['affordable', 'great value', 'easy on the wallet'],
  cheapest: ['best-value', 'lowest-priced'],
  buy: ['get', 'choose', 'pick up'],
  'buy now': ['shop now', 'get yours', 'order today'],
  'shop now': ['get yours', 'order today', 'see it'],
  best: ['standout', 'favourite', 'top'],
  amazing: ['remarkable', 'impressive', 'striking'],
  awesome: ['great', 'excellent'],
  incredible: ['remarkable', 'impressive'],
  deal: ['offer', 'saving'],
  deals: ['offers', 'savings'],
  sale: ['offer', 'event'],
  discount: ['saving', 'offer'],
  'limited time': ['for now', 'this season'],
  hurry: ["don't wait", 'act soon'],
  'last chance': ['final days', 'almost gone'],
  free: ['included', 'on us'],
  new: ['fresh', 'latest'],
  perfect: ['ideal', 'just right'],
  luxury: ['premium', 'refined'],
  luxurious: ['refined', 'indulgent'],
  premium: ['quality', 'refined'],
  guarantee: ['promise', 'commitment'],
  guaranteed: ['promised', 'assured'],
  unique: ['distinctive', 'one of a kind'],
  stunning: ['striking', 'beautiful'],
  beautiful: ['lovely', 'handsome'],
  love: ['enjoy', 'appreciate'],
  'must-have': ['essential', 'go-to'],
  essential: ['go-to', 'staple'],
  quality: ['craft', 'care'],
  discover: ['explore', 'see'],
  explore: ['discover', 'see'],
  'learn more': ['see details', 'find out more'],
  'get yours': ['order today', 'shop now'],
  now: ['today'],
  today: ['now'],
  offer: ['saving', 'promotion'],
  everyday: ['daily', 'day-to-day'],
};

const FALLBACK_TEXTS = ['See details', 'Take a look', 'Find out more', 'Explore', 'Details', 'Go', '→', '…'];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function matchCase(original: string, replacement: string): string {
  if (original.length > 1 && original === original.toUpperCase() && original !== original.toLowerCase()) {
    return replacement.toUpperCase();
  }
  const first = original.charAt(0);
  if (first !== first.toLowerCase()) return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  return replacement;
}

/**
 * `text` with none of `phrases` present (see `containsPhrase`): an exact word or phrase is swapped for an
 * allowed substitute when one exists, else removed together with the word it sits in; punctuation is tidied.
 * When nothing is left, `fallback` (or a neutral text) is returned — also checked against the phrases.
 */
export function scrubPhrases(text: string, phrases: readonly string[], fallback?: string): string {
  const banned = [...new Set(phrases.map((phrase) => fold(phrase).replace(/\s+/g, ' ').trim()).filter(Boolean))];
  if (banned.length === 0) return text;
  const isClean = (candidate: string) => banned.every((phrase) => !fold(candidate).includes(phrase));
  let out = text;
  // Every round removes or swaps at least one hit; swaps are only to clean words, so this terminates quickly.
  for (let round = 0; round < 200 && !isClean(out); round += 1) {
    const phrase = banned.find((candidate) => fold(out).includes(candidate))!;
    const pattern = new RegExp(
      `[\\p{L}\\p{N}'’-]*${escapeRegExp(phrase).replace(/ /g, '\\s+')}[\\p{L}\\p{N}'’-]*`,
      'iu',
    );
    const match = pattern.exec(out);
    if (!match) {
      // Case-folding differences between the regex engine and toLowerCase: drop whole words until clean.
      out = out
        .split(/(\s+)/)
        .filter((word) => isClean(word))
        .join('');
      break;
    }
    const found = match[0];
    const substitute = (SUBSTITUTES[fold(found)] ?? []).find((candidate) => isClean(candidate));
    const replacement = fold(found) === phrase && substitute ? matchCase(found, substitute) : '';
    out = out.slice(0, match.index) + replacement + out.slice(match.index + found.length);
    out = tidyPunctuation(out.replace(/[ \t]{2,}/g, ' '));
  }
  if (!isClean(out)) out = '';
  if (out.trim() !== '') return out;
  for (const candidate of [fallback ?? '', ...FALLBACK_TEXTS]) {
    if (candidate.trim() !== '' && isClean(candidate)) return candidate;
  }
  return '';
}

/** A social hashtag (`#` + letters/digits, ≤ 60 characters) from free text, or null. */
export function toHashtag(raw: string): string | null {
  const words = cleanText(raw, 200)
    .replace(/^#+/, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  if (words.length === 0) return null;
  let tag = '#';
  for (const word of words) {
    const piece = word.charAt(0).toUpperCase() + word.slice(1);
    if (tag.length + piece.length > 60) break;
    tag += piece;
  }
  if (tag.length < 3 || /^#\p{N}+$/u.test(tag)) return null;
  return tag;
}
