/**
 * The media rules of a Bluesky post, offline: images within the lexicon's size, alt text for everything, no
 * videos (each refused once, with the way out), and nothing but images and videos.
 */
import type { PostMedia } from '../../src/domain/channels/channel-post.entity.ts';
import { validateBlueskyPost } from '../../src/domain/channels/bluesky/bluesky-post.ts';

const media = (overrides: Partial<PostMedia>): PostMedia => ({
  key: 'ws/renders/job/still.png',
  mimeType: 'image/png',
  bytes: 120_000,
  width: 1200,
  height: 630,
  alt: 'A green shell jacket on a trail',
  durationSeconds: null,
  sourceJobId: null,
  ...overrides,
});

const rulesOf = (items: PostMedia[]) =>
  validateBlueskyPost({ text: 'New in', link: null, media: items, langs: [], options: {} }).issues.map(
    (issue) => `${issue.field}:${issue.rule}`,
  );

describe('Bluesky media rules', () => {
  it('accepts up to four described images within the size limit', () => {
    expect(rulesOf([media({}), media({ mimeType: 'image/jpeg' }), media({}), media({})])).toEqual([]);
  });

  it('refuses a fifth image, an image over 2,000,000 bytes and an image without alt text', () => {
    expect(rulesOf([media({}), media({}), media({}), media({}), media({})])).toEqual(['media:too_many_images']);
    expect(rulesOf([media({ bytes: 2_000_001 })])).toEqual(['media.0:image_too_large']);
    expect(rulesOf([media({ alt: '  ' })])).toEqual(['media.0.alt:alt_text_missing']);
  });

  it('refuses a video once, naming the still as the way out, however long or large it is', () => {
    const video = media({ mimeType: 'video/mp4', bytes: 500_000_000, durationSeconds: 900 });
    const { issues } = validateBlueskyPost({ text: 'New in', link: null, media: [video], langs: [], options: {} });
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'media',
        rule: 'video_not_supported',
        message: expect.stringMatching(/mode=still/),
      }),
    ]);
  });

  it('refuses media that is neither an image nor a video', () => {
    expect(rulesOf([media({ mimeType: 'application/pdf' })])).toEqual(['media.0:unsupported_media']);
  });
});
