/**
 * The fonts the image composer draws with, and their metrics. The same TrueType files resvg renders with
 * (DejaVu Sans and DejaVu Sans Bold from the `dejavu-fonts-ttf` package) are read with opentype.js, so every
 * width the layout relies on is the width of the glyphs that will be drawn, not a guess per character.
 *
 * Widths are conservative: opentype.js adds up advance widths (it applies no GPOS kerning and no ligatures
 * for DejaVu, which only make resvg's shaped line narrower) and the measured line is widened by any glyph ink
 * that overhangs its advance at either end. A line measured to fit therefore never draws wider than measured.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import opentype from 'opentype.js';

const require = createRequire(import.meta.url);
const FONT_DIR = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export type FontWeight = 'normal' | 'bold';

export const FONT_FAMILY = 'DejaVu Sans';
export const FONT_FILES: Record<FontWeight, string> = {
  normal: path.join(FONT_DIR, 'DejaVuSans.ttf'),
  bold: path.join(FONT_DIR, 'DejaVuSans-Bold.ttf'),
};

interface GlyphMetrics {
  advance: number;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  /** False for the .notdef glyph: the font has no glyph for the character. */
  present: boolean;
}

interface LoadedFont {
  font: opentype.Font;
  unitsPerEm: number;
  ascender: number;
  descender: number;
  /** Per code point: its glyph's metrics (the cmap lookup and outline bounds are the slow part). */
  chars: Map<number, GlyphMetrics & { glyph: number }>;
  kerning: Map<number, number>;
}

const loaded = new Map<FontWeight, LoadedFont>();

function fontOf(weight: FontWeight): LoadedFont {
  let entry = loaded.get(weight);
  if (!entry) {
    const font = opentype.loadSync(FONT_FILES[weight]);
    entry = {
      font,
      unitsPerEm: font.unitsPerEm,
      ascender: font.ascender,
      descender: font.descender,
      chars: new Map(),
      kerning: new Map(),
    };
    loaded.set(weight, entry);
  }
  return entry;
}

function metricsOf(entry: LoadedFont, codePoint: number): GlyphMetrics & { glyph: number } {
  let metrics = entry.chars.get(codePoint);
  if (!metrics) {
    const glyph = entry.font.charToGlyph(String.fromCodePoint(codePoint));
    const box = glyph.getMetrics();
    const empty = !Number.isFinite(box.xMin) || !Number.isFinite(box.xMax) || box.xMax <= box.xMin;
    metrics = {
      glyph: glyph.index,
      advance: glyph.advanceWidth ?? 0,
      xMin: empty ? 0 : box.xMin,
      xMax: empty ? 0 : box.xMax,
      yMin: empty ? 0 : box.yMin,
      yMax: empty ? 0 : box.yMax,
      present: glyph.index !== 0,
    };
    entry.chars.set(codePoint, metrics);
  }
  return metrics;
}

function kerningOf(entry: LoadedFont, left: number, right: number): number {
  const key = left * 0x10000 + right;
  let value = entry.kerning.get(key);
  if (value === undefined) {
    value = entry.font.getKerningValue(left, right);
    entry.kerning.set(key, value);
  }
  return value;
}

/** One line of text measured at a size, in pixels relative to the pen position on the baseline. */
export interface LineMetrics {
  /** Horizontal extent the line occupies: the advance, widened by ink overhanging either end. */
  left: number;
  right: number;
  /** Vertical extent above / below the baseline: the font's ascent and descent, or the ink if it reaches further. */
  ascent: number;
  descent: number;
}

const cache = new Map<string, LineMetrics>();

/**
 * Measures a line glyph by glyph (one glyph per code point: the cmap's glyph, as resvg uses for DejaVu's
 * Latin, Greek and Cyrillic; its ligatures and kerning only narrow the line, so this is an upper bound).
 */
export function measureLine(text: string, size: number, weight: FontWeight): LineMetrics {
  const key = `${weight}|${size}|${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const entry = fontOf(weight);
  const scale = size / entry.unitsPerEm;
  let pen = 0;
  let inkLeft = 0;
  let inkRight = 0;
  let top = entry.ascender;
  let bottom = -entry.descender;
  let previous = -1;
  for (const ch of text) {
    const m = metricsOf(entry, ch.codePointAt(0)!);
    // Kerning only ever narrows DejaVu pairs; leaving negative values out keeps the measure an upper bound.
    if (previous >= 0) pen += Math.max(0, kerningOf(entry, previous, m.glyph));
    if (m.xMax > m.xMin) {
      inkLeft = Math.min(inkLeft, pen + m.xMin);
      inkRight = Math.max(inkRight, pen + m.xMax);
      top = Math.max(top, m.yMax);
      bottom = Math.max(bottom, -m.yMin);
    }
    pen += m.advance;
    previous = m.glyph;
  }
  const result: LineMetrics = {
    left: inkLeft * scale,
    right: Math.max(pen, inkRight) * scale,
    ascent: top * scale,
    descent: bottom * scale,
  };
  if (cache.size > 50_000) cache.clear();
  cache.set(key, result);
  return result;
}

/** Characters of `text` the font has no glyph for (they would be drawn as the .notdef box). */
export function missingGlyphs(text: string, weight: FontWeight): string[] {
  const entry = fontOf(weight);
  return [...new Set(text)].filter((ch) => /\S/u.test(ch) && !metricsOf(entry, ch.codePointAt(0)!).present);
}

/** The width a line needs, ink included. */
export function lineWidth(text: string, size: number, weight: FontWeight): number {
  const m = measureLine(text, size, weight);
  return m.right - m.left;
}

/** The font's own ascent and descent at a size (the line box without any ink that reaches further). */
export function fontExtents(size: number, weight: FontWeight): { ascent: number; descent: number } {
  const entry = fontOf(weight);
  return { ascent: (entry.ascender / entry.unitsPerEm) * size, descent: (-entry.descender / entry.unitsPerEm) * size };
}
