/**
 * Slot fills: for every campaign with a slot on a page, each active variant rendered once as HTML and once
 * as markdown from the same `VariantContent`. Fragments depend only on the variant and the heading level, so
 * they are rendered once per (campaign, level) and shared by every page that shows the campaign.
 *
 * A campaign without an active variant gets no slot at all (see `campaignPlacement` in pages.ts): the page
 * shows a fixed teaser (its name, objective and a link) as ordinary text instead. A made-up fallback variant
 * would send impressions for a variant id analytics has never heard of, and an empty fill would leave the
 * slot blank.
 */
import { sitePaths, type SlotFill } from '../site-model.ts';
import type { VariantContent } from './content.ts';
import { writeHtmlFragment } from './html.ts';
import { writeMarkdownFragment } from './markdown.ts';
import type { SiteIndex, SnapshotCampaign, SnapshotVariant } from './site-index.ts';
import { safeUrl } from './text.ts';

export function variantContent(variant: SnapshotVariant, campaign: SnapshotCampaign): VariantContent {
  const firstImage = variant.imageRefs.map((ref) => ({ ref, src: safeUrl(ref.url) })).find((image) => image.src);
  return {
    headline: variant.headline,
    body: variant.body,
    cta: {
      text: variant.callToAction || 'Learn more',
      href: safeUrl(variant.ctaUrl) ?? sitePaths.campaign(campaign.slug),
    },
    image: firstImage?.src ? { src: firstImage.src, alt: firstImage.ref.alt ?? '' } : null,
  };
}

export type FillRenderer = (campaignId: string, level: 2 | 3) => SlotFill | null;

/** A memoized fill renderer over the site: `null` for a campaign that has nothing to splice in. */
export function createFillRenderer(index: SiteIndex): FillRenderer {
  const cache = new Map<string, SlotFill | null>();
  return (campaignId, level) => {
    const key = `${level}:${campaignId}`;
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
          html: writeHtmlFragment(content, level),
          markdown: writeMarkdownFragment(content, level, index.origin),
        };
      }
    }
    cache.set(key, fill);
    return fill;
  };
}
