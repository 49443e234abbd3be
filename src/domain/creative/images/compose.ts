/**
 * The built-in image engine: campaign images as SVG compositions (brand colours, the product's image, the
 * brand name, headline, body, call to action and price), rendered to PNG by resvg with a font shipped in
 * `node_modules` (DejaVu, from the `dejavu-fonts-ttf` package), so the output is the same on every machine and
 * never depends on system fonts. Deterministic: the same inputs and seed give byte-identical PNGs.
 *
 * Layout: the picture (the product's image, or a brand-coloured panel with shapes) takes one side (landscape)
 * or the top (square, portrait); the text column takes the rest, on the plain background colour and nothing
 * else, so its contrast is exactly the contrast of two known colours. Text is measured with the font's glyphs
 * and fitted (fit.ts); colours are chosen to reach WCAG AA (contrast.ts). `composeImage` returns, besides the
 * PNG, a layout: every line's box, the region it must stay inside and the colour pairs, for checkers.
 *
 * All text goes into the SVG escaped; product images are embedded as data URIs only after their bytes were
 * checked to be PNG or JPEG, so nothing in a composition can make the renderer fetch anything.
 */
import { createHash } from 'node:crypto';
import { Resvg } from '@resvg/resvg-js';
import { chooseTextColour, isValidColour, requiredContrast, worstContrast } from './contrast.ts';
import { fitText, type FittedText } from './fit.ts';
import { FONT_FAMILY, FONT_FILES, fontExtents, measureLine, missingGlyphs, type FontWeight } from './fonts.ts';

export interface Palette {
  primary: string;
  secondary: string;
  accent: string;
  background: string;
  text: string;
}

/** A product image, already fetched and checked. */
export interface EmbeddedImage {
  bytes: Buffer;
  mimeType: 'image/png' | 'image/jpeg';
}

export interface Composition {
  width: number;
  height: number;
  palette: Palette;
  /** A small line above the headline (the brand's name). */
  eyebrow?: string;
  headline: string;
  body?: string;
  callToAction?: string;
  /** The price, set in a tag on the picture. */
  badge?: string;
  image?: EmbeddedImage | null;
  /** Varies the decoration (shapes, their positions) between variants; same seed, same picture. */
  seed: string;
  /** 0..1: a zoom of the product image for motion between keyframes (video). */
  zoom?: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type TextRole = 'eyebrow' | 'headline' | 'body' | 'callToAction' | 'badge';

/** A region text must stay inside, and the colours that can be behind text in it. */
export interface Region {
  name: 'text' | 'badge';
  rect: Rect;
  backgrounds: string[];
}

export interface LaidOutLine {
  role: TextRole;
  text: string;
  /** Pen position: left end of the baseline. */
  x: number;
  baseline: number;
  size: number;
  weight: FontWeight;
  fill: string;
  /** The line's box: its advance (widened by overhanging ink) by the font's ascent and descent (or ink). */
  box: Rect;
  /** The region's name: the line must lie inside that region's rect. */
  region: Region['name'];
}

export interface ColourPair {
  role: TextRole;
  foreground: string;
  background: string;
  ratio: number;
  required: number;
}

export interface Layout {
  width: number;
  height: number;
  format: 'landscape' | 'square' | 'portrait';
  /** Where the picture is (product image or brand panel); the text region never overlaps it. */
  picture: Rect;
  regions: Region[];
  lines: LaidOutLine[];
  colours: ColourPair[];
  /** Roles whose text was cut with an ellipsis or had a word broken with a hyphen (both rare, last resorts). */
  truncated: TextRole[];
  hyphenated: TextRole[];
  /** Roles that lost whole sentences from their end to fit (the body of a long post); nothing was cut. */
  shortened: TextRole[];
  /** Characters DejaVu Sans has no glyph for (drawn as a box); see docs/creative-images.md for what is supported. */
  missingGlyphs: string[];
}

export interface ComposedImage {
  png: Buffer;
  svg: string;
  layout: Layout;
}

export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

/** Sniffs PNG or JPEG bytes; anything else is refused (returns null). */
export function sniffImage(bytes: Buffer): EmbeddedImage | null {
  if (bytes.length > 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { bytes, mimeType: 'image/png' };
  }
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { bytes, mimeType: 'image/jpeg' };
  return null;
}

function seeded(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest();
  let offset = 0;
  return () => {
    if (offset + 4 > state.length) {
      state = createHash('sha256').update(state).digest();
      offset = 0;
    }
    const value = state.readUInt32BE(offset) / 0x1_0000_0000;
    offset += 4;
    return value;
  };
}

/** Text as it may be drawn: one line of plain characters (controls and bidi overrides become spaces). */
function plain(text: string | undefined): string {
  return (text ?? '')
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => (c === '\u00ad' ? c : ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

const round = (value: number) => Math.round(value);

interface Frame {
  format: Layout['format'];
  picture: Rect;
  text: Rect;
  /** Where the price tag goes on the picture. */
  badgeCorner: 'top-right' | 'bottom-right';
  unit: number;
  headlineLines: number;
  bodyLines: number;
}

/**
 * The grid of each format. Stories (portrait) keep text out of the bottom 14% of the frame, where the
 * network's reply bar and captions sit, and put the price tag at the picture's bottom, away from the
 * progress bar and profile name at the top.
 */
function frameOf(w: number, h: number, share: number): Frame {
  const unit = Math.min(w, h);
  const pad = round(unit * 0.075);
  if (w / h >= 1.3) {
    const pictureX = round(w * (1 - PICTURE_SHARES.landscape[share]!));
    return {
      format: 'landscape',
      picture: { x: pictureX, y: 0, width: w - pictureX, height: h },
      text: { x: pad, y: pad, width: pictureX - 2 * pad, height: h - 2 * pad },
      badgeCorner: 'top-right',
      unit,
      headlineLines: 3,
      bodyLines: 4,
    };
  }
  if (w / h > 0.8) {
    const pictureH = round(h * PICTURE_SHARES.square[share]!);
    return {
      format: 'square',
      picture: { x: 0, y: 0, width: w, height: pictureH },
      text: { x: pad, y: pictureH + pad, width: w - 2 * pad, height: h - pictureH - 2 * pad },
      badgeCorner: 'top-right',
      unit,
      headlineLines: 3,
      bodyLines: 4,
    };
  }
  const pictureH = round(h * PICTURE_SHARES.portrait[share]!);
  const bottomSafe = round(h * 0.14);
  return {
    format: 'portrait',
    picture: { x: 0, y: 0, width: w, height: pictureH },
    text: { x: pad, y: pictureH + pad, width: w - 2 * pad, height: h - pictureH - pad - bottomSafe },
    badgeCorner: 'bottom-right',
    unit,
    headlineLines: 4,
    bodyLines: 5,
  };
}

/**
 * The picture's share of the width (landscape) or height (square, portrait). The first is the design; when
 * the copy does not fit cleanly even at the smallest type, the picture gives up room before any word is
 * broken or cut.
 */
const PICTURE_SHARES = {
  landscape: [0.44, 0.38, 0.32],
  square: [0.5, 0.42, 0.34],
  portrait: [0.48, 0.4, 0.33],
} as const;

/** Size steps: the headline shrinks faster than the body, so the hierarchy holds at every step. */
const HEADLINE_STEPS = [1, 0.88, 0.77, 0.67, 0.58];
const BODY_STEPS = [1, 0.95, 0.9, 0.85, 0.8];

interface Element {
  role: TextRole;
  text: string;
  weight: FontWeight;
  base: number;
  steps: number[];
  maxLines: number;
  lineHeight: number;
  balance: boolean | 'widow';
  /** Space above this element, as a multiple of its own size. */
  gapBefore: number;
}

interface Placed {
  element: Element;
  fit: FittedText;
}

function stackHeight(placed: Placed[]): number {
  return placed.reduce((sum, p, index) => sum + (index === 0 ? 0 : p.element.gapBefore * p.fit.size) + p.fit.height, 0);
}

/**
 * Fits the text column. The headline keeps its size longest: the other elements step down first, then the
 * headline steps and the others start again from their largest size. When nothing fits cleanly, at the
 * smallest sizes long words are broken (and the headline may take two more lines); only then does text lose
 * lines to an ellipsis (the body first, then the headline).
 */
function fitStack(
  elements: Element[],
  width: number,
  height: number,
  mode: 'clean' | 'long-headline' | 'any',
): Placed[] | null {
  const request = (element: Element, size: number, maxLines: number, maxHeight: number, balance = false) => ({
    text: element.text,
    weight: element.weight,
    sizes: [size],
    maxWidth: width,
    maxLines,
    maxHeight,
    lineHeight: element.lineHeight,
    balance: balance ? element.balance : false,
  });
  // Balancing is the costly part of fitting, so it is done once, on the sizes that were chosen.
  const balanceAll = (placed: Placed[]): Placed[] =>
    placed.map((p) => {
      if (!p.element.balance || p.fit.truncated || p.fit.lines.length < 2) return p;
      const even = fitText({ ...request(p.element, p.fit.size, p.fit.lines.length, height, true), lastResort: 'none' });
      return even && even.lines.length === p.fit.lines.length ? { element: p.element, fit: even } : p;
    });
  // A headline that is a whole sentence (a video's benefit scene) may go smaller and take more lines, still
  // well above the body's size, before anything is broken or cut.
  const headlineSteps = mode === 'clean' ? HEADLINE_STEPS : [...HEADLINE_STEPS, 0.5, 0.44];
  const sizeAt = (element: Element, step: number) => {
    const steps = element.role === 'headline' ? headlineSteps : element.steps;
    return round(element.base * steps[Math.min(step, steps.length - 1)]!);
  };
  const last = BODY_STEPS.length - 1;
  const headlineLast = headlineSteps.length - 1;
  const attempt = (headlineStep: number, otherStep: number, lastResort: 'none' | 'break'): Placed[] | null => {
    // The hierarchy holds: the headline stays clearly larger (1.2×) than everything else in the column.
    const headlineElement = elements.find((e) => e.role === 'headline');
    if (headlineElement) {
      const others = elements.filter((e) => e !== headlineElement).map((e) => sizeAt(e, otherStep));
      if (sizeAt(headlineElement, headlineStep) < 1.2 * Math.max(0, ...others)) return null;
    }
    const placed: Placed[] = [];
    for (const element of elements) {
      const headline = element.role === 'headline';
      const size = sizeAt(element, headline ? headlineStep : otherStep);
      const maxLines = headline && mode !== 'clean' ? element.maxLines + 3 : element.maxLines;
      const fit = fitText({ ...request(element, size, maxLines, height), lastResort });
      if (!fit) return null;
      placed.push({ element, fit });
    }
    return stackHeight(placed) <= height ? placed : null;
  };
  for (let headlineStep = 0; headlineStep <= headlineLast; headlineStep++)
    for (let otherStep = 0; otherStep <= last; otherStep++) {
      const placed = attempt(headlineStep, otherStep, 'none');
      if (placed) return balanceAll(placed);
    }
  if (mode !== 'any') return null;
  const broken = attempt(headlineLast, last, 'break');
  if (broken) return balanceAll(broken);
  // Too much text for the column even at the smallest sizes: give the body what is left after the rest, then
  // the headline; an element with no room at all is left out rather than drawn outside the column.
  const order = ['body', 'headline', 'callToAction', 'eyebrow'];
  const byPriority = [...elements].sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role));
  const fits = new Map<Element, FittedText>();
  const minimum = (element: Element) => sizeAt(element, element.role === 'headline' ? headlineLast : last);
  const linesOf = (element: Element) => (element.role === 'headline' ? element.maxLines + 3 : element.maxLines);
  for (const element of elements)
    fits.set(element, fitText(request(element, minimum(element), linesOf(element), height)));
  const current = () =>
    elements.filter((e) => fits.get(e)!.lines.length > 0).map((e) => ({ element: e, fit: fits.get(e)! }));
  for (const element of byPriority) {
    if (stackHeight(current()) <= height) break;
    const others = stackHeight(current().filter((p) => p.element !== element));
    const size = minimum(element);
    const room = Math.max(0, height - others - element.gapBefore * size);
    fits.set(element, fitText(request(element, size, linesOf(element), room)));
  }
  return current();
}

interface ColourChoice {
  role: TextRole;
  preferred: string;
  backgrounds: string[];
}

/**
 * The SVG and layout of a composition: text on one side, the product image (or a brand panel) on the other.
 *
 * A picture is not a page: a body too long for the column loses whole sentences from its end (the post's own
 * text carries all of it) before any line is cut with an ellipsis, so a still never ends mid-thought.
 */
export function layoutComposition(c: Composition): { svg: string; layout: Layout } {
  const whole = layoutOnce(c);
  if (!c.body || !whole.layout.truncated.includes('body')) return whole;
  const sentences = c.body.split(/(?<=[.!?])\s+/).filter(Boolean);
  for (let keep = sentences.length - 1; keep >= 1; keep--) {
    const shorter = layoutOnce({ ...c, body: sentences.slice(0, keep).join(' ') });
    if (!shorter.layout.truncated.includes('body')) {
      return { svg: shorter.svg, layout: { ...shorter.layout, shortened: ['body'] } };
    }
  }
  return whole;
}

function layoutOnce(c: Composition): { svg: string; layout: Layout } {
  const { width: w, height: h } = c;
  if (!Number.isInteger(w) || !Number.isInteger(h) || w < 200 || h < 200 || w > 4096 || h > 4096)
    throw new Error(`Image size ${w}x${h} is outside 200..4096 pixels`);
  const first = frameOf(w, h, 0);
  const { unit } = first;
  const palette = c.palette;
  const background = isValidColour(palette.background) ? palette.background : '#ffffff';
  const brandColours = [palette.text, palette.primary, palette.secondary, palette.accent].filter(isValidColour);
  const random = seeded(c.seed);
  const zoom = 1 + 0.08 * Math.min(1, Math.max(0, c.zoom ?? 0));

  // --- The text column's elements, in reading order.
  const headlineBase = round(unit * (first.format === 'landscape' ? 0.1 : first.format === 'square' ? 0.075 : 0.088));
  const bodyBase = round(unit * (first.format === 'landscape' ? 0.046 : first.format === 'square' ? 0.036 : 0.042));
  const elements: Element[] = [];
  const eyebrow = plain(c.eyebrow);
  const headline = plain(c.headline);
  const body = plain(c.body);
  const callToAction = plain(c.callToAction);
  if (eyebrow) elements.push(element('eyebrow', eyebrow, 'bold', round(bodyBase * 0.9), BODY_STEPS, 1, 1.2, false, 0));
  if (headline)
    elements.push(
      element('headline', headline, 'bold', headlineBase, HEADLINE_STEPS, first.headlineLines, 1.12, true, 0.45),
    );
  if (body) elements.push(element('body', body, 'normal', bodyBase, BODY_STEPS, first.bodyLines, 1.4, 'widow', 0.9));
  // The call to action is set as a plain closing line in the brand colour, not as a button: an image cannot
  // be clicked, and a drawn button next to the network's real one promises an action that is not there.
  if (callToAction)
    elements.push(
      element('callToAction', callToAction, 'bold', round(bodyBase * 1.05), BODY_STEPS, 2, 1.3, false, 1.1),
    );

  // The first frame whose text column takes the copy cleanly; then the same with two more headline lines
  // (a benefit scene's headline is a whole sentence); else the roomiest frame, with the last resorts.
  const shares = PICTURE_SHARES.landscape.length;
  let frame = first;
  let placed: Placed[] | null = null;
  for (const mode of ['clean', 'long-headline'] as const)
    for (let share = 0; share < shares && !placed; share++) {
      frame = frameOf(w, h, share);
      placed = fitStack(elements, frame.text.width, frame.text.height, mode);
    }
  placed ??= fitStack(elements, frame.text.width, frame.text.height, 'any')!;
  const { picture } = frame;
  // The text column: on the plain background and nothing else.
  const textRegion: Region = { name: 'text', rect: frame.text, backgrounds: [background] };

  // --- The picture: the product's own image, or a brand panel with shapes that stay inside it.
  const pictureFill = isValidColour(palette.primary) ? palette.primary : '#333333';
  let pictureSvg = `<clipPath id="picture"><rect x="${picture.x}" y="${picture.y}" width="${picture.width}" height="${picture.height}"/></clipPath>`;
  if (c.image) {
    const iw = round(picture.width * zoom);
    const ih = round(picture.height * zoom);
    pictureSvg +=
      `<g clip-path="url(#picture)"><rect x="${picture.x}" y="${picture.y}" width="${picture.width}" height="${picture.height}" fill="${pictureFill}"/>` +
      `<image x="${round(picture.x - (iw - picture.width) / 2)}" y="${round(picture.y - (ih - picture.height) / 2)}" width="${iw}" height="${ih}" preserveAspectRatio="xMidYMid slice" href="data:${c.image.mimeType};base64,${c.image.bytes.toString('base64')}"/></g>`;
  } else {
    // Flat shapes in the brand's colours: a large disc bleeding off one edge, a smaller one in the accent and
    // a thin ring; the seed moves them so variants differ. They live inside the picture only, never under text.
    const short = Math.min(picture.width, picture.height);
    const [big, small, ring] = [palette.secondary, palette.accent, background].map((colour) =>
      isValidColour(colour) ? colour : background,
    );
    const corner = random();
    const bigR = round(short * (0.55 + random() * 0.15) * zoom);
    const bigX = round(picture.x + (corner < 0.5 ? 0.15 : 0.85) * picture.width);
    const bigY = round(picture.y + (random() < 0.5 ? 0.2 : 0.8) * picture.height);
    const smallR = round(short * (0.14 + random() * 0.06) * zoom);
    const smallX = round(picture.x + (corner < 0.5 ? 0.72 : 0.28) * picture.width);
    const smallY = round(picture.y + (0.3 + random() * 0.4) * picture.height);
    const ringR = round(short * 0.3 * zoom);
    const shapes =
      `<circle cx="${bigX}" cy="${bigY}" r="${bigR}" fill="${big}"/>` +
      `<circle cx="${smallX}" cy="${smallY}" r="${smallR}" fill="${small}"/>` +
      `<circle cx="${smallX}" cy="${smallY}" r="${ringR}" fill="none" stroke="${ring}" stroke-width="${Math.max(2, round(short * 0.012))}" opacity="0.7"/>`;
    pictureSvg += `<g clip-path="url(#picture)"><rect x="${picture.x}" y="${picture.y}" width="${picture.width}" height="${picture.height}" fill="${pictureFill}"/>${shapes}</g>`;
  }

  const lines: LaidOutLine[] = [];
  const colours: ColourPair[] = [];
  const colourFor = (choice: ColourChoice, size: number, weight: FontWeight) => {
    const required = requiredContrast(size, weight === 'bold');
    const chosen = chooseTextColour(choice.preferred, brandColours, choice.backgrounds, required);
    for (const bg of choice.backgrounds)
      colours.push({
        role: choice.role,
        foreground: chosen.colour,
        background: bg,
        ratio: worstContrast(chosen.colour, [bg]),
        required,
      });
    return chosen.colour;
  };
  // Vertically centred in the column: the block sits on the column's optical middle, whatever its length.
  let y = frame.text.y + Math.max(0, (frame.text.height - stackHeight(placed)) / 2);
  const preferredColour: Record<TextRole, string> = {
    eyebrow: palette.accent,
    headline: palette.text,
    body: palette.text,
    callToAction: palette.primary,
    badge: background,
  };
  for (const [index, { element: e, fit }] of placed.entries()) {
    if (index > 0) y += e.gapBefore * fit.size;
    const fill = colourFor(
      { role: e.role, preferred: preferredColour[e.role], backgrounds: textRegion.backgrounds },
      fit.size,
      e.weight,
    );
    let baseline = y + fit.firstAscent;
    for (const text of fit.lines) {
      // Ink that overhangs the pen position to the left (a bold "J") moves the line right, into the column.
      const overhang = Math.ceil(-measureLine(text, fit.size, e.weight).left);
      lines.push(lineAt(e.role, text, frame.text.x + overhang, round(baseline), fit.size, e.weight, fill, 'text'));
      baseline += fit.pitch;
    }
    y += fit.height;
  }

  // --- The price tag: sized to its measured text, on the picture, its own solid colour behind the price.
  const regions: Region[] = [textRegion];
  let badgeSvg = '';
  const badge = plain(c.badge);
  if (badge) {
    const margin = round(unit * 0.045);
    // The tag must stand out from the panel it sits on (a yellow tag on a yellow panel would vanish); the
    // product photo behind it is unknown, which is why the price sits on the tag's own solid fill.
    const tagFill =
      [palette.accent, palette.secondary, background, palette.text].find(
        (colour) => isValidColour(colour) && (c.image || worstContrast(colour, [pictureFill]) >= 1.5),
      ) ?? '#111111';
    const size = round(bodyBase * 1.1);
    const padX = round(size * 0.55);
    const padY = round(size * 0.35);
    const fit = fitText({
      text: badge,
      weight: 'bold',
      sizes: [size, round(size * 0.85), round(size * 0.7)],
      maxWidth: picture.width - 2 * margin - 2 * padX,
      maxLines: 1,
      maxHeight: picture.height - 2 * margin - 2 * padY,
      lineHeight: 1.2,
    });
    if (fit.lines.length > 0) {
      const extents = fontExtents(fit.size, 'bold');
      const m = measureLine(fit.lines[0]!, fit.size, 'bold');
      const ascent = Math.max(extents.ascent, m.ascent);
      const descent = Math.max(extents.descent, m.descent);
      const tagW = Math.ceil(m.right - m.left + 2 * padX);
      const tagH = Math.ceil(ascent + descent + 2 * padY);
      const tagX = picture.x + picture.width - margin - tagW;
      const tagY = frame.badgeCorner === 'top-right' ? picture.y + margin : picture.y + picture.height - margin - tagH;
      const rect = { x: tagX, y: tagY, width: tagW, height: tagH };
      // A tag, not a pill: small corners read as a printed price label rather than as a button to press.
      const radius = round(tagH * 0.12);
      const region: Region = { name: 'badge', rect, backgrounds: [tagFill] };
      regions.push(region);
      const fill = colourFor(
        { role: 'badge', preferred: preferredColour.badge, backgrounds: region.backgrounds },
        fit.size,
        'bold',
      );
      badgeSvg = `<rect x="${tagX}" y="${tagY}" width="${tagW}" height="${tagH}" rx="${radius}" fill="${tagFill}"/>`;
      lines.push(
        lineAt(
          'badge',
          fit.lines[0]!,
          round(tagX + padX - m.left),
          round(tagY + padY + ascent),
          fit.size,
          'bold',
          fill,
          'badge',
        ),
      );
    }
  }

  // A short rule in the accent colour above the column's first line: the brand's colour on the text side too.
  const rule = lines.find((line) => line.region === 'text');
  const ruleH = Math.max(3, round(unit * 0.007));
  const ruleY = rule ? round(rule.box.y - ruleH - unit * 0.025) : 0;
  // It must be visible on the background (white on cream is not), so it falls back to the text's colour.
  const ruleColour =
    [palette.accent, palette.primary, palette.secondary].find(
      (colour) => isValidColour(colour) && worstContrast(colour, [background]) >= 1.5,
    ) ?? rule?.fill;
  const ruleSvg =
    rule && ruleColour && ruleY >= frame.text.y - unit * 0.06
      ? `<rect x="${frame.text.x}" y="${ruleY}" width="${round(unit * 0.07)}" height="${ruleH}" fill="${ruleColour}"/>`
      : '';

  const textSvg = lines
    .map(
      (line) =>
        `<text x="${line.x}" y="${line.baseline}" font-family="${FONT_FAMILY}" font-size="${line.size}" font-weight="${line.weight}" fill="${line.fill}">${escapeXml(line.text)}</text>`,
    )
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="${background}"/>${pictureSvg}${ruleSvg}${badgeSvg}${textSvg}</svg>`;

  const roles = (flag: 'truncated' | 'hyphenated') => placed.filter((p) => p.fit[flag]).map((p) => p.element.role);
  const missing = new Set(lines.flatMap((line) => missingGlyphs(line.text, line.weight)));
  const dropped = elements.filter((e) => !placed.some((p) => p.element === e)).map((e) => e.role);
  return {
    svg,
    layout: {
      width: w,
      height: h,
      format: frame.format,
      picture,
      regions,
      lines,
      colours,
      truncated: [...roles('truncated'), ...dropped],
      hyphenated: roles('hyphenated'),
      shortened: [],
      missingGlyphs: [...missing].sort(),
    },
  };
}

function element(
  role: TextRole,
  text: string,
  weight: FontWeight,
  base: number,
  steps: number[],
  maxLines: number,
  lineHeight: number,
  balance: boolean | 'widow',
  gapBefore: number,
): Element {
  return { role, text, weight, base, steps, maxLines, lineHeight, balance, gapBefore };
}

function lineAt(
  role: TextRole,
  text: string,
  x: number,
  baseline: number,
  size: number,
  weight: FontWeight,
  fill: string,
  region: Region['name'],
): LaidOutLine {
  const m = measureLine(text, size, weight);
  const box = {
    x: x + m.left,
    y: baseline - m.ascent,
    width: m.right - m.left,
    height: m.ascent + m.descent,
  };
  return { role, text, x, baseline, size, weight, fill, box, region };
}

/** Renders an SVG to PNG bytes with the shipped fonts only. */
export function renderPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    font: { fontFiles: Object.values(FONT_FILES), loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
    imageRendering: 0,
    shapeRendering: 2,
    textRendering: 1,
  });
  return Buffer.from(resvg.render().asPng());
}

/** The PNG, its SVG and its layout (for checkers: line boxes, regions, colour pairs). */
export function composeImage(composition: Composition): ComposedImage {
  const { svg, layout } = layoutComposition(composition);
  return { png: renderPng(svg), svg, layout };
}

export function composePng(composition: Composition): Buffer {
  return composeImage(composition).png;
}
