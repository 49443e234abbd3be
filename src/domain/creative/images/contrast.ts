/**
 * The contrast rule for text in images: WCAG 2.x AA, 4.5:1 for normal text and 3:1 for large text, measured
 * with colord's a11y plugin. One place decides what "large" means in an image and which colour text gets.
 *
 * "Large" in WCAG is 18pt (24 CSS px) regular or 14pt (18.67 CSS px) bold. An image's pixels are not CSS
 * pixels: a 1200-px still in a feed or a 1080-px story on a phone is shown at roughly 400-500 CSS px wide.
 * We judge size at DISPLAY_SCALE = 0.4 CSS px per image pixel, so text counts as large only from 60 px
 * regular or 47 px bold in the image; everything smaller must reach 4.5:1.
 */
import { colord, extend } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';

extend([a11yPlugin]);

export const DISPLAY_SCALE = 0.4;
export const AA_NORMAL = 4.5;
export const AA_LARGE = 3;

/** The fallbacks when no brand colour reads: near-black and near-white, then pure black and white. */
const NEUTRALS = ['#111111', '#fafafa', '#000000', '#ffffff'];

export function isValidColour(value: string): boolean {
  return colord(value).isValid();
}

/** WCAG contrast ratio (colord floors it to two decimals, so a pass here is a pass by the exact ratio). */
export function contrastRatio(foreground: string, background: string): number {
  return colord(foreground).contrast(background);
}

export function isLargeText(sizePx: number, bold: boolean): boolean {
  const css = sizePx * DISPLAY_SCALE;
  return bold ? css >= 18.66 : css >= 24;
}

export function requiredContrast(sizePx: number, bold: boolean): number {
  return isLargeText(sizePx, bold) ? AA_LARGE : AA_NORMAL;
}

/** The lowest contrast of `foreground` against any of the colours that can be behind it. */
export function worstContrast(foreground: string, backgrounds: string[]): number {
  return Math.min(...backgrounds.map((background) => contrastRatio(foreground, background)));
}

export interface ChosenColour {
  colour: string;
  ratio: number;
  /** Which rule picked it: the brand's preferred colour, another brand colour, or a neutral fallback. */
  source: 'preferred' | 'brand' | 'neutral';
}

/**
 * The text colour to use on `backgrounds`: the preferred brand colour when it reaches `required`; else the
 * brand colour with the highest contrast among those that reach it; else near-black or near-white (whichever
 * reads better; one of black and white always reaches 4.5:1 on a single solid colour).
 */
export function chooseTextColour(
  preferred: string,
  brandColours: string[],
  backgrounds: string[],
  required: number,
): ChosenColour {
  const preferredRatio = worstContrast(preferred, backgrounds);
  if (isValidColour(preferred) && preferredRatio >= required)
    return { colour: preferred, ratio: preferredRatio, source: 'preferred' };
  const ranked = brandColours
    .filter(isValidColour)
    .map((colour) => ({ colour, ratio: worstContrast(colour, backgrounds) }))
    .filter((c) => c.ratio >= required)
    .sort((a, b) => b.ratio - a.ratio);
  if (ranked[0]) return { ...ranked[0], source: 'brand' };
  // Near-black and near-white first (pure black and white only when neither soft one reaches the ratio).
  const rank = (pair: string[]) =>
    pair.map((colour) => ({ colour, ratio: worstContrast(colour, backgrounds) })).sort((a, b) => b.ratio - a.ratio);
  const soft = rank(NEUTRALS.slice(0, 2))[0]!;
  const best = soft.ratio >= required ? soft : rank(NEUTRALS.slice(2))[0]!;
  return { ...best, source: 'neutral' };
}
