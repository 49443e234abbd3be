/**
 * Which colour pairs of a brand book people will read on the brand site, and whether each reaches WCAG AA.
 * The ratio and the threshold come from the platform's one contrast rule (creative/images/contrast.ts); this
 * module only names the pairs, so the console's brand kit warns about exactly the pairs the site uses.
 *
 * The brand site never shows an unreadable pair: where one falls short, its stylesheet substitutes a readable
 * colour (public/brand-site/render/html.ts, `palette`). A warning here therefore means "the site will not look
 * like your kit", not "the site is unreadable".
 */
import { AA_NORMAL, contrastRatio } from '../creative/images/contrast.ts';
import type { Brandbook } from './brand.entity.ts';

type Colours = Brandbook['colors'];

export interface ContrastCheck {
  /** What the pair is on the brand site, in words. */
  pair: string;
  foreground: string;
  background: string;
  /** WCAG contrast ratio, two decimals. */
  ratio: number;
  required: number;
  passes: boolean;
}

/** The text/background pairs of the brand site, in the order a visitor meets them. */
const PAIRS: readonly { pair: string; foreground: keyof Colours; background: keyof Colours }[] = [
  { pair: 'Body text on the page background', foreground: 'text', background: 'background' },
  { pair: 'Links and headings (primary) on the page background', foreground: 'primary', background: 'background' },
  { pair: 'Body text on the page-head band (secondary)', foreground: 'text', background: 'secondary' },
];

export function brandContrastChecks(colours: Colours): ContrastCheck[] {
  return PAIRS.map(({ pair, foreground, background }) => {
    const ratio = contrastRatio(colours[foreground], colours[background]);
    return {
      pair,
      foreground: colours[foreground],
      background: colours[background],
      ratio,
      required: AA_NORMAL,
      passes: ratio >= AA_NORMAL,
    };
  });
}
