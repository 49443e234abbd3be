/**
 * The image composer (src/domain/creative/images/compose.ts, contrast.ts) and the studio's variant
 * composition: deterministic bytes, every line inside its region, the price tag sized to its text, no drawn
 * button, WCAG AA colours even for brand palettes that fail, and text said once per picture.
 */
import { PNG } from 'pngjs';
import { DEFAULT_BRANDBOOK, DEFAULT_CONCIERGE } from '../../src/domain/brand/brand-defaults.ts';
import type { BrandView } from '../../src/domain/brand/brand.service.ts';
import {
  composeImage,
  layoutComposition,
  renderPng,
  type Composition,
  type Layout,
} from '../../src/domain/creative/images/compose.ts';
import {
  chooseTextColour,
  contrastRatio,
  isLargeText,
  requiredContrast,
} from '../../src/domain/creative/images/contrast.ts';
import { measureLine } from '../../src/domain/creative/images/fonts.ts';
import { layoutVariant } from '../../src/domain/creative/studio.ts';
import { productView } from '../support/views.ts';

const palette = { primary: '#1F3B2D', secondary: '#8FA98C', accent: '#E07A2E', background: '#F4F1EA', text: '#1B1B1B' };
const base: Composition = {
  width: 1200,
  height: 630,
  palette,
  eyebrow: 'Fjell',
  headline: 'Recycled shell, repaired for life',
  body: 'Three layers of recycled nylon keep the rain out, and Fjell repairs the jacket for as long as you own it.',
  callToAction: 'See how it works',
  badge: '€289.00',
  seed: 'variant-1',
};

const inside = (box: Layout['lines'][number]['box'], rect: { x: number; y: number; width: number; height: number }) =>
  box.x >= rect.x - 1e-6 &&
  box.y >= rect.y - 1e-6 &&
  box.x + box.width <= rect.x + rect.width + 1e-6 &&
  box.y + box.height <= rect.y + rect.height + 1e-6;

function expectWellFormed(layout: Layout): void {
  for (const line of layout.lines) {
    const region = layout.regions.find((r) => r.name === line.region)!;
    expect(inside(line.box, region.rect)).toBe(true);
    expect(inside(line.box, { x: 0, y: 0, width: layout.width, height: layout.height })).toBe(true);
  }
  for (const pair of layout.colours) expect(pair.ratio).toBeGreaterThanOrEqual(pair.required);
}

describe('composition', () => {
  test.each([
    [1200, 630],
    [1080, 1080],
    [1080, 1920],
    [1280, 720],
    [720, 1280],
    [720, 720],
  ])('%ix%i: a PNG of that size; every line inside its region; AA colours', (width, height) => {
    const { png, layout } = composeImage({ ...base, width, height });
    const decoded = PNG.sync.read(png);
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    expectWellFormed(layout);
    expect(layout.lines.map((line) => line.role)).toEqual(
      expect.arrayContaining(['eyebrow', 'headline', 'body', 'callToAction', 'badge']),
    );
    expect(layout.truncated).toEqual([]);
    // The text column never overlaps the picture.
    const text = layout.regions.find((r) => r.name === 'text')!.rect;
    const p = layout.picture;
    expect(text.x + text.width <= p.x || text.y >= p.y + p.height || p.x + p.width <= text.x).toBe(true);
  });

  test('a body too long for the column ends sooner by whole sentences, recorded, and nothing is cut', () => {
    const sentences = [
      'Three layers of recycled nylon keep the rain out.',
      'Fully taped seams, pit zips and a helmet-compatible hood.',
      'Fjell repairs the jacket for as long as you own it.',
      'Sewn in Portugal from fabric woven in Italy.',
      'Every jacket is checked by hand before it leaves the workshop.',
      'Packed without plastic in a recycled paper bag.',
      'Returns are free for 60 days, worn or not.',
    ];
    const { layout } = layoutComposition({ ...base, body: sentences.join(' ') });
    expect(layout.truncated).toEqual([]);
    expect(layout.shortened).toEqual(['body']);
    const body = layout.lines
      .filter((line) => line.role === 'body')
      .map((line) => line.text)
      .join(' ');
    // What is drawn is the body's first few sentences, exactly, ending where a sentence ends.
    const kept = sentences.findIndex((_, i) => sentences.slice(0, i + 1).join(' ') === body.replace(/-\s/g, '-'));
    expect(kept).toBeGreaterThanOrEqual(0);
    expect(kept).toBeLessThan(sentences.length - 1);
    expectWellFormed(layout);
    // A body that fits is drawn whole and not marked.
    expect(layoutComposition(base).layout.shortened).toEqual([]);
  });

  test('deterministic: the same input gives the same bytes; another seed another picture', () => {
    const first = composeImage(base).png;
    expect(composeImage(base).png.equals(first)).toBe(true);
    expect(composeImage({ ...base, seed: 'variant-2' }).png.equals(first)).toBe(false);
  });

  test('the price tag is measured: the whole price is drawn and the tag holds it with room to spare', () => {
    for (const badge of ['€289.00', '1.299,00 €', '12 900,00 kr', 'CHF 1’189.00', '18.995,00 kr.']) {
      const { layout, svg } = layoutComposition({ ...base, badge });
      const line = layout.lines.find((l) => l.role === 'badge')!;
      expect(line.text).toBe(badge);
      const tag = layout.regions.find((r) => r.name === 'badge')!.rect;
      expect(inside(line.box, tag)).toBe(true);
      expect(tag.width).toBeGreaterThan(line.box.width + line.size * 0.9);
      expect(svg).toContain(`<rect x="${tag.x}" y="${tag.y}" width="${tag.width}" height="${tag.height}"`);
    }
  });

  test('the call to action is a line of text, not a button: no shape behind it', () => {
    const { layout, svg } = layoutComposition(base);
    const cta = layout.lines.find((l) => l.role === 'callToAction')!;
    expect(cta.text).toBe('See how it works');
    expect(cta.region).toBe('text');
    // The only shapes in the text column are the page background and the short accent rule above the text.
    const rects = [...svg.matchAll(/<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"/g)].map((m) =>
      m.slice(1).map(Number),
    );
    for (const [x, y, w, h] of rects) {
      const overlapsCta =
        x! < cta.box.x + cta.box.width && cta.box.x < x! + w! && y! < cta.box.y + cta.box.height && cta.box.y < y! + h!;
      expect(overlapsCta).toBe(false);
    }
  });

  test('a brand palette that fails contrast gets readable text: a passing brand colour, else near-black', () => {
    const poor = {
      primary: '#FFE000',
      secondary: '#FFF3A0',
      accent: '#FFD000',
      background: '#FFFFFF',
      text: '#CCCCCC',
    };
    const { layout } = layoutComposition({ ...base, palette: poor, width: 1080, height: 1080 });
    expectWellFormed(layout);
    expect(layout.lines.find((l) => l.role === 'headline')!.fill).toBe('#111111');
    const navy = { ...poor, secondary: '#1A2A6C' };
    const better = layoutComposition({ ...base, palette: navy, width: 1080, height: 1080 }).layout;
    expect(better.lines.find((l) => l.role === 'body')!.fill).toBe('#1A2A6C');
  });

  test('a product image is embedded in the picture, never under the text', () => {
    const photo = renderPng(
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#c33"/></svg>',
    );
    const { svg, layout } = layoutComposition({ ...base, image: { bytes: photo, mimeType: 'image/png' } });
    expect(svg).toContain(`href="data:image/png;base64,${photo.toString('base64')}"`);
    expectWellFormed(layout);
  });

  test('text is escaped and control characters never reach the SVG', () => {
    const { svg } = layoutComposition({ ...base, headline: 'Fish & <chips>\u202e "quoted"\u0007' });
    expect(svg).toContain('Fish &amp; &lt;chips&gt;');
    expect(svg.includes('\u202e') || svg.includes('\u0007')).toBe(false);
    expect(svg).not.toContain('<chips>');
  });

  test('a size outside 200..4096 pixels is refused with a clear error', () => {
    expect(() => layoutComposition({ ...base, width: 50 })).toThrow('Image size 50x630 is outside 200..4096 pixels');
  });

  test('any length: from one word to a paragraph, nothing leaves its region', () => {
    const words = 'Größenverstellbarer Kinderfahrradhelm für Ærøskøbing und Ελλάδα и Россия'.split(' ');
    for (let n = 1; n <= 60; n += 7) {
      const text = Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
      for (const [width, height] of [
        [1200, 630],
        [1080, 1920],
      ])
        expectWellFormed(
          layoutComposition({ ...base, width: width!, height: height!, headline: text, body: text }).layout,
        );
    }
  });
});

describe('contrast rule', () => {
  test('large text is 47 px bold or 60 px regular in the image (WCAG 14pt / 18pt at the display scale)', () => {
    expect(isLargeText(47, true)).toBe(true);
    expect(isLargeText(46, true)).toBe(false);
    expect(isLargeText(60, false)).toBe(true);
    expect(isLargeText(59, false)).toBe(false);
    expect(requiredContrast(30, true)).toBe(4.5);
    expect(requiredContrast(80, true)).toBe(3);
  });

  test('the preferred colour when it passes, else the best passing brand colour, else a neutral', () => {
    expect(chooseTextColour('#1B1B1B', [], ['#F4F1EA'], 4.5)).toMatchObject({ colour: '#1B1B1B', source: 'preferred' });
    expect(chooseTextColour('#CCCCCC', ['#777777', '#1A2A6C', '#FFE000'], ['#FFFFFF'], 4.5)).toMatchObject({
      colour: '#1A2A6C',
      source: 'brand',
    });
    expect(chooseTextColour('#CCCCCC', ['#EEEEEE'], ['#FFFFFF'], 4.5)).toMatchObject({
      colour: '#111111',
      source: 'neutral',
    });
    expect(chooseTextColour('#333333', [], ['#202020'], 4.5)).toMatchObject({ colour: '#fafafa', source: 'neutral' });
    // Against several colours (text over a shape and the background), the worst one decides.
    const chosen = chooseTextColour('#777777', [], ['#FFFFFF', '#000000'], 4.5);
    expect(Math.min(contrastRatio(chosen.colour, '#FFFFFF'), contrastRatio(chosen.colour, '#000000'))).toBe(
      chosen.ratio,
    );
  });
});

describe('variant compositions (studio)', () => {
  const brand: BrandView = {
    brandbook: { ...DEFAULT_BRANDBOOK, colors: palette },
    profile: { displayName: 'Fjell', tagline: null, description: null, website: null, contactEmail: null, sameAs: [] },
    voice: { tone: null, personality: [], doSay: [], dontSay: [], sampleCopy: null },
    concierge: DEFAULT_CONCIERGE,
    version: 1,
    updatedAt: null,
  };
  const product = productView({ id: 'prd_1', title: 'Tind 3L Shell Jacket', price: 289, currency: 'EUR' });
  const request = {
    width: 1280,
    height: 720,
    brand,
    product,
    productImage: null,
    seed: 's',
    draft: { headline: 'Repaired for life', body: 'Recycled nylon, taped seams.', callToAction: 'Find your size' },
  };
  const roles = (layout: Layout) => layout.lines.map((line) => `${line.role}:${line.text}`);

  test('a still shows brand, headline, body, call to action and the price', () => {
    // "Repaired for life" does not fit one line of the 1280x720 column at full size: balanced, not "life" alone.
    expect(roles(layoutVariant(request).layout)).toEqual([
      'eyebrow:Fjell',
      'headline:Repaired',
      'headline:for life',
      'body:Recycled nylon, taped seams.',
      'callToAction:Find your size',
      'badge:€289.00',
    ]);
  });

  test('a headline-only scene shows no body and no call to action; the market price label is used', () => {
    const { layout } = layoutVariant({ ...request, headlineOnly: true, market: { locale: 'nb-NO' } });
    expect(roles(layout)).toEqual(['eyebrow:Fjell', 'headline:Repaired', 'headline:for life', 'badge:289,00 €']);
  });

  test('text is said once: a call-to-action scene and an offer headline that states the price', () => {
    const cta = layoutVariant({
      ...request,
      draft: { headline: 'Find your size', body: 'Fjell', callToAction: 'Find your size' },
    }).layout;
    expect(roles(cta)).toEqual(['eyebrow:Fjell', 'headline:Find your size', 'badge:€289.00']);
    const offer = layoutVariant({
      ...request,
      headlineOnly: true,
      draft: { ...request.draft, headline: 'Now €289.00' },
    });
    expect(roles(offer.layout)).toEqual(['eyebrow:Fjell', 'headline:Now €289.00']);
  });

  test('overhanging ink (a bold J) moves the line into the column instead of out of it', () => {
    const { layout } = layoutVariant({
      ...request,
      draft: { ...request.draft, headline: 'Jacket, made for the fjords' },
    });
    const line = layout.lines.find((l) => l.role === 'headline')!;
    expect(measureLine(line.text, line.size, 'bold').left).toBeLessThan(0);
    expectWellFormed(layout);
  });
});
