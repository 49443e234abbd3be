/**
 * Text fitting for the image composer (src/domain/creative/images/fit.ts): lines wrapped by the font's own
 * widths, size steps before any word is broken, hyphenation of words wider than the box at the minimum size,
 * and an ellipsis only when nothing else fits. Widths are checked against resvg's rendering of each line, not
 * against the fitter's own measure.
 */
import { Resvg } from '@resvg/resvg-js';
import {
  fitText as fitOrNull,
  wrapMeasured,
  type FitRequest,
  type FittedText,
} from '../../src/domain/creative/images/fit.ts';
import {
  FONT_FAMILY,
  FONT_FILES,
  lineWidth,
  measureLine,
  missingGlyphs,
} from '../../src/domain/creative/images/fonts.ts';

/** The line's ink extent as resvg draws it, pen at x = 0. */
function rendered(text: string, size: number, weight: 'normal' | 'bold') {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="400"><text x="1000" y="200" font-family="${FONT_FAMILY}" font-size="${size}" font-weight="${weight}">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text></svg>`;
  const box = new Resvg(svg, { font: { fontFiles: Object.values(FONT_FILES), loadSystemFonts: false } }).getBBox()!;
  return { left: box.x - 1000, right: box.x + box.width - 1000, top: 200 - box.y, bottom: box.y + box.height - 200 };
}

/** fitText with the default last resort (ellipsis) always returns a fit; null only with `none` / `break`. */
const fitText = (r: FitRequest): FittedText => fitOrNull(r)!;

const request = (text: string, overrides: Partial<FitRequest> = {}): FitRequest => ({
  text,
  weight: 'bold',
  sizes: [60, 52, 46, 40, 35],
  maxWidth: 520,
  maxLines: 3,
  maxHeight: 400,
  lineHeight: 1.12,
  ...overrides,
});

const SAMPLES = [
  'Recycled shell, repaired for life',
  'Fjällräven Größenübersicht für Ærøskøbing — blåbær og rødgrød med fløde',
  'Größenverstellbarer Kinderfahrradhelm für Grenzüberschreitungsverhandlungen',
  'Ελληνικά προϊόντα για τον χειμώνα, φτιαγμένα να κρατάνε',
  'Кириллица: зимняя куртка из переработанных материалов',
  'Menu dégustation d’hiver — Côte de Léchet, Œuvre, Ça va',
  'Karma dla kota z łososiem, żółć, Świętokrzyskie',
  'AVATAR WAVE fi ffl Tj Yo — “quotes” and 20,000 mm',
];

describe('measuring with the shipped font', () => {
  test.each(SAMPLES)('the measure of "%s" holds the rendered ink', (text) => {
    for (const weight of ['normal', 'bold'] as const) {
      const measured = measureLine(text, 48, weight);
      const ink = rendered(text, 48, weight);
      expect(ink.left).toBeGreaterThanOrEqual(measured.left - 0.5);
      expect(ink.right).toBeLessThanOrEqual(measured.right + 0.5);
      expect(ink.top).toBeLessThanOrEqual(measured.ascent + 0.5);
      expect(ink.bottom).toBeLessThanOrEqual(measured.descent + 0.5);
      // An upper bound, but a tight one: within 6% of the drawn width (kerning and ligatures only narrow).
      expect(measured.right - measured.left).toBeLessThanOrEqual((ink.right - Math.min(0, ink.left)) * 1.06 + 2);
    }
  });

  test('DejaVu covers Latin with diacritics, Nordic, Greek and Cyrillic; CJK is reported missing', () => {
    expect(SAMPLES.flatMap((text) => missingGlyphs(text, 'bold'))).toEqual([]);
    expect(missingGlyphs('Tokyo 東京', 'bold')).toEqual(['東', '京']);
  });
});

describe('fitting text into a box', () => {
  test.each(SAMPLES)('"%s" fits without clipping', (text) => {
    const fit = fitText(request(text, { maxLines: 5 }));
    expect(fit.lines.length).toBeGreaterThan(0);
    expect(fit.lines.length).toBeLessThanOrEqual(5);
    for (const line of fit.lines) {
      const ink = rendered(line, fit.size, 'bold');
      expect(ink.right - Math.min(0, ink.left)).toBeLessThanOrEqual(520);
    }
    expect(fit.truncated).toBe(false);
    // Nothing lost: the lines are the text (a hyphen added at a broken word is the only difference).
    expect(fit.lines.join(' ').replace(/- /g, '').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, '').replace(/-/g, ''));
  });

  test('short text keeps the largest size; longer text steps down before anything else', () => {
    expect(fitText(request('Built to last')).size).toBe(60);
    const longer = fitText(request('Three layers of recycled nylon keep Scandinavian rain out all winter'));
    expect(longer.size).toBeLessThan(60);
    expect(longer.truncated).toBe(false);
    expect(longer.hyphenated).toBe(false);
  });

  test('a word wider than the box is broken with a hyphen only at the minimum size', () => {
    const word = 'Donaudampfschifffahrtsgesellschaftskapitän';
    expect(wrapMeasured(word, 60, 'bold', 520, false)).toBeNull();
    const fit = fitText(request(word));
    expect(fit.size).toBe(35);
    expect(fit.hyphenated).toBe(true);
    expect(fit.lines.length).toBeGreaterThan(1);
    for (const line of fit.lines.slice(0, -1)) expect(line.endsWith('-')).toBe(true);
    expect(fit.lines.map((line) => line.replace(/-$/, '')).join('')).toBe(word);
    for (const line of fit.lines) expect(lineWidth(line, 35, 'bold')).toBeLessThanOrEqual(520);
    // A syllable-like break, not an arbitrary cut: each piece but the last ends before a consonant + vowel.
    expect(fit.lines[0]).toMatch(/^Donaudampfschifffahrts(ge)?-$/);
  });

  test('a soft hyphen in the text is the preferred break and shows as a hyphen only there', () => {
    const fit = fitText(request('Kinderfahrrad\u00adhelmverstellungssystem', { sizes: [60], maxWidth: 500 }));
    expect(fit.lines[0]).toBe('Kinderfahrrad-');
    expect(fit.lines.join('')).not.toContain('\u00ad');
  });

  test('a letter with combining marks is never split from them', () => {
    const decomposed = 'A\u030Arhus'.repeat(12); // Å as A + combining ring
    const fit = fitText(request(decomposed, { sizes: [40], maxWidth: 200, maxLines: 20, maxHeight: 2000 }));
    for (const line of fit.lines) expect(line.normalize('NFC').startsWith('\u030A')).toBe(false);
    expect(fit.lines.join('').replace(/-/g, '')).toBe(decomposed.normalize('NFC'));
  });

  test('an ellipsis only when the minimum size cannot hold the text, on the last line that fits', () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const fit = fitText(request(long));
    expect(fit.truncated).toBe(true);
    expect(fit.size).toBe(35);
    expect(fit.lines).toHaveLength(3);
    expect(fit.lines[2]!.endsWith('…')).toBe(true);
    expect(lineWidth(fit.lines[2]!, 35, 'bold')).toBeLessThanOrEqual(520);
    expect(fitOrNull({ ...request(long), lastResort: 'break' })).toBeNull();
    expect(fitOrNull({ ...request('Donaudampfschifffahrtsgesellschaft'), lastResort: 'none' })).toBeNull();
  });

  test('the height limit counts: lines that would not fit the height are not drawn', () => {
    const fit = fitText(request('One two three four five six seven eight nine ten', { maxWidth: 200, maxHeight: 90 }));
    expect(fit.height).toBeLessThanOrEqual(90);
    expect(fitText(request('Anything', { maxHeight: 10 })).lines).toEqual([]);
  });

  test('running text keeps its ragged right but no single word alone on the last line', () => {
    const text = 'Wasserdichte Dreilagenjacke aus recyceltem Material, ein Leben lang.';
    const greedy = wrapMeasured(text, 30, 'normal', 530, false)!.lines;
    expect(greedy.at(-1)!.includes(' ')).toBe(false);
    const fit = fitText(request(text, { weight: 'normal', sizes: [30], maxWidth: 530, balance: 'widow' }));
    expect(fit.lines).toHaveLength(greedy.length);
    expect(fit.lines.at(-1)!.split(' ')).toHaveLength(2);
    expect(fit.lines.join(' ')).toBe(text);
  });

  test('balanced headlines: same number of lines, no orphaned last word', () => {
    const text = 'Recycled shell jacket, repaired for life';
    const greedy = wrapMeasured(text, 60, 'bold', 700, false)!.lines;
    const fit = fitText(request(text, { maxWidth: 700, balance: true }));
    expect(fit.lines).toHaveLength(greedy.length);
    expect(greedy.at(-1)).toBe('life'); // greedy leaves one word alone on the last line
    expect(fit.lines).toEqual(['Recycled', 'shell jacket,', 'repaired for life']);
    const widths = fit.lines.map((line) => lineWidth(line, fit.size, 'bold'));
    expect(Math.max(...widths)).toBeLessThan(Math.max(...greedy.map((line) => lineWidth(line, 60, 'bold'))));
  });
});
