/**
 * Expiring media links (`media-links.ts`), what Instagram and TikTok are given to fetch a post's media: they
 * lead to the file until they expire, reveal nothing of its key, and cannot be altered to reach another file.
 */
import { createMediaLinks, MEDIA_LINK_PREFIX } from '../../src/domain/media/media-links.ts';

const KEY = 'ws_01/renders/job_01/still.png.jpg';
let clock = new Date('2026-11-27T12:00:00Z');
const links = createMediaLinks({
  credentialKeys: ['a'.repeat(48)],
  publicBaseUrl: 'https://platform.example.com',
  now: () => clock,
});
const segmentOf = (link: string) => new URL(link).pathname.slice(MEDIA_LINK_PREFIX.length);

it('leads to the file until it expires, keeping its extension and hiding its key', () => {
  const link = links.linkFor(KEY, 60);
  expect(link.startsWith(`https://platform.example.com${MEDIA_LINK_PREFIX}`)).toBe(true);
  expect(link.endsWith('.jpg')).toBe(true);
  expect(link).not.toContain('ws_01');
  expect(link).not.toContain('job_01');
  expect(links.resolve(segmentOf(link))).toBe(KEY);
  clock = new Date(clock.getTime() + 61_000);
  expect(links.resolve(segmentOf(link))).toBeNull();
});

it('refuses a link that was altered, or sealed with another key', () => {
  clock = new Date('2026-11-27T12:00:00Z');
  const segment = segmentOf(links.linkFor(KEY));
  const flipped = `${segment.slice(0, 20)}${segment[20] === 'A' ? 'B' : 'A'}${segment.slice(21)}`;
  expect(links.resolve(flipped)).toBeNull();
  const other = createMediaLinks({ credentialKeys: ['b'.repeat(48)], publicBaseUrl: 'https://platform.example.com' });
  expect(other.resolve(segment)).toBeNull();
  expect(links.resolve('not-a-token.jpg')).toBeNull();
});
