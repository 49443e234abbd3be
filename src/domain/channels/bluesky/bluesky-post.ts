/**
 * A Bluesky post as the network will store it: the text with the attributed link, its rich-text facets at
 * UTF-8 byte offsets, the languages, and the checks the network applies — read from the lexicon that
 * `@atproto/api` ships (`app.bsky.feed.post`, `app.bsky.embed.images`), and validated
 * with its own validator, so the platform refuses up front exactly what the server would refuse later.
 *
 * Rules that are the platform's own, beyond the lexicon, say so in their messages: alt text is required for
 * every image (accessibility) and is at most 2,000 graphemes, as Bluesky's app limits it; and video is not
 * posted to Bluesky yet. Bluesky's app plays videos that its video service (video.bsky.app) has processed;
 * that service needs a real deployment to test against, which the platform does not have, so videos are
 * refused up front instead of being posted in a form the app may not play.
 */
import { z } from 'zod';
import { AppBskyRichtextFacet, lexicons, RichText } from '@atproto/api';
import { isValidLanguage } from '@atproto/syntax';
import type { NetworkRules, PostContent, PreviewFacet, ValidationIssue, ValidationResult } from '../channel-adapter.ts';

export const POST_COLLECTION = 'app.bsky.feed.post';

interface LexString {
  maxLength?: number;
  maxGraphemes?: number;
}
interface LexBlob {
  maxSize?: number;
}

const postRecord = lexicons.getDefOrThrow(POST_COLLECTION) as unknown as {
  record: { properties: { text: LexString; langs: { maxLength?: number } } };
};
const imagesEmbed = lexicons.getDefOrThrow('app.bsky.embed.images') as unknown as {
  properties: { images: { maxLength?: number } };
};
const imageDef = lexicons.getDefOrThrow('app.bsky.embed.images#image') as unknown as {
  properties: { image: LexBlob };
};
const tagDef = lexicons.getDefOrThrow('app.bsky.richtext.facet#tag') as unknown as {
  properties: { tag: LexString };
};

/** The limits of a Bluesky post: the lexicon's, plus the platform's stated ones (see the module comment). */
/** Bluesky posts have no fields of their own beyond text, link, images and languages. */
export const BLUESKY_POST_OPTIONS = z.object({});

export const BLUESKY_RULES: NetworkRules = {
  textLimit: postRecord.record.properties.text.maxGraphemes ?? 300,
  textUnit: 'graphemes',
  textBytesLimit: postRecord.record.properties.text.maxLength ?? 3000,
  maxImages: imagesEmbed.properties.images.maxLength ?? 4,
  maxImageBytes: imageDef.properties.image.maxSize ?? 1_000_000,
  maxVideos: 0,
  altTextLimit: 2000,
  maxLangs: postRecord.record.properties.langs.maxLength ?? 3,
  editPublished: false,
  metrics: ['likes', 'reposts', 'replies', 'quotes', 'bookmarks'],
};

const TAG_LIMIT = tagDef.properties.tag.maxGraphemes ?? 64;

/** A facet as the lexicon stores it. */
export type Facet = AppBskyRichtextFacet.Main;

/**
 * The text as published: what was written, then the attributed link on a line of its own (its text is the
 * short form people read; the facet carries the full URL).
 */
export function publishedText(content: Pick<PostContent, 'text' | 'link'>): string {
  const body = content.text.trim();
  if (!content.link) return body;
  return body ? `${body}\n\n${content.link.display}` : content.link.display;
}

export interface ComposedPost {
  text: string;
  graphemes: number;
  bytes: number;
  /** Facets as the lexicon stores them; mentions hold the handle until resolved (`resolveMentions`). */
  facets: Facet[];
}

/**
 * The published text and its facets: links, mentions and tags found in the text (RichText's own detection,
 * as Bluesky's app does it) and the attributed link laid over its display text, replacing any facet found there.
 */
export function composePost(content: Pick<PostContent, 'text' | 'link'>): ComposedPost {
  const text = publishedText(content);
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  let facets: Facet[] = rich.facets ?? [];
  if (content.link) {
    const byteEnd = rich.unicodeText.length;
    const byteStart = byteEnd - Buffer.byteLength(content.link.display, 'utf8');
    facets = facets.filter((facet) => facet.index.byteEnd <= byteStart);
    facets.push({
      $type: 'app.bsky.richtext.facet',
      index: { byteStart, byteEnd },
      features: [{ $type: 'app.bsky.richtext.facet#link', uri: content.link.url }],
    });
  }
  return { text, graphemes: rich.graphemeLength, bytes: rich.unicodeText.length, facets };
}

/** The part of `text` a facet covers (offsets are UTF-8 bytes). */
export function facetText(text: string, facet: Facet): string {
  return Buffer.from(text, 'utf8').subarray(facet.index.byteStart, facet.index.byteEnd).toString('utf8');
}

function previewFacets(text: string, facets: Facet[]): PreviewFacet[] {
  return facets.flatMap((facet) =>
    facet.features.map((feature): PreviewFacet => {
      const base = { text: facetText(text, facet), byteStart: facet.index.byteStart, byteEnd: facet.index.byteEnd };
      if (AppBskyRichtextFacet.isLink(feature)) return { ...base, kind: 'link', target: feature.uri };
      if (AppBskyRichtextFacet.isMention(feature)) {
        return { ...base, kind: 'mention', target: feature.did.startsWith('did:') ? feature.did : null };
      }
      return { ...base, kind: 'tag', target: (feature as AppBskyRichtextFacet.Tag).tag };
    }),
  );
}

const graphemes = (value: string) => new RichText({ text: value }).graphemeLength;

/** The checks that need no network: the text against the lexicon, the media and languages against the rules. */
export function validateBlueskyPost(content: PostContent, composed = composePost(content)): ValidationResult {
  const rules = BLUESKY_RULES;
  const issues: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  const linkNote = content.link ? ` (with the ${graphemes(`\n\n${content.link.display}`)} of the link)` : '';

  if (composed.graphemes > rules.textLimit) {
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The post is ${composed.graphemes} graphemes${linkNote}; Bluesky allows ${rules.textLimit}: shorten it by ${composed.graphemes - rules.textLimit}`,
    });
  } else if (rules.textBytesLimit !== null && composed.bytes > rules.textBytesLimit) {
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `The post takes ${composed.bytes} bytes of UTF-8${linkNote}; Bluesky allows ${rules.textBytesLimit} (emoji and some scripts take up to 4 bytes per character and more per grapheme)`,
    });
  }
  if (!composed.text && content.media.length === 0) {
    issues.push({ field: 'text', rule: 'empty_post', message: 'A post needs text or an image' });
  }
  for (const facet of composed.facets) {
    for (const feature of facet.features) {
      if (AppBskyRichtextFacet.isTag(feature) && graphemes(feature.tag) > TAG_LIMIT) {
        issues.push({
          field: 'text',
          rule: 'tag_too_long',
          message: `The hashtag #${feature.tag.slice(0, 20)}… is longer than Bluesky's ${TAG_LIMIT} graphemes`,
        });
      }
    }
  }

  const images = content.media.filter((media) => media.mimeType.startsWith('image/'));
  const videos = content.media.filter((media) => media.mimeType.startsWith('video/'));
  content.media.forEach((media, index) => {
    if (media.mimeType.startsWith('image/') || media.mimeType.startsWith('video/')) return;
    issues.push({
      field: `media.${index}`,
      rule: 'unsupported_media',
      message: `${media.mimeType} cannot be posted to Bluesky: use images`,
    });
  });
  if (images.length > rules.maxImages) {
    issues.push({
      field: 'media',
      rule: 'too_many_images',
      message: `A Bluesky post carries at most ${rules.maxImages} images, not ${images.length}`,
    });
  }
  if (videos.length > rules.maxVideos) {
    issues.push({
      field: 'media',
      rule: 'video_not_supported',
      message:
        "Videos are not posted to Bluesky yet (Bluesky's app plays videos its video service processed, which the platform does not use): post a still instead (render_video mode=still)",
    });
  }
  content.media.forEach((media, index) => {
    const field = `media.${index}`;
    if (media.mimeType.startsWith('image/') && media.bytes > rules.maxImageBytes) {
      issues.push({
        field,
        rule: 'image_too_large',
        message: `The image is ${media.bytes.toLocaleString('en-US')} bytes; Bluesky takes at most ${rules.maxImageBytes.toLocaleString('en-US')}`,
      });
    }
    if (!media.alt.trim()) {
      issues.push({
        field: `${field}.alt`,
        rule: 'alt_text_missing',
        message: `Describe the ${media.mimeType.startsWith('video/') ? 'video' : 'image'} in alt text, for people who cannot see it (the platform requires it)`,
      });
    } else if (graphemes(media.alt) > rules.altTextLimit) {
      issues.push({
        field: `${field}.alt`,
        rule: 'alt_text_too_long',
        message: `Alt text is at most ${rules.altTextLimit} graphemes (Bluesky's app limit), not ${graphemes(media.alt)}`,
      });
    }
  });

  if (content.langs.length > rules.maxLangs) {
    issues.push({ field: 'langs', rule: 'too_many_languages', message: `At most ${rules.maxLangs} languages` });
  }
  for (const lang of content.langs) {
    if (!isValidLanguage(lang)) {
      issues.push({
        field: 'langs',
        rule: 'invalid_language',
        message: `${lang} is not a BCP 47 language tag (en, de-CH, …)`,
      });
    }
  }

  // The lexicon's own validator on the record without its embed (blobs are checked above): whatever it still
  // finds (a malformed link URI, say) is refused now rather than by the server.
  if (issues.length === 0) {
    try {
      lexicons.assertValidRecord(POST_COLLECTION, {
        $type: POST_COLLECTION,
        text: composed.text,
        facets: composed.facets.filter((facet) => !isUnresolvedMention(facet)),
        ...(content.langs.length ? { langs: content.langs } : {}),
        createdAt: new Date().toISOString(),
      });
    } catch (error) {
      issues.push({
        field: 'text',
        rule: 'invalid_post',
        message: `Bluesky would refuse the post: ${(error as Error).message}`,
      });
    }
  }

  for (const facet of composed.facets) {
    if (isUnresolvedMention(facet)) {
      const handle = facetText(composed.text, facet);
      warnings.push({
        field: 'text',
        rule: 'mention_unchecked',
        message: `${handle} is checked when the post is published; if no account answers to it, it stays plain text`,
      });
    }
  }

  return {
    valid: issues.length === 0,
    issues,
    warnings,
    preview: {
      text: composed.text,
      length: composed.graphemes,
      limit: rules.textLimit,
      unit: 'graphemes',
      facets: previewFacets(composed.text, composed.facets),
    },
  };
}

/** A mention still holding a handle (detection fills `did` with the handle until it is resolved). */
export function isUnresolvedMention(facet: Facet): boolean {
  return facet.features.some((feature) => AppBskyRichtextFacet.isMention(feature) && !feature.did.startsWith('did:'));
}

/**
 * Resolves every mention's handle to its account; a handle that resolves to no account loses its facet (the
 * text stays), as Bluesky's app does. Returns the facets and the handles that resolved to nobody.
 */
export async function resolveMentions(
  composed: ComposedPost,
  resolve: (handle: string) => Promise<string | null>,
): Promise<{ facets: Facet[]; unresolved: string[] }> {
  const unresolved: string[] = [];
  const facets: Facet[] = [];
  for (const facet of composed.facets) {
    if (!isUnresolvedMention(facet)) {
      facets.push(facet);
      continue;
    }
    const feature = facet.features[0] as AppBskyRichtextFacet.Mention;
    const did = await resolve(feature.did);
    if (did) facets.push({ ...facet, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] });
    else unresolved.push(facetText(composed.text, facet));
  }
  return { facets, unresolved };
}

/** The `previewFacets` of resolved facets, for a validation that could ask the network. */
export function withResolvedMentions(
  result: ValidationResult,
  composed: ComposedPost,
  facets: Facet[],
  unresolved: string[],
): ValidationResult {
  return {
    ...result,
    warnings: [
      ...result.warnings.filter((warning) => warning.rule !== 'mention_unchecked'),
      ...unresolved.map((handle) => ({
        field: 'text',
        rule: 'mention_unresolved',
        message: `No Bluesky account answers to ${handle}: it will be plain text, not a mention`,
      })),
    ],
    preview: { ...result.preview, facets: previewFacets(composed.text, facets) },
  };
}
