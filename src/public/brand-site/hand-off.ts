/**
 * The call-to-action hand-off: when a visitor follows a variant's call to action to the advertiser's own site,
 * the link goes through `GET /_cp/go?c=<campaign>&v=<variant>` on the brand host, which redirects to the
 * variant's `ctaUrl` with the visitor's anonymous id appended as `cp_vid` — the way a click id travels. The
 * advertiser's servers keep it with the cart or sign-up and send it back as `sessionId` to
 * `POST /api/v1/conversions`, so a conversion that happens off the brand site is attributed to the variant
 * this visitor saw. The session cookie itself stays `HttpOnly` on the brand host.
 *
 * Only a variant's published `ctaUrl` can be a destination (never a URL from the request), so the hand-off
 * is not an open redirect; the beacon script routes only off-site calls to action through it.
 */
import { safeUrl } from './render/text.ts';
import { sitePaths, type PublishedSite } from './site-model.ts';

/** The query parameter that carries the visitor's id to the advertiser's site. */
export const HAND_OFF_PARAMETER = 'cp_vid';

/** Where the hand-off for `campaignId`/`variantId` leads (with `sessionId` when there is one), or null. */
export function handOffUrl(
  site: PublishedSite,
  campaignId: string,
  variantId: string,
  sessionId: string | null,
): string | null {
  const campaign = site.snapshot.campaigns.find((candidate) => candidate.id === campaignId);
  const variant = campaign?.variants.find((candidate) => candidate.id === variantId);
  const target = safeUrl(variant?.ctaUrl);
  if (!target || !/^https?:\/\//i.test(target)) return null;
  const url = new URL(target);
  if (sessionId) url.searchParams.set(HAND_OFF_PARAMETER, sessionId);
  return url.toString();
}

/**
 * Where a social post's attributed link leads (`/_cp/go?c=&v=&p=<post>`): the variant's off-site call to action
 * with the visitor's id, as above, or else the campaign's own page on this site. Null when the site does not
 * show that campaign and variant (unpublished since the post went out).
 */
export function channelHandOffTarget(
  site: PublishedSite,
  campaignId: string,
  variantId: string,
  sessionId: string,
): string | null {
  const campaign = site.snapshot.campaigns.find((candidate) => candidate.id === campaignId);
  if (!campaign?.variants.some((variant) => variant.id === variantId)) return null;
  return handOffUrl(site, campaignId, variantId, sessionId) ?? sitePaths.campaign(campaign.slug);
}
