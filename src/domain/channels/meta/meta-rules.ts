/**
 * The limits and options of Meta posts, as data (tools, pages and docs describe them; `meta-post.ts` and
 * `meta-instagram-rules.ts` enforce them).
 *
 * `META_RULES` describes the most any Meta account takes (a Page's 63,206 characters, Instagram's 8 MB
 * images); the tighter limits of each kind (Instagram's 2,200-character captions, a Page's 4 MB photos) are
 * enforced per account kind and named in the validation messages. Sources: Meta's Graph API reference (Page
 * feed/photos/videos, IG User media, IG Container) and the Content Publishing guide. Where the platform is
 * stricter than Meta it says so: alt text is required for every image (accessibility), and Meta documents no
 * alt-text limit, so the platform keeps it to 1,000 characters.
 */
import { z } from 'zod';
import type { AccountContext, NetworkRules, PostContent } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';

export type MetaAccountKind = 'facebook_page' | 'instagram';

/** Instagram's own limits, tighter than a Page's (IG User media reference, Content Publishing guide). */
export const INSTAGRAM_LIMITS = {
  captionLength: 2_200,
  hashtags: 30,
  carouselItems: 10,
  imageBytes: 8 * 1024 * 1024,
  /** Feed images must be between 4:5 (portrait) and 1.91:1 (landscape). */
  minAspectRatio: 4 / 5,
  maxAspectRatio: 1.91,
  reelSeconds: { min: 3, max: 15 * 60 },
  storyVideoSeconds: 60,
  carouselVideoSeconds: 60,
  postsPer24h: 50,
} as const;

export const PAGE_LIMITS = {
  messageLength: 63_206,
  /** Page photos are at most 4 MB (Page Photos reference). */
  photoBytes: 4 * 1024 * 1024,
} as const;

export const META_RULES: NetworkRules = {
  textLimit: PAGE_LIMITS.messageLength,
  textUnit: 'characters',
  textBytesLimit: null,
  maxImages: INSTAGRAM_LIMITS.carouselItems,
  maxImageBytes: INSTAGRAM_LIMITS.imageBytes,
  maxVideos: 1,
  altTextLimit: 1_000,
  // Neither a Page post nor an Instagram caption carries a language: languages given are not sent.
  maxLangs: 0,
  // Editing is not offered: Instagram captions cannot be edited through the API.
  editPublished: false,
  metrics: ['impressions', 'reach', 'views', 'likes', 'reposts', 'replies', 'bookmarks'],
  postsPer24h: { instagram: INSTAGRAM_LIMITS.postsPer24h },
  guidance:
    'An account is a Facebook Page or an Instagram professional account (query_meta accounts says which). A Page post is text with the link as a card, photos (up to 10) or one video (videoJobId). Instagram needs an image, a carousel of 2–10, or one video (a reel): a post without media is refused; captions carry the link as plain text; 50 API posts per account in 24 hours (the 51st waits until one frees up).',
};

export const INSTAGRAM_MEDIA_TYPES = ['feed', 'reels', 'story'] as const;
export type InstagramMediaType = (typeof INSTAGRAM_MEDIA_TYPES)[number];

/** The Meta fields of a post, flat (the tools take them as top-level arguments). */
export const META_POST_OPTIONS = z.object({
  instagramMediaType: z
    .enum(INSTAGRAM_MEDIA_TYPES)
    .optional()
    .describe(
      'Instagram accounts only: "feed" (default) posts an image, a carousel of 2–10 images/videos, or a single video as a reel; "reels" posts one video as a reel; "story" posts one image or video as a 24-hour story (stories carry no caption).',
    ),
  instagramShareToFeed: z
    .boolean()
    .optional()
    .describe(
      'Instagram reels only: also show the reel in the profile grid and feed (default true); false keeps it in the Reels tab.',
    ),
});
export type MetaPostOptions = z.infer<typeof META_POST_OPTIONS>;

export function accountKindOf(account: Pick<AccountContext, 'kind'>): MetaAccountKind {
  return account.kind === 'instagram' ? 'instagram' : 'facebook_page';
}

export const isImage = (media: PostMedia) => media.mimeType.startsWith('image/');
export const isVideo = (media: PostMedia) => media.mimeType.startsWith('video/');
export const characters = (text: string) => [...text].length;

/** The options a post carries, read leniently (an unreadable one is reported by validation, not thrown). */
export function optionsOf(content: Pick<PostContent, 'options'>): MetaPostOptions {
  const parsed = META_POST_OPTIONS.safeParse(content.options ?? {});
  return parsed.success ? parsed.data : {};
}

const HASHTAG = /(^|\s)(#[\p{L}\p{N}_]+)/gu;

export function hashtagsOf(text: string): string[] {
  return [...text.matchAll(HASHTAG)].map((match) => match[2]!);
}

/** Each hashtag with where it starts in the text. */
export function hashtagMatches(text: string): { tag: string; index: number }[] {
  return [...text.matchAll(HASHTAG)].map((match) => ({ tag: match[2]!, index: match.index + match[1]!.length }));
}
