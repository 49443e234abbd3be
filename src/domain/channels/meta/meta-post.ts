/**
 * A Meta post as Facebook or Instagram will take it: what the text becomes on each (a Page's message, an
 * Instagram caption), which Graph API calls carry it (a feed post, a photo, an album, a video; an image, a
 * carousel, a reel, a story), and the checks that need no network — so that the platform refuses up front what
 * the network would refuse later. The limits are data in `meta-rules.ts`; Instagram's checks are in
 * `meta-instagram-rules.ts`.
 */
import type { PostLink, PostMedia } from '../channel-post.entity.ts';
import type { PostContent, PreviewFacet, ValidationIssue, ValidationResult } from '../channel-adapter.ts';
import { checkInstagram } from './meta-instagram-rules.ts';
import {
  characters,
  hashtagMatches,
  INSTAGRAM_LIMITS,
  isImage,
  isVideo,
  META_POST_OPTIONS,
  META_RULES,
  optionsOf,
  PAGE_LIMITS,
  type MetaAccountKind,
} from './meta-rules.ts';

export { META_POST_OPTIONS, META_RULES } from './meta-rules.ts';

function withLinkInText(text: string, link: PostLink | null): string {
  const body = text.trim();
  if (!link) return body;
  return body ? `${body}\n\n${link.url}` : link.url;
}

/**
 * A Page post's message. A text post carries the attributed link as its link attachment (Facebook shows a
 * preview card); photos and videos cannot have one, so there the link is written into the message, where
 * Facebook makes it clickable.
 */
export function pageMessage(content: Pick<PostContent, 'text' | 'link' | 'media'>): string {
  return content.media.length ? withLinkInText(content.text, content.link) : content.text.trim();
}

/**
 * An Instagram caption: the text and the attributed link as text (Instagram does not make caption links
 * clickable, but a link people copy still leads through the hand-off and is attributed). Stories have no caption.
 */
export function instagramCaption(content: Pick<PostContent, 'text' | 'link' | 'options'>): string {
  if (optionsOf(content).instagramMediaType === 'story') return '';
  return withLinkInText(content.text, content.link);
}

export type PagePlan =
  | { kind: 'feed'; message: string; link: string | null }
  | { kind: 'photo'; message: string; image: PostMedia }
  | { kind: 'album'; message: string; images: PostMedia[] }
  | { kind: 'video'; description: string; video: PostMedia };

/** Which Page call carries the post (content already validated). */
export function planPagePost(content: PostContent): PagePlan {
  const message = pageMessage(content);
  const video = content.media.find(isVideo);
  if (video) return { kind: 'video', description: message, video };
  const images = content.media.filter(isImage);
  if (images.length === 1) return { kind: 'photo', message, image: images[0]! };
  if (images.length > 1) return { kind: 'album', message, images };
  return { kind: 'feed', message, link: content.link?.url ?? null };
}

export type InstagramPlan =
  | { kind: 'image'; caption: string; image: PostMedia }
  | { kind: 'reel'; caption: string; video: PostMedia; shareToFeed: boolean }
  | { kind: 'carousel'; caption: string; items: PostMedia[] }
  | { kind: 'story'; item: PostMedia };

/** Which Instagram containers carry the post (content already validated). */
export function planInstagramPost(content: PostContent): InstagramPlan {
  const options = optionsOf(content);
  const caption = instagramCaption(content);
  const media = content.media.filter((item) => isImage(item) || isVideo(item));
  if (options.instagramMediaType === 'story') return { kind: 'story', item: media[0]! };
  if (media.length > 1) return { kind: 'carousel', caption, items: media };
  const only = media[0]!;
  if (isVideo(only)) return { kind: 'reel', caption, video: only, shareToFeed: options.instagramShareToFeed ?? true };
  return { kind: 'image', caption, image: only };
}

/** Hashtags and the link in the published text, at UTF-8 byte offsets. */
function previewFacets(text: string, link: PostLink | null): PreviewFacet[] {
  const byteOffset = (index: number) => Buffer.byteLength(text.slice(0, index), 'utf8');
  const facets: PreviewFacet[] = [];
  for (const { tag, index: start } of hashtagMatches(text)) {
    facets.push({
      kind: 'tag',
      text: tag,
      target: tag.slice(1),
      byteStart: byteOffset(start),
      byteEnd: byteOffset(start + tag.length),
    });
  }
  const at = link ? text.lastIndexOf(link.url) : -1;
  if (link && at >= 0) {
    facets.push({
      kind: 'link',
      text: link.url,
      target: link.url,
      byteStart: byteOffset(at),
      byteEnd: byteOffset(at + link.url.length),
    });
  }
  return facets.sort((a, b) => a.byteStart - b.byteStart);
}

type Issues = ValidationIssue[];

function checkCommon(content: PostContent, issues: Issues, warnings: Issues): void {
  const parsed = META_POST_OPTIONS.safeParse(content.options ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.push({
        field: issue.path.join('.') || 'options',
        rule: 'invalid_option',
        message: `${issue.path.join('.') || 'An option'}: ${issue.message}`,
      });
    }
  }
  content.media.forEach((media, index) => {
    if (!isImage(media) && !isVideo(media)) {
      issues.push({
        field: `media.${index}`,
        rule: 'unsupported_media',
        message: `${media.mimeType} cannot be posted to Facebook or Instagram: use images or a video`,
      });
    }
    if (isImage(media) && !media.alt.trim()) {
      issues.push({
        field: `media.${index}.alt`,
        rule: 'alt_text_missing',
        message: 'Describe the image in alt text, for people who cannot see it (the platform requires it)',
      });
    } else if (isImage(media) && characters(media.alt) > META_RULES.altTextLimit) {
      issues.push({
        field: `media.${index}.alt`,
        rule: 'alt_text_too_long',
        message: `Alt text is at most ${META_RULES.altTextLimit} characters (the platform's limit), not ${characters(media.alt)}`,
      });
    }
  });
  if (content.langs.length) {
    warnings.push({
      field: 'langs',
      rule: 'languages_not_sent',
      message: 'Facebook and Instagram posts carry no language: the languages given are not sent',
    });
  }
}

function checkPage(content: PostContent, message: string, issues: Issues, warnings: Issues): void {
  const images = content.media.filter(isImage);
  const videos = content.media.filter(isVideo);
  if (characters(message) > PAGE_LIMITS.messageLength) {
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The post is ${characters(message)} characters; a Facebook Page post allows ${PAGE_LIMITS.messageLength}: shorten it by ${characters(message) - PAGE_LIMITS.messageLength}`,
    });
  }
  if (!message && !content.link && content.media.length === 0) {
    issues.push({ field: 'text', rule: 'empty_post', message: 'A post needs text, a link, an image or a video' });
  }
  if (videos.length > 1) {
    issues.push({ field: 'media', rule: 'too_many_videos', message: 'A Page post carries one video, not several' });
  }
  if (videos.length && images.length) {
    issues.push({
      field: 'media',
      rule: 'mixed_media',
      message: 'A Page post carries either images or one video, not both: post them separately',
    });
  }
  if (images.length > META_RULES.maxImages) {
    issues.push({
      field: 'media',
      rule: 'too_many_images',
      message: `A Page post carries at most ${META_RULES.maxImages} images (the platform's limit), not ${images.length}`,
    });
  }
  content.media.forEach((media, index) => {
    if (isImage(media) && media.bytes > PAGE_LIMITS.photoBytes) {
      issues.push({
        field: `media.${index}`,
        rule: 'image_too_large',
        message: `The image is ${media.bytes.toLocaleString('en-US')} bytes; Facebook Page photos are at most ${PAGE_LIMITS.photoBytes.toLocaleString('en-US')}`,
      });
    }
  });
  if (optionsOf(content).instagramMediaType || optionsOf(content).instagramShareToFeed !== undefined) {
    warnings.push({
      field: 'instagramMediaType',
      rule: 'option_ignored',
      message: 'The Instagram options do not apply to a Facebook Page post and are ignored',
    });
  }
}

/** The checks that need no network, for a post to a Page or an Instagram account. */
export function validateMetaPost(content: PostContent, kind: MetaAccountKind): ValidationResult {
  const issues: Issues = [];
  const warnings: Issues = [];
  checkCommon(content, issues, warnings);
  const text = kind === 'instagram' ? instagramCaption(content) : pageMessage(content);
  if (kind === 'instagram') checkInstagram(content, text, issues, warnings);
  else checkPage(content, text, issues, warnings);
  const limit = kind === 'instagram' ? INSTAGRAM_LIMITS.captionLength : PAGE_LIMITS.messageLength;
  return {
    valid: issues.length === 0,
    issues,
    warnings,
    preview: {
      text,
      length: characters(text),
      limit,
      unit: 'characters',
      facets: previewFacets(text, content.link),
    },
  };
}
