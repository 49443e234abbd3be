/**
 * Post validation against what a real PDS accepts, as properties over arbitrary Unicode (fast-check):
 *
 * - length: for texts around Bluesky's limits — 300 graphemes, 3,000 bytes — built from clusters of every
 *   kind (ASCII, Latin with diacritics, Nordic, CJK, combining marks, emoji with variation selectors, ZWJ
 *   families, flags, Hangul jamo), the platform's verdict is exactly the PDS's: what it refuses, the PDS
 *   refuses; what it passes, the PDS stores;
 * - facets: for arbitrary text before and around a link, mention-like and hashtag-like words, every facet the
 *   platform computes covers, at its UTF-8 byte offsets, exactly the text it annotates, and the PDS stores the
 *   post with them as they were sent.
 */
import { AtpAgent, XRPCError } from '@atproto/api';
import fc from 'fast-check';
import {
  composePost,
  facetText,
  validateBlueskyPost,
  POST_COLLECTION,
} from '../../src/domain/channels/bluesky/bluesky-post.ts';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';

let network: BlueskyNetwork;
let author: BlueskyAccount;
let agent: AtpAgent;

beforeAll(async () => {
  network = await startBlueskyNetwork();
  author = await network.createAccount('props');
  agent = new AtpAgent({ service: network.pdsUrl });
  await agent.login({ identifier: author.handle, password: author.appPassword });
});

afterAll(async () => {
  await network?.stop();
});

/** Grapheme clusters of every shape the limits have to count right. */
const CLUSTERS = [
  'a',
  'Z',
  '7',
  ' ',
  '.',
  '\n',
  'ü',
  'ß',
  'é',
  'ñ',
  'ø',
  'å',
  'Æ',
  'þ',
  'ð',
  'ł',
  'ő',
  'č',
  'ž',
  'ș',
  '中',
  '文',
  'の',
  'ト',
  '한',
  'ㄱ',
  'e\u0301',
  'a\u0308\u0323',
  'n\u0303',
  '🏔️',
  '🌲',
  '❄️',
  '👍🏽',
  '👩‍💻',
  '👨‍👩‍👧‍👦',
  '🇳🇴',
  '🇸🇪',
  '🏳️‍🌈',
  '\u1100\u1161\u11A8', // a Hangul syllable from jamo
  'ا',
  'ع',
  'ש',
  'अ',
  'क्ष',
];

/** A text of `count` clusters drawn from `pool`. */
const textOf = (pool: readonly string[]) => fc.integer({ min: 0, max: pool.length - 1 }).map((index) => pool[index]!);

const nearTheLimits = fc.oneof(
  // Around 300 graphemes, mostly small clusters.
  fc.array(textOf(CLUSTERS), { minLength: 285, maxLength: 315 }).map((parts) => parts.join('')),
  // Few graphemes, many bytes: around the 3,000-byte limit.
  fc.array(textOf(['👨‍👩‍👧‍👦', '🏳️‍🌈', '👩‍💻', '🇳🇴', 'क्ष']), { minLength: 100, maxLength: 280 }).map((parts) => parts.join('')),
);

async function pdsAccepts(record: Record<string, unknown>): Promise<{ accepted: boolean; reason?: string }> {
  try {
    await agent.com.atproto.repo.createRecord({
      repo: author.did,
      collection: POST_COLLECTION,
      record,
      validate: true,
    });
    return { accepted: true };
  } catch (error) {
    if (error instanceof XRPCError && error.status === 400) return { accepted: false, reason: error.message };
    throw error;
  }
}

it('refuses exactly the texts the PDS refuses, for arbitrary Unicode near both limits', async () => {
  const outcomes = { accepted: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(nearTheLimits, async (text) => {
      const verdict = validateBlueskyPost({ text, link: null, media: [], langs: [], options: {} });
      const pds = await pdsAccepts({ $type: POST_COLLECTION, text, createdAt: new Date().toISOString() });
      outcomes[pds.accepted ? 'accepted' : 'refused'] += 1;
      expect({ ours: verdict.valid, issues: verdict.issues.map((issue) => issue.rule), pds }).toEqual(
        pds.accepted
          ? { ours: true, issues: [], pds }
          : {
              ours: false,
              issues: ['text_too_long'],
              pds: { accepted: false, reason: expect.stringMatching(/text/) },
            },
      );
    }),
    { numRuns: 80, seed: 20261125 },
  );
  // Both sides of the limits were really tried.
  expect(outcomes.accepted).toBeGreaterThan(5);
  expect(outcomes.refused).toBeGreaterThan(5);
});

it('puts every facet on exactly the bytes of the text it annotates, and the PDS stores them as sent', async () => {
  const words = fc.oneof(
    fc.array(textOf(CLUSTERS), { minLength: 0, maxLength: 12 }).map((parts) => parts.join('')),
    fc.constantFrom(
      '#hiking',
      '#Fjällräven',
      '#🏔️',
      '#2026',
      '@someone.bsky.social',
      'https://example.com/a?b=c',
      'shop.example.no/jakke',
    ),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(words, { minLength: 0, maxLength: 8 }), fc.webPath(), async (parts, path) => {
      const link = {
        url: `https://fjell.sites.example.com/_cp/go?c=cmp_1&v=var_1&p=chp_1`,
        display: `fjell.sites.example.com${path.slice(0, 40)}`,
      };
      const content = { text: parts.join(' '), link, media: [], langs: [], options: {} };
      const composed = composePost(content);
      const verdict = validateBlueskyPost(content, composed);
      fc.pre(verdict.valid);
      for (const facet of composed.facets) {
        const covered = facetText(composed.text, facet);
        const feature = facet.features[0] as { $type: string; uri?: string; tag?: string; did?: string };
        if (feature.uri === link.url) expect(covered).toBe(link.display);
        else if (feature.$type.endsWith('#tag')) expect(covered).toBe(`#${feature.tag}`);
        else if (feature.$type.endsWith('#link'))
          expect(feature.uri).toContain(covered.replace(/^https?:\/\//, '').split('/')[0]);
        // Offsets fall on character boundaries: the covered text re-encodes to the same bytes.
        expect(Buffer.byteLength(covered, 'utf8')).toBe(facet.index.byteEnd - facet.index.byteStart);
      }
      // The attributed link is always the last facet, ending with the text.
      expect(composed.facets.at(-1)).toMatchObject({ index: { byteEnd: Buffer.byteLength(composed.text, 'utf8') } });
      const facets = composed.facets.filter((facet) => !facet.features.some((f) => f.$type.endsWith('#mention')));
      const record = { $type: POST_COLLECTION, text: composed.text, facets, createdAt: new Date().toISOString() };
      const { data } = await agent.com.atproto.repo.createRecord({
        repo: author.did,
        collection: POST_COLLECTION,
        record,
      });
      const stored = await agent.com.atproto.repo.getRecord({
        repo: author.did,
        collection: POST_COLLECTION,
        rkey: data.uri.split('/').pop()!,
      });
      expect((stored.data.value as { facets: unknown }).facets ?? []).toEqual(JSON.parse(JSON.stringify(facets)));
    }),
    { numRuns: 60, seed: 20261126 },
  );
});
