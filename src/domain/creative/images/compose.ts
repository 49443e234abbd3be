/**
 * The built-in image engine: campaign images as SVG compositions (brand colours, the product's image, the
 * headline and call to action), rendered to PNG by resvg with a font shipped in `node_modules`
 * (DejaVu, from the `dejavu-fonts-ttf` package), so the output is the same on every machine and never
 * depends on system fonts. Deterministic: the same inputs and seed give byte-identical PNGs.
 *
 * All text goes into the SVG escaped; product images are embedded as data URIs only after their bytes were
 * checked to be PNG or JPEG, so nothing in a composition can make the renderer fetch anything.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';

const require = createRequire(import.meta.url);
const FONT_DIR = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((file) => path.join(FONT_DIR, file));
const FONT_FAMILY = 'DejaVu Sans';
/** Average advance of DejaVu Sans glyphs as a share of the font size (for line wrapping). */
const AVERAGE_ADVANCE = 0.56;

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
  eyebrow?: string;
  headline: string;
  body?: string;
  callToAction?: string;
  badge?: string;
  image?: EmbeddedImage | null;
  /** Varies the decoration (shapes, their positions) between variants; same seed, same picture. */
  seed: string;
  /** 0..1: a zoom of the product image for motion between keyframes (video). */
  zoom?: number;
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

/** Greedy word wrap to at most `maxLines` lines of about `maxChars` characters; the last line gets an ellipsis. */
export function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    if (candidate.length <= maxChars || !line) {
      line = candidate.length > maxChars ? `${candidate.slice(0, maxChars - 1)}…` : candidate;
      continue;
    }
    lines.push(line);
    line = word;
    if (lines.length === maxLines) break;
  }
  if (lines.length < maxLines && line) lines.push(line);
  const used = lines.join(' ').split(/\s+/).length;
  if (used < words.length && lines.length > 0)
    lines[lines.length - 1] = `${lines[lines.length - 1]!.replace(/[\s.,;:!?…]+$/, '')}…`;
  return lines;
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

function textBlock(
  lines: string[],
  x: number,
  y: number,
  size: number,
  fill: string,
  weight: 'normal' | 'bold',
): string {
  return lines
    .map(
      (line, index) =>
        `<text x="${x}" y="${Math.round(y + index * size * 1.2)}" font-family="${FONT_FAMILY}" font-size="${size}" font-weight="${weight}" fill="${fill}">${escapeXml(line)}</text>`,
    )
    .join('');
}

/** The SVG of a composition: text on one side, the product image (or a brand shape) on the other. */
export function composeSvg(c: Composition): string {
  const { width: w, height: h, palette } = c;
  const random = seeded(c.seed);
  const portrait = h > w * 1.2;
  const pad = Math.round(Math.min(w, h) * 0.07);
  const textWidth = portrait ? w - 2 * pad : Math.round(w * 0.55) - pad;
  const headlineSize = Math.round(Math.min(w, h) * (portrait ? 0.075 : 0.085));
  const bodySize = Math.round(headlineSize * 0.42);
  const charsFor = (size: number) => Math.max(8, Math.floor(textWidth / (size * AVERAGE_ADVANCE)));

  const imageBox = portrait
    ? { x: pad, y: Math.round(h * 0.5), w: w - 2 * pad, h: Math.round(h * 0.32) }
    : { x: Math.round(w * 0.58), y: pad, w: Math.round(w * 0.42) - pad, h: h - 2 * pad };
  const zoom = 1 + 0.08 * (c.zoom ?? 0);
  const shapes = Array.from({ length: 3 }, (_, i) => {
    const r = Math.round(Math.min(w, h) * (0.08 + random() * 0.18));
    const cx = Math.round(random() * w);
    const cy = Math.round(random() * h);
    const fill = i % 2 === 0 ? palette.secondary : palette.accent;
    return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}" opacity="0.35"/>`;
  }).join('');

  const picture = c.image
    ? `<clipPath id="frame"><rect x="${imageBox.x}" y="${imageBox.y}" width="${imageBox.w}" height="${imageBox.h}" rx="${Math.round(pad / 2)}"/></clipPath>` +
      `<g clip-path="url(#frame)"><rect x="${imageBox.x}" y="${imageBox.y}" width="${imageBox.w}" height="${imageBox.h}" fill="${palette.secondary}"/>` +
      `<image x="${Math.round(imageBox.x - (imageBox.w * (zoom - 1)) / 2)}" y="${Math.round(imageBox.y - (imageBox.h * (zoom - 1)) / 2)}" width="${Math.round(imageBox.w * zoom)}" height="${Math.round(imageBox.h * zoom)}" preserveAspectRatio="xMidYMid slice" href="data:${c.image.mimeType};base64,${c.image.bytes.toString('base64')}"/></g>`
    : `<rect x="${imageBox.x}" y="${imageBox.y}" width="${imageBox.w}" height="${imageBox.h}" rx="${Math.round(pad / 2)}" fill="${palette.primary}" opacity="0.9"/>` +
      `<circle cx="${imageBox.x + imageBox.w / 2}" cy="${imageBox.y + imageBox.h / 2}" r="${Math.round((Math.min(imageBox.w, imageBox.h) / 3) * zoom)}" fill="${palette.accent}"/>`;

  let y = portrait ? pad + headlineSize : Math.round(h * 0.22);
  const parts: string[] = [];
  if (c.eyebrow) {
    parts.push(textBlock(wrap(c.eyebrow, charsFor(bodySize), 1), pad, y, bodySize, palette.accent, 'bold'));
    y += Math.round(bodySize * 0.8 + headlineSize * 1.1);
  }
  const headlineLines = wrap(c.headline, charsFor(headlineSize), portrait ? 4 : 3);
  parts.push(textBlock(headlineLines, pad, y, headlineSize, palette.text, 'bold'));
  y += Math.round(headlineLines.length * headlineSize * 1.2 + bodySize);
  if (c.body) {
    const bodyLines = wrap(c.body, charsFor(bodySize), portrait ? 4 : 3);
    parts.push(textBlock(bodyLines, pad, y, bodySize, palette.text, 'normal'));
    y += Math.round(bodyLines.length * bodySize * 1.2 + bodySize);
  }
  if (c.callToAction) {
    const label = wrap(c.callToAction, 28, 1)[0] ?? '';
    const buttonW = Math.round(label.length * bodySize * 0.66 + bodySize * 2);
    const buttonY = portrait ? Math.round(h * 0.86) : Math.min(y, h - pad - bodySize * 2);
    parts.push(
      `<rect x="${pad}" y="${buttonY}" width="${buttonW}" height="${Math.round(bodySize * 2)}" rx="${Math.round(bodySize)}" fill="${palette.primary}"/>` +
        textBlock([label], pad + bodySize, Math.round(buttonY + bodySize * 1.35), bodySize, palette.background, 'bold'),
    );
  }
  if (c.badge) {
    const size = Math.round(bodySize * 1.2);
    const bx = imageBox.x + imageBox.w - size * 4;
    const by = imageBox.y + size;
    parts.push(
      `<rect x="${bx - size / 2}" y="${by - size}" width="${size * 4}" height="${size * 1.6}" rx="${size / 2}" fill="${palette.accent}"/>` +
        textBlock([c.badge], bx, by + size * 0.25, size, palette.background, 'bold'),
    );
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="${palette.background}"/>${shapes}${picture}${parts.join('')}</svg>`
  );
}

/** Renders an SVG to PNG bytes with the shipped fonts only. */
export function renderPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
    imageRendering: 0,
    shapeRendering: 2,
    textRendering: 1,
  });
  return Buffer.from(resvg.render().asPng());
}

export function composePng(composition: Composition): Buffer {
  return renderPng(composeSvg(composition));
}
