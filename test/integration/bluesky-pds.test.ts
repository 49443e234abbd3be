/**
 * The Bluesky test harness is a real AT Protocol network (`test/support/bluesky-network.ts`): these tests drive
 * it only with `@atproto/api`, the client the platform uses, as a client of bsky.social would. They pin down
 * what the Bluesky channel builds on: app-password sessions, image blobs, link facets at UTF-8 byte offsets,
 * a post under a record key the platform chooses (written twice, stored once: the exactly-once publish),
 * likes from another account, reads, deletes, and like counts from the AppView.
 */
import { randomInt } from 'node:crypto';
import { AtpAgent, AtUri, RichText } from '@atproto/api';
import { PNG } from 'pngjs';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';
import { pollUntil } from '../support/poll.ts';

const POST = 'app.bsky.feed.post';
const LIKE = 'app.bsky.feed.like';

/**
 * The record key `app.bsky.feed.post` requires: a TID (13 base32-sortable characters of
 * microseconds since 1970 and a 10-bit clock id). The platform picks it before its first attempt, so a retried
 * publish writes the same record.
 */
function tid(at: Date, clockId: number): string {
  const alphabet = '234567abcdefghijklmnopqrstuvwxyz';
  let value = ((BigInt(at.getTime()) * 1000n) << 10n) | BigInt(clockId & 0x3ff);
  let key = '';
  for (let i = 0; i < 13; i += 1) {
    key = alphabet[Number(value & 31n)] + key;
    value >>= 5n;
  }
  return key;
}

function png(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i += 4) image.data.set([0xe0, 0x82, 0x8d, 0xff], i);
  return PNG.sync.write(image);
}

async function signIn(network: BlueskyNetwork, account: BlueskyAccount): Promise<AtpAgent> {
  const agent = new AtpAgent({ service: network.pdsUrl });
  await agent.login({ identifier: account.handle, password: account.appPassword });
  return agent;
}

/** A post with a link facet computed by RichText; `prefix` comes before the link. */
async function postRecord(agent: AtpAgent, prefix: string, link: string) {
  const text = new RichText({ text: `${prefix}${link}` });
  await text.detectFacets(agent);
  return { $type: POST, text: text.text, facets: text.facets, createdAt: new Date().toISOString(), langs: ['en'] };
}

describe('a PDS without the AppView', () => {
  let network: BlueskyNetwork;
  let alice: BlueskyAccount;
  let bob: BlueskyAccount;

  beforeAll(async () => {
    network = await startBlueskyNetwork();
    [alice, bob] = await Promise.all([network.createAccount('alice'), network.createAccount('bob')]);
  });
  afterAll(() => network?.stop());

  test('an app-password session has no account powers', async () => {
    const agent = await signIn(network, alice);
    expect(agent.session?.did).toBe(alice.did);
    // Only a full session may mint app passwords: this one was really opened with an app password.
    await expect(agent.com.atproto.server.createAppPassword({ name: 'another' })).rejects.toMatchObject({
      status: 400,
      error: 'InvalidToken',
      message: 'Bad token scope',
    });
  });

  test('an image post with a link facet, written twice under one record key, is one record; liked, read back, deleted', async () => {
    const agent = await signIn(network, alice);

    // The image: uploaded as a blob (held as temporary until a record refers to it).
    const image = png(4, 3);
    const { data: uploaded } = await agent.uploadBlob(image, { encoding: 'image/png' });
    expect(uploaded.blob.mimeType).toBe('image/png');
    expect(uploaded.blob.size).toBe(image.length);

    // The link facet counts UTF-8 bytes, not UTF-16 units: "ü" and "🌷" before the link move it.
    const prefix = 'Frühling 🌷 collection: ';
    const link = 'https://shop.example.com/spring?utm_source=bluesky';
    const record = {
      ...(await postRecord(agent, prefix, link)),
      embed: {
        $type: 'app.bsky.embed.images',
        images: [{ image: uploaded.blob, alt: 'The spring collection', aspectRatio: { width: 4, height: 3 } }],
      },
    };
    expect(record.facets).toEqual([
      {
        index: { byteStart: Buffer.byteLength(prefix), byteEnd: Buffer.byteLength(prefix + link) },
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: link }],
      },
    ]);

    // Exactly once: the record key is chosen before the first attempt, and putRecord under it is an upsert.
    const rkey = tid(new Date(), randomInt(1024));
    const write = () => agent.com.atproto.repo.putRecord({ repo: alice.did, collection: POST, rkey, record });
    const first = (await write()).data;
    const retry = (await write()).data;
    expect(retry.uri).toBe(first.uri);
    expect(retry.cid).toBe(first.cid);
    expect(new AtUri(first.uri).rkey).toBe(rkey);
    // Now that the post refers to the blob, the PDS serves it, byte for byte.
    const { data: served } = await agent.com.atproto.sync.getBlob({
      did: alice.did,
      cid: uploaded.blob.ref.toString(),
    });
    expect(Buffer.from(served)).toEqual(image);
    const { data: listed } = await agent.com.atproto.repo.listRecords({ repo: alice.did, collection: POST });
    expect(listed.records.map((listedRecord) => listedRecord.uri)).toEqual([first.uri]);
    // createRecord under a key already taken fails, and with a 500 (not a 4xx saying "exists"), so a retry could
    // not tell "published already" from a server failure: putRecord is the call for a retried publish.
    const duplicate = await agent.com.atproto.repo
      .createRecord({ repo: alice.did, collection: POST, rkey, record })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(duplicate).toMatchObject({ status: 500, error: 'InternalServerError' });

    // Another account likes it: the like is a record in bob's repository pointing at the post.
    const bobAgent = await signIn(network, bob);
    const like = await bobAgent.like(first.uri, first.cid);
    const { data: bobLikes } = await bobAgent.com.atproto.repo.listRecords({ repo: bob.did, collection: LIKE });
    expect(bobLikes.records).toEqual([
      expect.objectContaining({
        uri: like.uri,
        value: expect.objectContaining({ subject: { uri: first.uri, cid: first.cid } }),
      }),
    ]);

    // Read back from the repository, as anyone can (no session).
    const reader = new AtpAgent({ service: network.pdsUrl });
    const { data: stored } = await reader.com.atproto.repo.getRecord({ repo: alice.handle, collection: POST, rkey });
    expect(stored).toMatchObject({ uri: first.uri, cid: first.cid });
    expect(stored.value).toMatchObject({ text: prefix + link, facets: record.facets });
    const storedImage = (stored.value as { embed: { images: { image: { ref: { toString(): string } } }[] } }).embed
      .images[0]!.image;
    expect(storedImage.ref.toString()).toBe(uploaded.blob.ref.toString());

    // Deleted: gone from reads and listings.
    await agent.com.atproto.repo.deleteRecord({ repo: alice.did, collection: POST, rkey });
    await expect(reader.com.atproto.repo.getRecord({ repo: alice.did, collection: POST, rkey })).rejects.toMatchObject({
      error: 'RecordNotFound',
    });
    const { data: afterDelete } = await reader.com.atproto.repo.listRecords({ repo: alice.did, collection: POST });
    expect(afterDelete.records).toEqual([]);
  });
});

describe('a PDS with the AppView', () => {
  let network: BlueskyNetwork;
  let alice: BlueskyAccount;
  let bob: BlueskyAccount;

  beforeAll(async () => {
    network = await startBlueskyNetwork({ appView: true });
    [alice, bob] = await Promise.all([network.createAccount('alice'), network.createAccount('bob')]);
  });
  afterAll(() => network?.stop());

  test('like counts read through the PDS (getPosts) follow a like and its undo; a deleted post is no longer returned', async () => {
    const agent = await signIn(network, alice);
    const bobAgent = await signIn(network, bob);
    const rkey = tid(new Date(), randomInt(1024));
    const record = await postRecord(agent, 'Spring is here: ', 'https://shop.example.com/spring');
    const { data: post } = await agent.com.atproto.repo.putRecord({ repo: alice.did, collection: POST, rkey, record });

    // The AppView indexes from the PDS's firehose, a moment after each write: read until it has caught up.
    const view = () => agent.getPosts({ uris: [post.uri] }).then(({ data }) => data.posts[0]);
    const counted = (likes: number) =>
      pollUntil(view, (found) => found?.likeCount === likes, {
        timeoutMs: 30_000,
        intervalMs: 100,
        timeoutMessage: (last) => `the AppView never counted ${likes} like(s): ${JSON.stringify(last)}`,
      });

    const like = await bobAgent.like(post.uri, post.cid);
    // Bluesky has no impressions: like, repost, reply and quote counts are what a post view carries.
    expect(await counted(1)).toMatchObject({
      uri: post.uri,
      likeCount: 1,
      repostCount: 0,
      replyCount: 0,
      quoteCount: 0,
    });

    await bobAgent.deleteLike(like.uri);
    expect(await counted(0)).toMatchObject({ uri: post.uri, likeCount: 0 });

    await agent.com.atproto.repo.deleteRecord({ repo: alice.did, collection: POST, rkey });
    await pollUntil(view, (found) => found === undefined, {
      timeoutMs: 30_000,
      intervalMs: 100,
      timeoutMessage: (last) => `the AppView still returns the deleted post: ${JSON.stringify(last)}`,
    });
  });
});
