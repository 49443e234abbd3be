/**
 * Fitting text into a box: wrap by measured width, step the size down, and only at the smallest size break a
 * word that is wider than the box (with a hyphen) or, as the very last resort, end the text with an ellipsis.
 * Every width comes from the font's glyphs (fonts.ts), so a fitted line is never wider than its box and no
 * glyph is ever clipped, whatever the language or length.
 *
 * Work is on grapheme clusters (Intl.Segmenter), so a letter with combining accents is never split from its
 * marks. Line breaks are at spaces and after hyphens, dashes and slashes already in the text; a soft hyphen
 * (U+00AD) in the text is honoured as a preferred break inside a word.
 */
import { fontExtents, lineWidth, measureLine, type FontWeight } from './fonts.ts';

export interface FitRequest {
  text: string;
  weight: FontWeight;
  /** Sizes to try, largest first; the last is the minimum. */
  sizes: number[];
  maxWidth: number;
  maxLines: number;
  /** Height available for all lines (first line's top to last line's bottom). */
  maxHeight: number;
  /** Baseline-to-baseline distance as a multiple of the size. */
  lineHeight: number;
  /**
   * `true` evens out line lengths (headlines): the same number of lines, without a short last line.
   * `widow` keeps the ragged right of running text and only avoids a single word alone on the last line.
   */
  balance?: boolean | 'widow';
  /**
   * How far to go when no size fits cleanly: `break` words at the minimum size, or also cut with an
   * `ellipsis` (the default). With `none` or `break` the result is null when that is not enough.
   */
  lastResort?: 'none' | 'break' | 'ellipsis';
}

export interface FittedText {
  size: number;
  lines: string[];
  /** Baseline-to-baseline distance in pixels. */
  pitch: number;
  /** Widest line, ink included. */
  width: number;
  /** First line's top to last line's bottom. */
  height: number;
  /** From the first line's top down to its baseline. */
  firstAscent: number;
  /** Ended with an ellipsis because even the minimum size could not hold it. */
  truncated: boolean;
  /** A word was broken across lines with a hyphen. */
  hyphenated: boolean;
}

const SOFT_HYPHEN = '\u00ad';
const ELLIPSIS = '…';
const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** A piece of text between break opportunities; `space` says whether a space separates it from the previous one. */
interface Token {
  text: string;
  space: boolean;
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    // Break opportunities after a hyphen, dash or slash inside a word (not at its start: "-20%" stays whole).
    const pieces = word.split(/(?<=[^\s-][-‐–—/])(?=[^\s-])/u);
    pieces.forEach((piece, index) => tokens.push({ text: piece, space: index === 0 }));
  }
  return tokens;
}

/** Visible form of a token at a line end or inside a line: soft hyphens vanish unless a line ends on one. */
function shown(text: string): string {
  return text.replaceAll(SOFT_HYPHEN, '');
}

const VOWEL = /^[aeiouyäöüåæøœéèêëáàâíìîïóòôúùûýаеёиоуыэюяіїєαεηιουωάέήίόύώ]$/iu;
const LETTER = /^\p{L}$/u;
/** Consonant clusters that spell one sound in German and the Nordic languages: never split inside them. */
const CLUSTERS = ['sch', 'ch', 'ck', 'ph', 'th', 'sj', 'skj', 'kj'];

/**
 * Where to break a word that does not fit, at or before `max` graphemes: the text's own soft hyphen if any;
 * else the last syllable-like boundary (before a consonant that starts a syllable, "ver|handlungen",
 * "Schiff|fahrt"), moved to the front of a cluster such as "sch"; else simply the last grapheme that fits.
 * At least two letters stay on either side. A heuristic, not a dictionary: it makes long compounds readable,
 * not always where a German typesetter would break them.
 */
function breakPoint(letters: string[], max: number): number {
  for (let cut = max; cut >= 2; cut--) if (letters[cut - 1] === SOFT_HYPHEN) return cut;
  const lower = letters.map((l) => l.toLowerCase());
  const floor = Math.max(2, Math.floor(max * 0.6));
  for (let cut = Math.min(max, letters.length - 2); cut >= floor; cut--) {
    const next = lower[cut]!;
    const after = lower[cut + 1] ?? '';
    if (!LETTER.test(next) || VOWEL.test(next) || !VOWEL.test(after)) continue;
    let start = cut;
    for (const cluster of CLUSTERS) {
      const from = cut - (cluster.length - 1);
      if (from >= 0 && lower.slice(from, cut + 1).join('') === cluster) start = Math.min(start, from);
    }
    if (start >= floor && start >= 2) return start;
  }
  return Math.max(1, Math.min(max, letters.length - 2));
}

/**
 * Splits a word too wide for the line into pieces that fit, each but the last ending with a hyphen
 * (breakPoint says where).
 */
function hyphenate(word: string, size: number, weight: FontWeight, maxWidth: number): string[] {
  const pieces: string[] = [];
  let rest = graphemes(word);
  while (rest.length > 0 && lineWidth(shown(rest.join('')), size, weight) > maxWidth) {
    let max = 0;
    for (let cut = 1; cut < rest.length; cut++) {
      if (lineWidth(`${shown(rest.slice(0, cut).join(''))}-`, size, weight) > maxWidth) break;
      max = cut;
    }
    // A box narrower than one letter and a hyphen: one grapheme a line rather than an endless loop.
    const cut = max === 0 ? 1 : Math.min(max, breakPoint(rest, max));
    const head = shown(rest.slice(0, cut).join(''));
    const joiner = /[-‐–—/]$/u.test(head) ? '' : '-';
    pieces.push(`${head}${joiner}`);
    rest = rest.slice(cut);
  }
  if (rest.length > 0) pieces.push(shown(rest.join('')));
  return pieces;
}

/**
 * Greedy wrap at `maxWidth`. Returns null when a single word is wider than the line and `breakWords` is off
 * (the caller then tries a smaller size).
 */
export function wrapMeasured(
  text: string,
  size: number,
  weight: FontWeight,
  maxWidth: number,
  breakWords: boolean,
): { lines: string[]; hyphenated: boolean } | null {
  const lines: string[] = [];
  let line = '';
  let hyphenated = false;
  for (const token of tokensOf(text)) {
    const candidate = line ? `${line}${token.space ? ' ' : ''}${token.text}` : token.text;
    if (lineWidth(shown(candidate), size, weight) <= maxWidth) {
      line = candidate;
      continue;
    }
    if (line) lines.push(shown(line));
    if (lineWidth(shown(token.text), size, weight) <= maxWidth) {
      line = token.text;
      continue;
    }
    if (!breakWords) return null;
    const pieces = hyphenate(token.text, size, weight, maxWidth);
    hyphenated = true;
    lines.push(...pieces.slice(0, -1));
    line = pieces.at(-1) ?? '';
  }
  if (line) lines.push(shown(line));
  return { lines, hyphenated };
}

function blockHeight(lines: string[], size: number, weight: FontWeight, pitch: number): number {
  if (lines.length === 0) return 0;
  const first = measureLine(lines[0]!, size, weight);
  const last = measureLine(lines.at(-1)!, size, weight);
  return first.ascent + (lines.length - 1) * pitch + last.descent;
}

function fitted(
  lines: string[],
  size: number,
  request: FitRequest,
  flags: { truncated: boolean; hyphenated: boolean },
): FittedText {
  const pitch = size * request.lineHeight;
  return {
    size,
    lines,
    pitch,
    width: Math.max(0, ...lines.map((line) => lineWidth(line, size, request.weight))),
    height: blockHeight(lines, size, request.weight, pitch),
    firstAscent: lines[0]
      ? measureLine(lines[0], size, request.weight).ascent
      : fontExtents(size, request.weight).ascent,
    ...flags,
  };
}

/**
 * The same text in the same number of lines with lengths as even as possible: the narrowest measure at which
 * it still takes that many lines (found by binary search over the possible line widths), and at that measure
 * the break points that minimise the sum of squared slack (a small Knuth-Plass without stretching). So a
 * headline has no short orphaned last line and no single overlong one.
 */
function balanced(text: string, size: number, weight: FontWeight, maxWidth: number, lineCount: number): string[] {
  const tokens = tokensOf(text);
  const n = tokens.length;
  const lineOf = (from: number, to: number) =>
    shown(
      tokens.slice(from, to).reduce((line, t, i) => (i === 0 ? t.text : `${line}${t.space ? ' ' : ''}${t.text}`), ''),
    );
  const widths = new Map<string, number>();
  const widthOf = (from: number, to: number) => {
    const key = `${from}:${to}`;
    let width = widths.get(key);
    if (width === undefined) {
      width = lineWidth(lineOf(from, to), size, weight);
      widths.set(key, width);
    }
    return width;
  };
  // cost[k][j]: the best cost of setting the first j tokens in k lines; from[k][j]: where the k-th line starts.
  const setAt = (measure: number): string[] | null => {
    const cost = Array.from({ length: lineCount + 1 }, () => new Array<number>(n + 1).fill(Infinity));
    const from = Array.from({ length: lineCount + 1 }, () => new Array<number>(n + 1).fill(-1));
    cost[0]![0] = 0;
    for (let k = 1; k <= lineCount; k++)
      for (let j = 1; j <= n; j++)
        for (let i = j - 1; i >= k - 1; i--) {
          const width = widthOf(i, j);
          if (width > measure) break;
          const total = cost[k - 1]![i]! + (measure - width) ** 2;
          if (total < cost[k]![j]!) {
            cost[k]![j] = total;
            from[k]![j] = i;
          }
        }
    if (!Number.isFinite(cost[lineCount]![n]!)) return null;
    const lines: string[] = [];
    for (let k = lineCount, j = n; k > 0; k--) {
      const i = from[k]![j]!;
      lines.unshift(lineOf(i, j));
      j = i;
    }
    return lines;
  };
  const candidates: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j <= n; j++) {
      const width = widthOf(i, j);
      if (width > maxWidth) break;
      candidates.push(width);
    }
  candidates.sort((a, b) => a - b);
  let low = 0;
  let high = candidates.length - 1;
  let best: string[] | null = null;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const lines = setAt(candidates[mid]!);
    if (lines) {
      best = lines;
      high = mid - 1;
    } else low = mid + 1;
  }
  return best ?? [];
}

/** A single word alone on the last line takes the previous line's last word with it, when that still fits. */
function withoutWidow(lines: string[], size: number, weight: FontWeight, maxWidth: number): string[] {
  const last = lines.at(-1) ?? '';
  const previous = (lines.at(-2) ?? '').split(' ');
  if (lines.length < 2 || last.includes(' ') || previous.length < 3) return lines;
  const moved = `${previous.at(-1)} ${last}`;
  if (lineWidth(moved, size, weight) > maxWidth) return lines;
  return [...lines.slice(0, -2), previous.slice(0, -1).join(' '), moved];
}

/** Shortens the text so it ends with an ellipsis on the last line that still fits. */
function ellipsize(line: string, size: number, weight: FontWeight, maxWidth: number): string {
  let words = line.split(' ');
  const withEllipsis = (text: string) => `${text.replace(/[\s.,;:!?…-]+$/u, '')}${ELLIPSIS}`;
  while (words.length > 1 && lineWidth(withEllipsis(words.join(' ')), size, weight) > maxWidth)
    words = words.slice(0, -1);
  let chars = graphemes(words.join(' '));
  while (chars.length > 0 && lineWidth(withEllipsis(chars.join('')), size, weight) > maxWidth)
    chars = chars.slice(0, -1);
  return withEllipsis(chars.join(''));
}

/**
 * Fits `text` into the box: the largest size at which it wraps into `maxLines` lines within `maxHeight`
 * without breaking a word; else the minimum size with words broken; else the minimum size cut with an
 * ellipsis. Returns no lines only when not even one line of the minimum size fits the height.
 */
export function fitText(request: FitRequest & { lastResort?: 'ellipsis' }): FittedText;
export function fitText(request: FitRequest): FittedText | null;
export function fitText(request: FitRequest): FittedText | null {
  const text = request.text.normalize('NFC').trim();
  const { weight, maxWidth } = request;
  const sizes = [...request.sizes].sort((a, b) => b - a);
  if (!text || sizes.length === 0)
    return fitted([], sizes.at(-1) ?? 0, request, { truncated: false, hyphenated: false });
  const lastResort = request.lastResort ?? 'ellipsis';
  for (const [index, size] of sizes.entries()) {
    const last = index === sizes.length - 1 && lastResort !== 'none';
    const wrapped = wrapMeasured(text, size, weight, maxWidth, last);
    if (!wrapped) continue;
    const pitch = size * request.lineHeight;
    if (wrapped.lines.length > request.maxLines || blockHeight(wrapped.lines, size, weight, pitch) > request.maxHeight)
      continue;
    let lines = wrapped.lines;
    if (request.balance === true && lines.length > 1 && !wrapped.hyphenated) {
      const even = balanced(text, size, weight, maxWidth, lines.length);
      if (even.length === lines.length) lines = even;
    } else if (request.balance === 'widow') lines = withoutWidow(lines, size, weight, maxWidth);
    return fitted(lines, size, request, { truncated: false, hyphenated: wrapped.hyphenated });
  }
  if (lastResort !== 'ellipsis') return null;
  // Last resort: the minimum size, as many lines as the box holds, the last one ending in an ellipsis.
  const size = sizes.at(-1)!;
  const pitch = size * request.lineHeight;
  const wrapped = wrapMeasured(text, size, weight, maxWidth, true)!;
  let count = Math.min(request.maxLines, wrapped.lines.length);
  while (count > 0 && blockHeight(wrapped.lines.slice(0, count), size, weight, pitch) > request.maxHeight) count--;
  if (count === 0) return fitted([], size, request, { truncated: true, hyphenated: false });
  const lines = wrapped.lines.slice(0, count);
  lines[count - 1] = ellipsize(wrapped.lines.slice(count - 1).join(' '), size, weight, maxWidth);
  return fitted(lines, size, request, { truncated: true, hyphenated: wrapped.hyphenated });
}
