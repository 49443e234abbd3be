/**
 * The rate budget a Bluesky server reports in its `RateLimit-*` headers, as the account's quota: the PDS's
 * Unix-time reset and the draft standard's seconds-from-now both read right, and a header that is missing or
 * not a number gives no figure rather than a made-up 0.
 */
import { quotaOf } from '../../src/domain/channels/bluesky/bluesky-adapter.ts';

const NOW = new Date('2026-11-25T12:00:00.000Z');

describe('quotaOf', () => {
  it('reads the PDS headers (reset as a Unix time)', () => {
    const headers = new Headers({
      'RateLimit-Limit': '3000',
      'RateLimit-Remaining': '2962',
      'RateLimit-Reset': String(Math.floor(NOW.getTime() / 1000) + 300),
      'RateLimit-Policy': '3000;w=300',
    });
    expect(quotaOf(headers, NOW)).toEqual({
      policy: '3000;w=300',
      limit: 3000,
      remaining: 2962,
      resetAt: '2026-11-25T12:05:00.000Z',
      observedAt: NOW.toISOString(),
    });
  });

  it('reads a reset given in seconds from now, from a plain header record', () => {
    expect(
      quotaOf({ 'ratelimit-limit': '30', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' }, NOW),
    ).toMatchObject({ limit: 30, remaining: 0, resetAt: '2026-11-25T12:01:00.000Z', policy: null });
  });

  it.each([
    ['no headers at all', undefined],
    ['no rate-limit headers', new Headers({ 'content-type': 'application/json' })],
    ['a missing remaining count', new Headers({ 'ratelimit-limit': '3000', 'ratelimit-reset': '60' })],
    ['an empty reset', { 'ratelimit-limit': '3000', 'ratelimit-remaining': '10', 'ratelimit-reset': '' }],
    [
      'a count that is not a number',
      { 'ratelimit-limit': 'lots', 'ratelimit-remaining': '10', 'ratelimit-reset': '60' },
    ],
  ])('gives no quota for %s', (_case, headers) => {
    expect(quotaOf(headers as Headers | undefined, NOW)).toBeNull();
  });
});
