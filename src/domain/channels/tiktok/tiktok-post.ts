/**
 * A TikTok post as the Content Posting API takes it: one video and a caption, and the fields TikTok asks the
 * person to choose themselves (who can see it, whether others may comment, duet or stitch, whether it is
 * commercial content). The checks here are TikTok's documented restrictions (Content Posting API reference,
 * media transfer guide, content sharing guidelines) and need no network; the ones that depend on the creator's
 * own settings (`creator_info/query`) are `validateWithCreator`.
 *
 * Photo posts (`/v2/post/publish/content/init/`, PULL_FROM_URL only, 2 to 35 images) are out of scope: the
 * platform posts videos to TikTok, and an image is refused up front with a message saying so.
 */
import { z } from 'zod';
import type { NetworkRules, PostContent, PreviewFacet, ValidationIssue, ValidationResult } from '../channel-adapter.ts';

/** The caption limit: 2,200 UTF-16 code units ("runes" in TikTok's reference), the attributed link included. */
export const CAPTION_LIMIT = 2200;
/** TikTok takes videos of up to 4 GB. */
export const MAX_VIDEO_BYTES = 4 * 1024 * 1024 * 1024;
/** Each side of the picture between 360 and 4,096 pixels (the media transfer guide's video restrictions). */
export const MIN_VIDEO_SIDE = 360;
export const MAX_VIDEO_SIDE = 4096;
/** MP4 (recommended), MOV and WebM. */
export const VIDEO_TYPES: Readonly<Record<string, string>> = {
  'video/mp4': 'MP4',
  'video/quicktime': 'MOV',
  'video/webm': 'WebM',
};

export const TIKTOK_RULES: NetworkRules = {
  textLimit: CAPTION_LIMIT,
  textUnit: 'characters',
  textBytesLimit: null,
  maxImages: 0,
  maxImageBytes: 0,
  maxVideos: 1,
  // The Content Posting API carries no alt text and no language for a video.
  altTextLimit: 0,
  maxLangs: 0,
  editPublished: false,
  deletePublished: false,
  metrics: ['views', 'likes', 'replies', 'reposts'],
  guidance:
    'A TikTok post is one video (videoJobId) with a caption. The person chooses the privacy level (privacyLevel: only the options validate reports for the creator); until the operator’s app passes TikTok’s audit, only SELF_ONLY is allowed. asDraft sends the video to the creator’s TikTok inbox instead. A video shows its counts once TikTok’s moderation has made it public. TikTok’s API cannot delete a published video.',
};

export const PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;
export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

const PRIVACY_NAMES: Record<PrivacyLevel, string> = {
  PUBLIC_TO_EVERYONE: 'everyone',
  MUTUAL_FOLLOW_FRIENDS: 'friends (mutual followers)',
  FOLLOWER_OF_CREATOR: 'followers',
  SELF_ONLY: 'only the creator',
};

/** The post's TikTok fields, as the tools take them (flat, all optional; the framework stores them as given). */
export const TIKTOK_POST_OPTIONS = z.object({
  privacyLevel: z
    .enum(PRIVACY_LEVELS)
    .optional()
    .describe(
      'Who can watch the video: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR or SELF_ONLY. TikTok requires the person to choose it (there is no default): ask them, offering only the options `validate` reports for the account. Not used with asDraft.',
    ),
  disableComment: z
    .boolean()
    .optional()
    .describe(
      'false lets people comment. Omitted, comments are off: TikTok asks that the person turn interactions on themselves. Cannot be false where the creator turned comments off in the TikTok app.',
    ),
  disableDuet: z
    .boolean()
    .optional()
    .describe('false lets people duet the video (omitted: off). Cannot be false where the creator turned duets off.'),
  disableStitch: z
    .boolean()
    .optional()
    .describe(
      'false lets people stitch the video (omitted: off). Cannot be false where the creator turned stitches off.',
    ),
  asDraft: z
    .boolean()
    .optional()
    .describe(
      "true sends the video to the creator's TikTok inbox instead of posting it: they finish the post (caption, privacy, settings) in the TikTok app. The caption and the other options are not sent.",
    ),
  brandContent: z
    .boolean()
    .optional()
    .describe(
      'true discloses a paid partnership (branded content promoting a third party). Branded content cannot be private (SELF_ONLY).',
    ),
  brandOrganic: z
    .boolean()
    .optional()
    .describe("true discloses that the video promotes the creator's own business (TikTok labels it promotional)."),
  coverTimestampMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('The frame used as the cover, in milliseconds from the start of the video (TikTok: the first frame).'),
});
export type TikTokPostOptions = z.infer<typeof TIKTOK_POST_OPTIONS>;

/**
 * The options of a post, and the problems with them (a stored option the schema no longer takes). A field that
 * does not parse is left out and named in an `invalid_option` issue; the others are kept.
 */
export function parseOptions(content: Pick<PostContent, 'options'>): {
  options: TikTokPostOptions;
  issues: ValidationIssue[];
} {
  const options: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  const shape = TIKTOK_POST_OPTIONS.shape as Record<string, z.ZodType>;
  for (const [name, value] of Object.entries(content.options ?? {})) {
    if (value === undefined) continue;
    const parsed = shape[name]?.safeParse(value);
    if (parsed?.success) options[name] = parsed.data;
    else {
      issues.push({
        field: `options.${name}`,
        rule: 'invalid_option',
        message: parsed
          ? `TikTok option ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`
          : `${name} is not a TikTok option (the options are ${Object.keys(shape).join(', ')})`,
      });
    }
  }
  return { options: options as TikTokPostOptions, issues };
}

/**
 * The caption as published: what was written, then the attributed link on a line of its own. TikTok shows a
 * URL in a caption as plain text (it is not tappable) but keeps it, so the link carries the post's attribution
 * the same way on every network; the full URL is written, as there is no link annotation to hide it behind.
 */
export function composeCaption(content: Pick<PostContent, 'text' | 'link'>): string {
  const body = content.text.trim();
  if (!content.link) return body;
  return body ? `${body}\n\n${content.link.url}` : content.link.url;
}

/** Hashtags and mentions TikTok makes tappable, at UTF-16 offsets (the unit TikTok counts captions in). */
function captionFacets(caption: string): PreviewFacet[] {
  const facets: PreviewFacet[] = [];
  for (const match of caption.matchAll(/(^|\s)([#@])([\p{L}\p{N}_.]+)/gu)) {
    const start = match.index + match[1]!.length;
    const text = `${match[2]}${match[3]}`;
    facets.push({
      kind: match[2] === '#' ? 'tag' : 'mention',
      text,
      // A hashtag leads to its tag; a mention is resolved by TikTok when it publishes, not before.
      target: match[2] === '#' ? match[3]! : null,
      byteStart: start,
      byteEnd: start + text.length,
    });
  }
  return facets;
}

/** The checks that need no network: the caption, the one video, and the choices TikTok requires. */
export function validateTikTokPost(content: PostContent, app: { audited: boolean }): ValidationResult {
  const caption = composeCaption(content);
  const { options, issues } = parseOptions(content);
  const warnings: ValidationIssue[] = [];

  if (caption.length > CAPTION_LIMIT) {
    const linkNote = content.link ? ` (with the ${content.link.url.length + 2} of the link)` : '';
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The caption is ${caption.length} characters${linkNote}; TikTok allows ${CAPTION_LIMIT}: shorten it by ${caption.length - CAPTION_LIMIT}`,
    });
  }
  issues.push(...mediaIssues(content));
  // An invalid privacy level is already named; it is not missing as well.
  const named = new Set(issues.map((issue) => issue.field));
  issues.push(...choiceIssues(options, app).filter((issue) => !named.has(issue.field)));

  if (content.link) {
    warnings.push({
      field: 'text',
      rule: 'link_not_clickable',
      message:
        'TikTok shows a link in a caption as plain text: people cannot tap it. It is kept for attribution; mention the destination in the video or the creator’s bio if it matters.',
    });
  }
  if (content.langs.length > 0) {
    warnings.push({
      field: 'langs',
      rule: 'languages_ignored',
      message: 'TikTok takes no language for a video: the languages are not sent',
    });
  }
  if (options.asDraft) {
    const ignored = (
      ['privacyLevel', 'disableComment', 'disableDuet', 'disableStitch', 'brandContent', 'brandOrganic'] as const
    ).filter((name) => options[name] !== undefined);
    if (ignored.length > 0 || caption) {
      warnings.push({
        field: 'options.asDraft',
        rule: 'draft_settings_in_app',
        message: `A draft goes to the creator's TikTok inbox with the video only: they write the caption and choose ${ignored.length ? ignored.join(', ') : 'the settings'} in the TikTok app`,
      });
    }
  }

  return {
    valid: issues.length === 0,
    issues,
    warnings,
    preview: {
      text: caption,
      length: caption.length,
      limit: CAPTION_LIMIT,
      unit: 'characters',
      facets: captionFacets(caption),
    },
  };
}

function mediaIssues(content: PostContent): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const videos = content.media.filter((media) => media.mimeType.startsWith('video/'));
  content.media.forEach((media, index) => {
    if (media.mimeType.startsWith('image/')) {
      issues.push({
        field: `media.${index}`,
        rule: 'images_not_supported',
        message:
          'The platform posts videos to TikTok, not photos (TikTok photo posts are not supported): attach one video, e.g. render_video of the variant',
      });
    } else if (!media.mimeType.startsWith('video/')) {
      issues.push({
        field: `media.${index}`,
        rule: 'unsupported_media',
        message: `${media.mimeType} cannot be posted to TikTok: attach one video (MP4, MOV or WebM)`,
      });
    }
  });
  if (content.media.length === 0) {
    issues.push({ field: 'media', rule: 'video_required', message: 'A TikTok post is a video: attach one' });
  }
  if (videos.length > 1) {
    issues.push({
      field: 'media',
      rule: 'too_many_videos',
      message: `A TikTok post carries one video, not ${videos.length}: post them separately`,
    });
  }
  content.media.forEach((media, index) => {
    if (!media.mimeType.startsWith('video/')) return;
    const field = `media.${index}`;
    if (!VIDEO_TYPES[media.mimeType]) {
      issues.push({
        field,
        rule: 'unsupported_video_format',
        message: `TikTok takes MP4, MOV or WebM videos, not ${media.mimeType}: render the video as MP4`,
      });
    }
    if (media.bytes > MAX_VIDEO_BYTES) {
      issues.push({
        field,
        rule: 'video_too_large',
        message: `The video is ${media.bytes.toLocaleString('en-US')} bytes; TikTok takes at most 4 GB`,
      });
    }
    const sides = [media.width, media.height];
    if (sides.every((side) => side > 0) && sides.some((side) => side < MIN_VIDEO_SIDE || side > MAX_VIDEO_SIDE)) {
      issues.push({
        field,
        rule: 'video_size_out_of_range',
        message: `The video is ${media.width}×${media.height} pixels; TikTok takes ${MIN_VIDEO_SIDE} to ${MAX_VIDEO_SIDE} pixels on each side (1080×1920 is its usual portrait size)`,
      });
    }
  });
  return issues;
}

/** TikTok's rules for the person's own choices (privacy, commercial content) and the operator's app status. */
function choiceIssues(options: TikTokPostOptions, app: { audited: boolean }): ValidationIssue[] {
  if (options.asDraft) return [];
  const issues: ValidationIssue[] = [];
  const privacy = options.privacyLevel;
  if (!privacy) {
    issues.push({
      field: 'options.privacyLevel',
      rule: 'privacy_level_missing',
      message:
        'TikTok requires the person to choose who can watch the video (there is no default): ask them and set privacyLevel to one of the options `validate` lists for the account',
    });
  } else if (!app.audited && privacy !== 'SELF_ONLY') {
    issues.push({
      field: 'options.privacyLevel',
      rule: 'app_not_audited',
      message: `The platform's TikTok app has not passed TikTok's audit yet, so TikTok only accepts posts that are private to the creator (SELF_ONLY), not visible to ${PRIVACY_NAMES[privacy]}. Post as SELF_ONLY for now (the creator can change it in the TikTok app), or ask the operator to have the app audited by TikTok.`,
    });
  }
  if (options.brandContent && privacy === 'SELF_ONLY') {
    issues.push({
      field: 'options.brandContent',
      rule: 'branded_content_private',
      message: 'Branded content (a paid partnership) cannot be private on TikTok: choose another privacy level',
    });
  }
  return issues;
}

/** What `creator_info/query` says about the account, as the adapter reads it. */
export interface CreatorInfo {
  username: string;
  nickname: string;
  privacyOptions: PrivacyLevel[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxDurationSec: number;
}

/** The checks against the creator's current settings (TikTok asks apps to apply them before every post). */
export function validateWithCreator(
  content: PostContent,
  offline: ValidationResult,
  creator: CreatorInfo,
): ValidationResult {
  const { options } = parseOptions(content);
  // The choice TikTok asks for is among this account's options: say which they are.
  const issues = offline.issues.map((issue) =>
    issue.rule === 'privacy_level_missing'
      ? { ...issue, message: `${issue.message} (@${creator.username}: ${creator.privacyOptions.join(', ')})` }
      : issue,
  );
  const warnings = [...offline.warnings];
  const privacy = options.privacyLevel;
  if (!options.asDraft && privacy && !creator.privacyOptions.includes(privacy)) {
    issues.push({
      field: 'options.privacyLevel',
      rule: 'privacy_level_unavailable',
      message: `@${creator.username} cannot post to ${PRIVACY_NAMES[privacy]} (${privacy}); the account allows ${creator.privacyOptions.join(', ')}`,
    });
  }
  const interactions = [
    ['disableComment', creator.commentDisabled, 'comments', 'comments_disabled_by_creator'],
    ['disableDuet', creator.duetDisabled, 'duets', 'duets_disabled_by_creator'],
    ['disableStitch', creator.stitchDisabled, 'stitches', 'stitches_disabled_by_creator'],
  ] as const;
  for (const [name, disabled, what, rule] of options.asDraft ? [] : interactions) {
    if (disabled && options[name] === false) {
      issues.push({
        field: `options.${name}`,
        rule,
        message: `@${creator.username} turned ${what} off in the TikTok app, so they cannot be allowed on this post: set ${name} to true or leave it out`,
      });
    }
  }
  const video = content.media.find((media) => media.mimeType.startsWith('video/'));
  if (video && video.durationSeconds === null) {
    warnings.push({
      field: 'media',
      rule: 'video_duration_unchecked',
      message: `The video's length is not known; @${creator.username} can post videos of up to ${creator.maxDurationSec} seconds`,
    });
  } else if (video && video.durationSeconds! > creator.maxDurationSec) {
    issues.push({
      field: 'media',
      rule: 'video_too_long',
      message: `The video is ${Math.ceil(video.durationSeconds!)} seconds; @${creator.username} can post videos of up to ${creator.maxDurationSec} seconds: shorten it`,
    });
  }
  return { ...offline, valid: issues.length === 0, issues, warnings };
}

/**
 * How a file is cut for FILE_UPLOAD, by TikTok's chunk rules: a file under 5 MB is one chunk; otherwise chunks
 * of `preferred` bytes (5 to 64 MB), `floor(size / chunk)` of them, the last taking the trailing bytes (it may
 * be up to 128 MB). Megabytes are read as MiB for the lower bound and as 10^6 bytes for the upper, so the plan
 * holds whichever TikTok means.
 */
export function chunkPlan(size: number, preferred = 10 * 1024 * 1024): { chunkSize: number; totalChunks: number } {
  const min = 5 * 1024 * 1024;
  const max = 64_000_000;
  if (size < min) return { chunkSize: size, totalChunks: 1 };
  const chunkSize = Math.min(Math.max(preferred, min), max, size);
  return { chunkSize, totalChunks: Math.floor(size / chunkSize) };
}

/** The byte range of chunk `index` (0-based), inclusive, as `Content-Range` names it. */
export function chunkRange(
  index: number,
  plan: { chunkSize: number; totalChunks: number },
  size: number,
): { first: number; last: number } {
  const first = index * plan.chunkSize;
  const last = index === plan.totalChunks - 1 ? size - 1 : first + plan.chunkSize - 1;
  return { first, last };
}
