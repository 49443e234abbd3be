/**
 * A Reddit post as the network will take it: a subreddit, a title, and one of three kinds — a text post
 * (`self`: markdown, with the attributed link appended), a link post (`link`: the attributed link is the post)
 * or an image post (`image`: one uploaded image) — with its flair and NSFW/spoiler marks. The checks here need
 * no network: Reddit's own limits (a title of at most 300 characters, a text of at most 40,000) and what the
 * platform sends. The subreddit's rules are checked live (`reddit-subreddit.ts`).
 *
 * Reddit has no per-post languages and image posts carry no body text, link or alt text: what a kind does not
 * carry is said in a warning, not dropped silently.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { NetworkRules, PostContent, PreviewFacet, ValidationIssue, ValidationResult } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';

/** Reddit's limits (`POST /api/submit`: `TOO_LONG` beyond them). */
export const TITLE_LIMIT = 300;
export const SELF_TEXT_LIMIT = 40_000;
export const FLAIR_ID_LIMIT = 36;
export const FLAIR_TEXT_LIMIT = 64;
/** The image types Reddit hosts (i.redd.it); anything else is refused by the upload lease. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const;

export const REDDIT_RULES: NetworkRules = {
  textLimit: SELF_TEXT_LIMIT,
  textUnit: 'characters',
  textBytesLimit: null,
  // An image post is one image; galleries are another endpoint the platform does not use yet.
  maxImages: 1,
  maxImageBytes: 20_000_000,
  maxVideos: 0,
  // Image posts made through the API carry no alt text.
  altTextLimit: 0,
  // Reddit has no per-post languages.
  maxLangs: 0,
  // A text post's body can be edited on Reddit, its title never: the platform deletes and posts again instead.
  editPublished: false,
  // Reddit fuzzes up- and downvotes, so only their difference (score) and the comment count mean anything.
  metrics: ['score', 'replies'],
  guidance:
    'Every post needs subreddit and title. Validate against the subreddit first: it reads the subreddit’s rules (required flair and the flairs to choose, allowed post kinds, title and body rules, banned domains) so the post is not removed. A removal by moderators shows on the post (removedBy); the upvote ratio is in its metrics.',
};

export const POST_KINDS = ['self', 'link', 'image'] as const;
export type RedditPostKind = (typeof POST_KINDS)[number];

/** The fields of a Reddit post beyond text, link and image (`ChannelAdapter.postOptions`). */
export const REDDIT_POST_OPTIONS = z.object({
  subreddit: z
    .string()
    .max(100)
    .optional()
    .describe('The subreddit to post to, by its name without r/ (e.g. "smallbusiness"). Required to publish.'),
  title: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'The post title, at most 300 characters. Required: every Reddit post has one, and it cannot be edited after publishing.',
    ),
  flairId: z
    .string()
    .max(200)
    .optional()
    .describe(
      "The id of one of the subreddit's post flairs. Many subreddits require a flair: validating the post lists the ones to choose from.",
    ),
  flairText: z
    .string()
    .max(200)
    .optional()
    .describe('Your own text for the chosen flair, where the subreddit lets posters edit it (at most 64 characters).'),
  postKind: z
    .enum(POST_KINDS)
    .optional()
    .describe(
      'self: a text post (the text, then the attributed link); link: a link post to the attributed link (the text is not published); image: one image (text and link are not published). Default: image when the post has an image, link when it has a link and no text, otherwise self.',
    ),
  nsfw: z.boolean().optional().describe('Mark the post NSFW (not safe for work).'),
  spoiler: z.boolean().optional().describe('Mark the post as a spoiler (blurred until clicked).'),
});
export type RedditPostOptions = z.infer<typeof REDDIT_POST_OPTIONS>;

/** What `POST /api/submit` is sent, read from the post's content and options. */
export interface ComposedRedditPost {
  kind: RedditPostKind;
  /** The subreddit's name without `r/`; empty when none was given. */
  subreddit: string;
  title: string;
  /** The markdown of a text post, with the attributed link; empty for link and image posts. */
  body: string;
  /** Where a link post leads (the attributed link); null for other kinds. */
  url: string | null;
  image: PostMedia | null;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
}

/** Characters as Reddit counts them (code points, as Python's `len`). */
export const characters = (value: string) => [...value].length;

const optionString = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** `r/Name`, `/r/Name/` and ` Name ` all name the subreddit `Name`. */
export function subredditName(value: unknown): string {
  return (optionString(value) ?? '').replace(/^\/?r\//i, '').replace(/\/+$/, '');
}

/** Reddit's subreddit names: 3–21 letters, digits and underscores, not starting with an underscore. */
const SUBREDDIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_]{2,20}$/;

/** The kind a post is published as: the one asked for, else the one its content suggests. */
export function kindOf(content: PostContent): RedditPostKind {
  const asked = content.options.postKind;
  if (typeof asked === 'string' && (POST_KINDS as readonly string[]).includes(asked)) return asked as RedditPostKind;
  if (content.media.some((media) => media.mimeType.startsWith('image/'))) return 'image';
  if (content.link && !content.text.trim()) return 'link';
  return 'self';
}

/** A URL as a markdown link target: parentheses would end the link early. */
export function markdownUrl(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29');
}

/** A markdown link that survives brackets in its text and parentheses in its URL. */
function markdownLink(display: string, url: string): string {
  return `[${display.replace(/([[\]\\])/g, '\\$1')}](${markdownUrl(url)})`;
}

/** The body of a text post: what was written, then the attributed link on a paragraph of its own. */
export function selfBody(content: Pick<PostContent, 'text' | 'link'>): string {
  const text = content.text.trim();
  if (!content.link) return text;
  const link = markdownLink(content.link.display, content.link.url);
  return text ? `${text}\n\n${link}` : link;
}

export function composeRedditPost(content: PostContent): ComposedRedditPost {
  const kind = kindOf(content);
  const { options } = content;
  return {
    kind,
    subreddit: subredditName(options.subreddit),
    title: typeof options.title === 'string' ? options.title.trim() : '',
    body: kind === 'self' ? selfBody(content) : '',
    url: kind === 'link' ? (content.link?.url ?? null) : null,
    image: kind === 'image' ? (content.media.find((media) => media.mimeType.startsWith('image/')) ?? null) : null,
    flairId: optionString(options.flairId),
    flairText: optionString(options.flairText),
    nsfw: options.nsfw === true,
    spoiler: options.spoiler === true,
  };
}

/** The text as people will read it (a text post's body, a link post's URL) and the link's place in it. */
function previewOf(composed: ComposedRedditPost, content: PostContent): ValidationResult['preview'] {
  const text = composed.kind === 'self' ? composed.body : composed.kind === 'link' ? (composed.url ?? '') : '';
  const facets: PreviewFacet[] = [];
  // The attributed link ends a text post (as markdown) and is the whole of a link post.
  const shown = !content.link
    ? ''
    : composed.kind === 'self'
      ? markdownLink(content.link.display, content.link.url)
      : composed.kind === 'link'
        ? text
        : '';
  if (content.link && shown) {
    const byteEnd = Buffer.byteLength(text, 'utf8');
    facets.push({
      kind: 'link',
      text: shown,
      target: content.link.url,
      byteStart: byteEnd - Buffer.byteLength(shown, 'utf8'),
      byteEnd,
    });
  }
  return { text, length: characters(text), limit: SELF_TEXT_LIMIT, unit: 'characters', facets };
}

const formatBytes = (bytes: number) => bytes.toLocaleString('en-US');

function optionIssues(composed: ComposedRedditPost, content: PostContent): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!composed.subreddit) {
    issues.push({
      field: 'subreddit',
      rule: 'subreddit_missing',
      message: 'Name the subreddit to post to (subreddit, e.g. "smallbusiness", without r/)',
    });
  } else if (!SUBREDDIT_NAME.test(composed.subreddit)) {
    issues.push({
      field: 'subreddit',
      rule: 'subreddit_invalid',
      message: `"${composed.subreddit.slice(0, 40)}" is not a subreddit name: 3–21 letters, digits or underscores`,
    });
  }
  if (!composed.title) {
    issues.push({
      field: 'title',
      rule: 'title_missing',
      message: 'A Reddit post needs a title (title); it cannot be changed after publishing',
    });
  } else if (characters(composed.title) > TITLE_LIMIT) {
    issues.push({
      field: 'title',
      rule: 'title_too_long',
      message: `The title is ${characters(composed.title)} characters; Reddit allows ${TITLE_LIMIT}: shorten it by ${characters(composed.title) - TITLE_LIMIT}`,
    });
  }
  if (composed.flairId && composed.flairId.length > FLAIR_ID_LIMIT) {
    issues.push({
      field: 'flairId',
      rule: 'flair_invalid',
      message: `A flair id is at most ${FLAIR_ID_LIMIT} characters; use an id the subreddit lists (validate shows them)`,
    });
  }
  if (composed.flairText && characters(composed.flairText) > FLAIR_TEXT_LIMIT) {
    issues.push({
      field: 'flairText',
      rule: 'flair_text_too_long',
      message: `Flair text is at most ${FLAIR_TEXT_LIMIT} characters, not ${characters(composed.flairText)}`,
    });
  }
  if (composed.flairText && !composed.flairId) {
    issues.push({
      field: 'flairText',
      rule: 'flair_missing',
      message: 'Flair text goes with a flair: choose the flair (flairId) whose text you want to change',
    });
  }
  if (composed.kind === 'self' && characters(composed.body) > SELF_TEXT_LIMIT) {
    const linkNote = content.link ? ' with the attributed link' : '';
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The text is ${characters(composed.body)} characters${linkNote}; Reddit allows ${SELF_TEXT_LIMIT}: shorten it by ${characters(composed.body) - SELF_TEXT_LIMIT}`,
    });
  }
  if (composed.kind === 'link' && !composed.url) {
    issues.push({
      field: 'postKind',
      rule: 'link_missing',
      message:
        'A link post needs the attributed link: make the post from a campaign variant with its link (includeLink), or post text (postKind self)',
    });
  }
  return issues;
}

function mediaIssues(composed: ComposedRedditPost, content: PostContent): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const images = content.media.filter((media) => media.mimeType.startsWith('image/'));
  if (content.media.some((media) => media.mimeType.startsWith('video/'))) {
    issues.push({
      field: 'media',
      rule: 'video_not_supported',
      message: 'Videos are not posted to Reddit yet: post a still instead (render_video mode=still)',
    });
  }
  content.media.forEach((media, index) => {
    if (media.mimeType.startsWith('image/') || media.mimeType.startsWith('video/')) return;
    issues.push({
      field: `media.${index}`,
      rule: 'unsupported_media',
      message: `${media.mimeType} cannot be posted to Reddit: use a JPEG, PNG or GIF image`,
    });
  });
  if (composed.kind === 'image') {
    if (!composed.image) {
      issues.push({
        field: 'postKind',
        rule: 'image_missing',
        message: 'An image post needs an image (imageJobIds, or a variant with images); or post text (postKind self)',
      });
    }
    if (images.length > REDDIT_RULES.maxImages) {
      issues.push({
        field: 'media',
        rule: 'too_many_images',
        message: `A Reddit image post carries one image, not ${images.length}: keep the one to post`,
      });
    }
  }
  images.forEach((media) => {
    const field = `media.${content.media.indexOf(media)}`;
    if (!(IMAGE_TYPES as readonly string[]).includes(media.mimeType)) {
      issues.push({
        field,
        rule: 'unsupported_image_type',
        message: `Reddit hosts JPEG, PNG and GIF images, not ${media.mimeType}`,
      });
    }
    if (media.bytes > REDDIT_RULES.maxImageBytes) {
      issues.push({
        field,
        rule: 'image_too_large',
        message: `The image is ${formatBytes(media.bytes)} bytes; Reddit takes at most ${formatBytes(REDDIT_RULES.maxImageBytes)}`,
      });
    }
  });
  return issues;
}

/** What the chosen kind does not carry, so nobody is surprised by what is missing on Reddit. */
function kindWarnings(composed: ComposedRedditPost, content: PostContent): ValidationIssue[] {
  const warnings: ValidationIssue[] = [];
  if (composed.kind !== 'self' && content.text.trim()) {
    warnings.push({
      field: 'text',
      rule: 'text_not_published',
      message: `A Reddit ${composed.kind} post has no body: the text is not published (only the title is); choose postKind self to post it`,
    });
  }
  if (composed.kind !== 'image' && content.media.some((media) => media.mimeType.startsWith('image/'))) {
    warnings.push({
      field: 'media',
      rule: 'images_not_published',
      message: `A Reddit ${composed.kind === 'self' ? 'text' : 'link'} post carries no image: the images are not published; choose postKind image to post one`,
    });
  }
  if (composed.kind === 'image' && content.link) {
    warnings.push({
      field: 'includeLink',
      rule: 'link_not_published',
      message:
        'A Reddit image post carries no link: the attributed link is not published, so visits from it are not counted',
    });
  }
  if (content.langs.length) {
    warnings.push({
      field: 'langs',
      rule: 'langs_not_published',
      message: 'Reddit posts have no language setting: langs are kept on the post but not sent',
    });
  }
  return warnings;
}

/** The checks that need no network. */
export function validateRedditPost(content: PostContent, composed = composeRedditPost(content)): ValidationResult {
  const issues = [...optionIssues(composed, content), ...mediaIssues(composed, content)];
  return {
    valid: issues.length === 0,
    issues,
    warnings: kindWarnings(composed, content),
    preview: previewOf(composed, content),
  };
}

/** 16 random base32 characters (RFC 4648 alphabet, lower case): the post's key, unique in practice. */
export function randomRecordKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let key = '';
  for (const byte of randomBytes(10)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      key += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return key;
}
