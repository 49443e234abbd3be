/**
 * What a post says and shows, from what an agent or a person asked for: text written directly, or made from a
 * campaign variant (its social caption and hashtags, else its headline and body), the variant's attributed
 * link, and images from the platform's own media (still renders, the variant's generated images).
 *
 * The attributed link leads through the brand site's call-to-action hand-off
 * (`/_cp/go?c=<campaign>&v=<variant>&p=<post>`), which records the visit for the post and sends the visitor on
 * — to the variant's own call-to-action URL with the visitor's id, or to the campaign's page — so that
 * conversions attribute to the channel, the campaign and the variant.
 */
import { imageSize } from 'image-size';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { Job } from '../jobs/job.entity.ts';
import { contentTypeOf, type MediaStore } from '../media/media-store.ts';
import type { RenderOutput } from '../renders/render.types.ts';
import { ChannelAccountId, ChannelPostId, IsoDateTime, JobId, VariantId } from '../shared/schemas.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import type { PostContent, PostOptions } from './channel-adapter.ts';
import type { PostLink, PostMedia } from './channel-post.entity.ts';

/** The path of the brand host's hand-off (`public/brand-site/site-model.ts` serves it). */
export const HAND_OFF_PATH = '/_cp/go';

/** What a post is made of, as the tools and pages take it. Every field but the account is optional. */
export const PostFields = z.object({
  accountId: ChannelAccountId,
  variantId: VariantId.optional(),
  text: z.string().max(10_000, 'must be at most 10,000 characters').optional(),
  includeLink: z.boolean().optional(),
  imageJobIds: z.array(JobId).max(10, 'at most 10 images').optional(),
  /** A video render (render_video video or campaign) to post: what TikTok posts, and Instagram as a reel. */
  videoJobId: JobId.optional(),
  useVariantImages: z.boolean().optional(),
  altTexts: z.array(z.string().max(5000)).max(10).optional(),
  langs: z.array(z.string().trim().min(1).max(35)).max(5).optional(),
  /**
   * The network's own fields (a subreddit, title and flair; a privacy level; an Instagram media type), checked
   * by the posts service against the network adapter's `postOptions`. The tools take them flat and gather them
   * here; `null` clears a field on an edit.
   */
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export type PostFieldsInput = z.input<typeof PostFields>;
export type PostOptionsInput = NonNullable<PostFieldsInput['options']>;

/** Changes to a post's content (the account stays). */
export const PostChanges = PostFields.omit({ accountId: true }).extend({
  postId: ChannelPostId,
  /** The post's `version` as last read: refused when someone changed it since. */
  expectedVersion: z.number().int().min(1).optional(),
});

export const ScheduleTime = IsoDateTime;

/** `shop.example.com/spring-sale…`: a URL as apps show it, host and a little of the path. */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname === '/' ? '' : parsed.pathname.replace(/\/+$/, '');
  const host = parsed.host.replace(/^www\./, '');
  return path.length > 32 ? `${host}${path.slice(0, 31)}…` : `${host}${path}`;
}

/** The hand-off URL and the text shown for it, for a post of `variant` at `siteOrigin`. */
export function attributedLink(input: {
  siteOrigin: string;
  campaign: Pick<Campaign, 'id' | 'slug'>;
  variant: Pick<Variant, 'id' | 'ctaUrl'>;
  postId: string;
}): PostLink {
  const url = new URL(HAND_OFF_PATH, input.siteOrigin);
  url.searchParams.set('c', input.campaign.id);
  url.searchParams.set('v', input.variant.id);
  url.searchParams.set('p', input.postId);
  const offSite = input.variant.ctaUrl && /^https?:\/\//i.test(input.variant.ctaUrl) ? input.variant.ctaUrl : null;
  const destination = offSite ?? `${input.siteOrigin}/campaigns/${input.campaign.slug}`;
  return { url: url.toString(), display: displayUrl(destination) };
}

/** A variant's text for a social post: its caption and hashtags, else its headline and body. */
export function variantText(variant: Pick<Variant, 'headline' | 'body' | 'channelFields'>): string {
  const social = variant.channelFields?.social;
  const base = social?.caption?.trim() || `${variant.headline.trim()}\n\n${variant.body.trim()}`;
  const tags = (social?.hashtags ?? [])
    .map((tag) => tag.trim().replace(/^#+/, ''))
    .filter((tag) => tag && !base.toLowerCase().includes(`#${tag.toLowerCase()}`));
  return tags.length ? `${base}\n\n${tags.map((tag) => `#${tag}`).join(' ')}` : base;
}

export interface ResolvedContent {
  content: PostContent;
  campaignId: string | null;
  variantId: string | null;
}

export interface ContentDeps {
  media: Pick<MediaStore, 'get'>;
  /** The brand site's origin for the scope's workspace (`https://acme.sites.example.com`). */
  siteOrigin(scope: WorkspaceScope): Promise<string>;
}

interface ContentRequest {
  /** The network's own fields, already checked against its adapter's `postOptions`. */
  options?: PostOptions;
  variantId?: string;
  text?: string;
  includeLink?: boolean;
  imageJobIds?: string[];
  videoJobId?: string;
  useVariantImages?: boolean;
  altTexts?: string[];
  langs?: string[];
}

/** A still render of the workspace, as post media. */
async function renderedImage(scope: WorkspaceScope, jobId: string, field: string): Promise<Omit<PostMedia, 'alt'>> {
  const job = await scope.em.findOne(Job, { id: jobId });
  if (!job || job.kind !== 'render') throw new NotFoundError('Render job', jobId);
  const output = (job.result as { output?: RenderOutput } | null)?.output;
  if (job.status !== 'succeeded' || !output) {
    throw new ValidationError(`The render ${jobId} has not finished (${job.status}); wait for it, then use it`, {
      issues: [{ field, message: 'the render is not complete' }],
    });
  }
  return {
    key: output.key,
    mimeType: output.mimeType,
    bytes: output.bytes,
    width: output.width,
    height: output.height,
    durationSeconds: output.durationSeconds,
    sourceJobId: jobId,
  };
}

/** An image of the media store (a variant's generated image), measured from its bytes. */
async function storedImage(deps: ContentDeps, key: string): Promise<Omit<PostMedia, 'alt'> | null> {
  const stored = await deps.media.get(key);
  if (!stored) return null;
  const size = imageSize(new Uint8Array(stored.bytes));
  return {
    key,
    mimeType: stored.contentType || contentTypeOf(key),
    bytes: stored.bytes.length,
    width: size.width,
    height: size.height,
    durationSeconds: null,
    sourceJobId: null,
  };
}

/**
 * The content of a post from a request: the variant's (when one is named) with the request's overrides, its
 * media resolved and measured, its link made. `postId` is the post's id (the link names it).
 */
export async function resolveContent(
  deps: ContentDeps,
  scope: WorkspaceScope,
  postId: string,
  request: ContentRequest,
  previous?: { content: PostContent; variantId: string | null },
): Promise<ResolvedContent> {
  const variantId = request.variantId ?? previous?.variantId ?? null;
  let variant: Variant | null = null;
  let campaign: Campaign | null = null;
  if (variantId) {
    variant = await scope.em.findOne(Variant, { id: variantId, deletedAt: null });
    if (!variant) throw new NotFoundError('Variant', variantId);
    campaign = await scope.em.findOne(Campaign, { id: variant.campaign.id, deletedAt: null });
    if (!campaign) throw new NotFoundError('Variant', variantId);
  }
  // A (re)named variant sets the text unless the request writes its own; otherwise the text stays.
  const text =
    request.text ??
    (request.variantId || !previous ? (variant ? variantText(variant) : undefined) : previous.content.text);
  if (text === undefined) {
    throw new ValidationError('Write the post (text), or make it from a campaign variant (variantId)', {
      issues: [{ field: 'text', message: 'is required for a post that is not made from a variant' }],
    });
  }

  let link: PostLink | null = previous && !request.variantId ? previous.content.link : null;
  const includeLink = request.includeLink ?? (variant ? (previous ? previous.content.link !== null : true) : false);
  if (includeLink && !variant) {
    throw new ValidationError('Only a post made from a campaign variant carries an attributed link', {
      issues: [{ field: 'includeLink', message: 'needs variantId' }],
    });
  }
  if (variant && campaign) {
    link = includeLink ? attributedLink({ siteOrigin: await deps.siteOrigin(scope), campaign, variant, postId }) : null;
  }

  let media: PostMedia[];
  const wantsNewMedia =
    request.imageJobIds !== undefined ||
    request.videoJobId !== undefined ||
    request.useVariantImages !== undefined ||
    request.variantId !== undefined ||
    !previous;
  if (!wantsNewMedia) {
    media = previous!.content.media.map((item, index) => ({ ...item, alt: request.altTexts?.[index] ?? item.alt }));
  } else {
    const items: { media: Omit<PostMedia, 'alt'>; alt: string }[] = [];
    for (const [index, jobId] of (request.imageJobIds ?? []).entries()) {
      const image = await renderedImage(scope, jobId, `imageJobIds.${index}`);
      items.push({ media: image, alt: variant ? `Campaign image: ${variant.headline}` : '' });
    }
    if (request.videoJobId) {
      const video = await renderedImage(scope, request.videoJobId, 'videoJobId');
      if (!video.mimeType.startsWith('video/')) {
        throw new ValidationError(
          `The render ${request.videoJobId} is a still image, not a video: pass it in imageJobIds`,
          {
            issues: [{ field: 'videoJobId', message: 'is not a video' }],
          },
        );
      }
      items.push({ media: video, alt: variant ? `Campaign video: ${variant.headline}` : '' });
    }
    const useVariantImages =
      request.useVariantImages ?? (variant !== null && !(request.imageJobIds ?? []).length && !request.videoJobId);
    if (useVariantImages) {
      if (!variant) {
        throw new ValidationError('useVariantImages needs variantId', {
          issues: [{ field: 'useVariantImages', message: 'needs variantId' }],
        });
      }
      for (const ref of variant.imageRefs) {
        if (!ref.mediaId) continue; // an image hosted elsewhere is not the platform's to upload
        const image = await storedImage(deps, ref.mediaId);
        if (image) items.push({ media: image, alt: ref.alt?.trim() || variant.headline });
      }
    }
    media = items.map((item, index) => ({ ...item.media, alt: request.altTexts?.[index] ?? item.alt }));
  }
  if (request.altTexts && request.altTexts.length > media.length) {
    throw new ValidationError(`altTexts has ${request.altTexts.length} entries for ${media.length} images`, {
      issues: [{ field: 'altTexts', message: 'one alt text per image, in order' }],
    });
  }

  return {
    content: {
      text,
      link,
      media,
      langs: request.langs ?? previous?.content.langs ?? [],
      options: request.options ?? previous?.content.options ?? {},
    },
    campaignId: campaign?.id ?? null,
    variantId: variant?.id ?? null,
  };
}

/** The content stored on a post row. */
export function contentOf(post: {
  text: string;
  link?: PostLink | null;
  media?: PostMedia[];
  langs?: string[];
  options?: PostOptions;
}): PostContent {
  return {
    text: post.text,
    link: post.link ?? null,
    media: post.media ?? [],
    langs: post.langs ?? [],
    options: post.options ?? {},
  };
}
