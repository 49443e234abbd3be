/**
 * Slot fills: for every campaign with a slot on a page, each active variant rendered once as HTML and once
 * as markdown from the same `VariantContent`. Fragments depend only on the variant and the slot's style
 * (heading level, whether the variant's image is shown), so they are rendered once per (campaign, style) and
 * shared by every page that shows the campaign that way.
 *
 * A campaign without an active variant gets no slot at all (see `campaignPlacement` in pages.ts): the page
 * shows a fixed teaser (its name, objective and a link) as ordinary text instead. A made-up fallback variant
 * would send impressions for a variant id analytics has never heard of, and an empty fill would leave the
 * slot blank.
 */
import { sitePaths, type SlotFill } from '../site-model.ts';
import type { SlotStyle, VariantContent } from './content.ts';
import { writeHtmlFragment } from './html.ts';
import { writeMarkdownFragment } from './markdown.ts';
import type { SiteIndex, SnapshotCampaign, SnapshotVariant } from './site-index.ts';
import { safeUrl } from './text.ts';

/** Text compared for "the image says this": case, punctuation and spacing do not count. */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Whether an image's alt text states `copy`. A generated still is described by the words drawn into it (its
 * alt starts with its headline), so an alt that contains the copy means the picture shows it.
 */
export function altStates(alt: string, copy: string): boolean {
  const said = comparable(copy);
  return said.length > 0 && comparable(alt).includes(said);
}

export function variantContent(variant: SnapshotVariant, campaign: SnapshotCampaign): VariantContent {
  const firstImage = variant.imageRefs.map((ref) => ({ ref, src: safeUrl(ref.url) })).find((image) => image.src);
  const alt = firstImage?.ref.alt ?? '';
  return {
    headline: variant.headline,
    body: variant.body,
    cta: {
      text: variant.callToAction || 'Learn more',
      href: safeUrl(variant.ctaUrl) ?? sitePaths.campaign(campaign.slug),
    },
    image: firstImage?.src ? { src: firstImage.src, alt } : null,
    imageCarries: { headline: altStates(alt, variant.headline), body: altStates(alt, variant.body) },
  };
}

export type FillRenderer = (campaignId: string, style: SlotStyle) => SlotFill | null;

/** A memoized fill renderer over the site: `null` for a campaign that has nothing to splice in. */
export function createFillRenderer(index: SiteIndex): FillRenderer {
  const cache = new Map<string, SlotFill | null>();
  return (campaignId, style) => {
    const key = `${style.level}:${style.image ? 'image' : 'text'}:${campaignId}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const campaign = index.campaignById.get(campaignId);
    const variants = index.variantsByCampaign.get(campaignId) ?? [];
    let fill: SlotFill | null = null;
    if (campaign && variants.length > 0) {
      fill = { variants: [], byVariant: {} };
      for (const variant of variants) {
        const content = variantContent(variant, campaign);
        fill.variants.push({ id: variant.id, weight: variant.weight });
        fill.byVariant[variant.id] = {
          html: writeHtmlFragment(content, style),
          markdown: writeMarkdownFragment(content, style.level, index.origin),
        };
      }
    }
    cache.set(key, fill);
    return fill;
  };
}
