/**
 * The TikTok adapter against the TikTok stand-in (a real HTTP server on loopback, spoken to with real
 * `fetch`): connecting through the consent page with PKCE, refreshing and a refused refresh, validation offline
 * and against the creator's settings (the unaudited app's refusal among them), publishing by upload, by URL and
 * to the inbox, exactly once when an answer is lost or an attempt is repeated, rate limits, outages, metrics and
 * the refusal to delete. Every exchange is checked against TikTok's specification at the end.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ChannelRefusedError, RateLimitedError, UnavailableError, ValidationError } from '../../src/errors.ts';
import {
  CredentialsRefusedError,
  type AccountContext,
  type ChannelAdapter,
  type ConnectedIdentity,
  type NetworkClient,
  type PostContent,
  type PublishProgress,
} from '../../src/domain/channels/channel-adapter.ts';
import type { ChannelQuota } from '../../src/domain/channels/channel-account.entity.ts';
import type { PostMedia } from '../../src/domain/channels/channel-post.entity.ts';
import {
  createTikTokAdapter,
  TIKTOK_RULES,
  type TikTokAdapterOptions,
} from '../../src/domain/channels/tiktok/tiktok-adapter.ts';
import { startTikTokStandin, type StandinCreator, type TikTokStandin } from '../support/standins/tiktok-standin.ts';
import { pollUntil } from '../support/poll.ts';

const REDIRECT_URI = 'https://platform.example/channels/oauth/tiktok/callback';
const LINK = { url: 'https://brand.example/_cp/go?c=camp1&v=var1&p=post1', display: 'brand.example/jacket' };
const MIB = 1024 * 1024;

let standin: TikTokStandin;

beforeAll(async () => {
  standin = await startTikTokStandin({ processingMs: 30 });
});

afterAll(async () => {
  await standin.close();
});

afterEach(() => {
  standin.audited = false;
});

/** A fetch a test can cut off, as a worker killed mid-request is. */
function killableFetch() {
  let controller = new AbortController();
  const wrapped: typeof globalThis.fetch = (input, init) => fetch(input, { ...init, signal: controller.signal });
  return {
    fetch: wrapped,
    kill: () => controller.abort(new Error('the worker was killed')),
    revive: () => {
      controller = new AbortController();
    },
  };
}

function tiktok(options: Partial<TikTokAdapterOptions> = {}): ChannelAdapter {
  return createTikTokAdapter({
    clientKey: standin.clientKey,
    clientSecret: standin.clientSecret,
    authUrl: standin.url,
    apiUrl: standin.url,
    fetch: globalThis.fetch,
    tuning: { pollIntervalMs: 10, processingTimeoutMs: 5000, moderationWaitMs: 150, uploadChunkBytes: 5 * MIB },
    ...options,
  });
}

/** An adapter for an app TikTok has audited (and TikTok knows it). */
function audited(options: Partial<TikTokAdapterOptions> = {}): ChannelAdapter {
  standin.audited = true;
  return tiktok({ ...options, audited: true });
}

function pkce() {
  const codeVerifier = randomBytes(48).toString('base64url');
  return { codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}

async function connect(adapter: ChannelAdapter, creator: StandinCreator): Promise<ConnectedIdentity> {
  const { codeVerifier, codeChallenge } = pkce();
  const url = adapter.oauth!.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT_URI, codeChallenge });
  const back = new URL(await standin.authorize(url, creator.username));
  const [identity] = await adapter.oauth!.completeAuthorization({
    code: back.searchParams.get('code')!,
    redirectUri: REDIRECT_URI,
    codeVerifier,
  });
  return identity!;
}

/** A creator connected through the adapter, with a client and the quotas it reported. */
async function account(adapter = tiktok(), creatorInput: Parameters<TikTokStandin['createCreator']>[0] = {}) {
  const creator = standin.createCreator(creatorInput);
  const identity = await connect(adapter, creator);
  const quotas: ChannelQuota[] = [];
  const context: AccountContext = { kind: null, externalId: identity.externalId, handle: identity.handle };
  const client = adapter.client(identity.credentials, (quota) => quotas.push(quota), context);
  return { creator, identity, client, quotas, context };
}

/** An MP4 of `size` bytes (its container signature is what the stand-in checks). */
function mp4(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisom', 4, 'latin1');
  return bytes;
}

function video(key: string, size: number, extra: Partial<PostMedia> = {}): PostMedia {
  return {
    key,
    mimeType: 'video/mp4',
    bytes: size,
    width: 1080,
    height: 1920,
    alt: '',
    durationSeconds: 12,
    sourceJobId: null,
    ...extra,
  };
}

function post(options: PostContent['options'], extra: Partial<PostContent> = {}): PostContent {
  return {
    text: 'Our recycled shell jacket is here #hiking',
    link: LINK,
    media: [video('clip.mp4', 1000)],
    langs: [],
    options,
    ...extra,
  };
}

/** One publishing attempt, with the progress store a post keeps between attempts. */
function attempt(
  client: NetworkClient,
  content: PostContent,
  files: Record<string, Buffer>,
  store: { progress: PublishProgress | null; beats: number },
  createdAt = new Date(Date.now() - 1000),
) {
  return client.publish({
    content,
    recordKey: 'r',
    createdAt,
    loadMedia: async (key) => files[key]!,
    mediaUrl: (key) => standin.addMedia(key, files[key]!, 'video/mp4'),
    jpegCopy: () => Promise.reject(new Error('TikTok posts videos only')),
    progress: store.progress,
    saveProgress: async (progress) => {
      store.progress = structuredClone(progress);
    },
    heartbeat: () => {
      store.beats += 1;
    },
  });
}

const newStore = () => ({ progress: null as PublishProgress | null, beats: 0 });
const creatorPublishes = (creator: StandinCreator) =>
  standin.publishes().filter((publish) => publish.openId === creator.openId);
const exchangesTo = (path: string, method = 'POST') =>
  standin.exchanges.filter((exchange) => exchange.method === method && new URL(exchange.url).pathname === path);

describe('connecting (OAuth with PKCE)', () => {
  it('is not set up without the app’s key and secret, and says which variables to set', () => {
    const adapter = tiktok({ clientKey: '', clientSecret: '' });
    expect(adapter.oauth!.configured).toBe(false);
    expect(() =>
      adapter.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge: 'c' }),
    ).toThrow(/TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET/);
    return expect(
      adapter.oauth!.completeAuthorization({ code: 'x', redirectUri: REDIRECT_URI, codeVerifier: 'v' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('sends the person to a consent page that names the app and what it asks, with Allow and Cancel', async () => {
    const adapter = tiktok();
    expect(adapter.oauth!.configured).toBe(true);
    const url = new URL(
      adapter.oauth!.authorizationUrl({ state: 'st', redirectUri: REDIRECT_URI, codeChallenge: 'ch' }),
    );
    expect(url.pathname).toBe('/v2/auth/authorize/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: standin.clientKey,
      scope: 'user.info.basic,video.publish,video.upload,video.list',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    standin.createCreator();
    const page = await (await fetch(url)).text();
    expect(page).toContain('Campaign Platform would like to access your TikTok account');
    expect(page).toContain('Post content to your TikTok account directly');
    expect(page).toMatch(/<form method="post"[\s\S]*value="cancel">Cancel<\/button>[\s\S]*value="allow">Authorize</);
  });

  it('exchanges the code for the account: its open id, @username and display name, a 24-hour token', async () => {
    const adapter = tiktok();
    const creator = standin.createCreator({ username: 'trail.gear', nickname: 'Trail Gear' });
    const { codeVerifier, codeChallenge } = pkce();
    const url = adapter.oauth!.authorizationUrl({ state: 'state-42', redirectUri: REDIRECT_URI, codeChallenge });
    const back = new URL(await standin.authorize(url, 'trail.gear'));
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('state-42');
    const code = back.searchParams.get('code')!;
    const before = Date.now();
    const [identity] = await adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier });
    expect(identity).toMatchObject({
      externalId: creator.openId,
      handle: 'trail.gear',
      displayName: 'Trail Gear',
      kind: null,
    });
    expect(identity!.accessExpiresAt!.getTime()).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(identity!.credentials).toMatchObject({ openId: creator.openId, username: 'trail.gear' });

    // A code is good once.
    await expect(
      adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier }),
    ).rejects.toThrow(/TikTok refused the sign-in \(invalid_grant/);
  });

  it('refuses a code with the wrong PKCE verifier or for another redirect URI', async () => {
    const adapter = tiktok();
    const creator = standin.createCreator();
    for (const wrong of [{ codeVerifier: pkce().codeVerifier }, { redirectUri: 'https://elsewhere.example/cb' }]) {
      const { codeVerifier, codeChallenge } = pkce();
      const url = adapter.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
      const code = new URL(await standin.authorize(url, creator.username)).searchParams.get('code')!;
      const refused = adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier, ...wrong });
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
    }
  });

  it('refuses an expired code', async () => {
    const shortLived = await startTikTokStandin({ codeTtlMs: 1 });
    try {
      const adapter = tiktok({ authUrl: shortLived.url, apiUrl: shortLived.url });
      shortLived.createCreator();
      const { codeVerifier, codeChallenge } = pkce();
      const url = adapter.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
      const code = new URL(await shortLived.authorize(url)).searchParams.get('code')!;
      await new Promise((resolve) => setTimeout(resolve, 10));
      await expect(
        adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier }),
      ).rejects.toThrow(/Authorization code is expired/);
      expect(shortLived.violations).toEqual([]);
    } finally {
      await shortLived.close();
    }
  });

  it('sends a person who pressed Cancel back with access_denied and the state', async () => {
    const adapter = tiktok();
    const creator = standin.createCreator();
    const url = adapter.oauth!.authorizationUrl({ state: 'st-9', redirectUri: REDIRECT_URI, codeChallenge: 'c' });
    const back = new URL(await standin.authorize(url, creator.username, { decision: 'cancel' }));
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-9' });
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses to connect an account TikTok does not let post', async () => {
    const adapter = tiktok();
    const creator = standin.createCreator({ bannedFromPosting: true });
    await expect(connect(adapter, creator)).rejects.toThrow(ValidationError);
  });

  it('refuses an account connected without the posting permission, saying which', async () => {
    const adapter = tiktok();
    const creator = standin.createCreator();
    const { codeVerifier, codeChallenge } = pkce();
    const url = adapter.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
    const grant = ['user.info.basic', 'video.upload', 'video.list'];
    const code = new URL(await standin.authorize(url, creator.username, { grant })).searchParams.get('code')!;
    await expect(
      adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier }),
    ).rejects.toThrow(/connected without video\.publish/);
  });
});

describe('tokens', () => {
  it('refreshes a refused access token, and the old refresh token is spent', async () => {
    const adapter = tiktok();
    const { identity, client } = await account(adapter);
    standin.expireAccessTokens();
    const refused = await client.validate(post({ privacyLevel: 'SELF_ONLY' })).catch((error: unknown) => error);
    expect(adapter.isAuthExpired(refused)).toBe(true);
    expect(String((refused as Error).message)).not.toContain(String(identity.credentials.accessToken));

    const refreshed = await adapter.refresh(identity.credentials);
    expect(refreshed.credentials.accessToken).not.toBe(identity.credentials.accessToken);
    expect(refreshed.credentials.refreshToken).not.toBe(identity.credentials.refreshToken);
    expect(refreshed.credentials.username).toBe(identity.handle);
    expect(refreshed.accessExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    const fresh = adapter.client(refreshed.credentials, () => {}, { kind: null, externalId: '', handle: '' });
    await expect(fresh.validate(post({ privacyLevel: 'SELF_ONLY' }))).resolves.toMatchObject({ valid: true });

    await expect(adapter.refresh(identity.credentials)).rejects.toBeInstanceOf(CredentialsRefusedError);
  });

  it('gives up on a refused refresh token (the account needs reconnecting), without the token in the message', async () => {
    const adapter = tiktok();
    const { identity } = await account(adapter);
    standin.refuseRefresh();
    const error = (await adapter.refresh(identity.credentials).catch((thrown: unknown) => thrown)) as Error;
    expect(error).toBeInstanceOf(CredentialsRefusedError);
    expect(error.message).toMatch(/reconnect the account/);
    expect(error.message).not.toContain(String(identity.credentials.refreshToken));
  });

  it('signs out by revoking the grant: its tokens stop working', async () => {
    const adapter = tiktok();
    const { identity, client } = await account(adapter);
    await adapter.signOut(identity.credentials);
    expect(exchangesTo('/v2/oauth/revoke/').at(-1)!.status).toBe(200);
    const refused = await client.validate(post({ privacyLevel: 'SELF_ONLY' })).catch((error: unknown) => error);
    expect(adapter.isAuthExpired(refused)).toBe(true);
    await expect(adapter.refresh(identity.credentials)).rejects.toBeInstanceOf(CredentialsRefusedError);
  });
});

describe('validation', () => {
  const rules = (result: { issues: { rule: string }[] }) => result.issues.map((issue) => issue.rule);

  it('previews the caption as published (the link on its own line), in UTF-16 characters', () => {
    const result = tiktok().validateOffline(post({ privacyLevel: 'SELF_ONLY' }), {
      kind: null,
      externalId: '',
      handle: '',
    });
    expect(result.valid).toBe(true);
    expect(result.preview).toEqual({
      text: `Our recycled shell jacket is here #hiking\n\n${LINK.url}`,
      length: 41 + 2 + LINK.url.length,
      limit: 2200,
      unit: 'characters',
      facets: [{ kind: 'tag', text: '#hiking', target: 'hiking', byteStart: 34, byteEnd: 41 }],
    });
    expect(result.warnings.map((warning) => warning.rule)).toEqual(['link_not_clickable']);
    expect(TIKTOK_RULES).toMatchObject({ textLimit: 2200, maxVideos: 1, maxImages: 0, editPublished: false });
  });

  it('explains the unaudited app’s refusal: posts stay private to the creator until TikTok audits the app', () => {
    const context = { kind: null, externalId: '', handle: '' };
    const result = tiktok().validateOffline(post({ privacyLevel: 'PUBLIC_TO_EVERYONE' }), context);
    expect(result.valid).toBe(false);
    expect(result.issues).toEqual([
      expect.objectContaining({
        field: 'options.privacyLevel',
        rule: 'app_not_audited',
        message: expect.stringMatching(/has not passed TikTok's audit.*private to the creator \(SELF_ONLY\)/),
      }),
    ]);
    expect(tiktok({ audited: true }).validateOffline(post({ privacyLevel: 'PUBLIC_TO_EVERYONE' }), context).valid).toBe(
      true,
    );
  });

  it('refuses what TikTok would: no privacy choice, images, several videos, other formats, a long caption', () => {
    const adapter = tiktok();
    const context = { kind: null, externalId: '', handle: '' };
    const check = (content: PostContent) => rules(adapter.validateOffline(content, context));
    expect(check(post({}))).toEqual(['privacy_level_missing']);
    expect(check(post({ privacyLevel: 'SELF_ONLY' }, { media: [] }))).toEqual(['video_required']);
    expect(
      check(
        post(
          { privacyLevel: 'SELF_ONLY' },
          { media: [{ ...video('a.png', 10), mimeType: 'image/png' }, video('b.mp4', 10)] },
        ),
      ),
    ).toEqual(['images_not_supported']);
    expect(check(post({ privacyLevel: 'SELF_ONLY' }, { media: [video('a.mp4', 10), video('b.mp4', 10)] }))).toEqual([
      'too_many_videos',
    ]);
    expect(
      check(post({ privacyLevel: 'SELF_ONLY' }, { media: [{ ...video('a.avi', 10), mimeType: 'video/x-msvideo' }] })),
    ).toEqual(['unsupported_video_format']);
    expect(check(post({ privacyLevel: 'SELF_ONLY' }, { media: [video('a.mp4', 10, { width: 200 })] }))).toEqual([
      'video_size_out_of_range',
    ]);
    expect(check(post({ privacyLevel: 'SELF_ONLY' }, { text: 'x'.repeat(2200) }))).toEqual(['text_too_long']);
    expect(check(post({ privacyLevel: 'SELF_ONLY' }, { text: 'x'.repeat(2200), link: null }))).toEqual([]);
    expect(check(post({ privacyLevel: 'SELF_ONLY', brandContent: true }))).toEqual(['branded_content_private']);
    expect(check(post({ privacyLevel: 'EVERYBODY' as never }))).toEqual(['invalid_option']);
    // A draft is finished in the app: no privacy choice needed here.
    expect(check(post({ asDraft: true }))).toEqual([]);
  });

  it('checks the creator’s own settings live: privacy options, interactions, the video’s length', async () => {
    const { client } = await account(tiktok({ audited: true }), {
      privacyOptions: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
      commentDisabled: true,
      maxDurationSec: 60,
    });
    const result = await client.validate(
      post(
        { privacyLevel: 'PUBLIC_TO_EVERYONE', disableComment: false, disableDuet: false },
        { media: [video('clip.mp4', 1000, { durationSeconds: 90 })] },
      ),
    );
    expect(rules(result)).toEqual(['privacy_level_unavailable', 'comments_disabled_by_creator', 'video_too_long']);
    expect(result.issues[0]!.message).toMatch(/allows FOLLOWER_OF_CREATOR, SELF_ONLY/);

    const missing = await client.validate(post({}));
    expect(missing.issues[0]).toMatchObject({
      rule: 'privacy_level_missing',
      message: expect.stringContaining('FOLLOWER_OF_CREATOR, SELF_ONLY'),
    });
    await expect(client.validate(post({ privacyLevel: 'FOLLOWER_OF_CREATOR' }))).resolves.toMatchObject({
      valid: true,
    });
  });

  it('gives the unaudited app’s refusal live too, and a creator TikTok bars from posting', async () => {
    const { client } = await account();
    expect(rules(await client.validate(post({ privacyLevel: 'MUTUAL_FOLLOW_FRIENDS' })))).toEqual(['app_not_audited']);
    const banned = await account();
    banned.creator.bannedFromPosting = true;
    const result = await banned.client.validate(post({ privacyLevel: 'SELF_ONLY' }));
    expect(result.issues).toEqual([
      expect.objectContaining({
        rule: 'creator_cannot_post',
        message: expect.stringMatching(/does not let this account post/),
      }),
    ]);
  });
});

describe('publishing', () => {
  it('uploads a small video as one chunk and posts it privately; a private post keeps its publish id', async () => {
    const { creator, client } = await account();
    const bytes = mp4(300_000);
    const store = newStore();
    const published = await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), { 'clip.mp4': bytes }, store);
    const [publish] = creatorPublishes(creator);
    expect(published).toEqual({
      externalId: publish!.publishId,
      externalUrl: `https://www.tiktok.com/@${creator.username}`,
    });
    expect(publish).toMatchObject({
      mode: 'direct',
      source: 'FILE_UPLOAD',
      status: 'PUBLISH_COMPLETE',
      totalChunks: 1,
    });
    expect(publish!.data.equals(bytes)).toBe(true);
    expect(publish!.postInfo).toEqual({
      title: `Our recycled shell jacket is here #hiking\n\n${LINK.url}`,
      privacy_level: 'SELF_ONLY',
      disable_comment: true,
      disable_duet: true,
      disable_stitch: true,
      brand_content_toggle: false,
      brand_organic_toggle: false,
    });
    expect(store.progress).toMatchObject({ publishId: publish!.publishId, source: 'FILE_UPLOAD' });
    expect(store.beats).toBeGreaterThan(0);
    const put = exchangesTo('/video/', 'PUT').at(-1)!;
    expect(put.requestHeaders['content-range']).toBe('bytes 0-299999/300000');
    expect(put.requestHeaders['content-type']).toBe('video/mp4');
    expect(put.requestHeaders.authorization).toBeUndefined();
  });

  it('uploads a larger video in chunks by TikTok’s rules and returns the public post id, digit for digit', async () => {
    const { creator, client } = await account(audited());
    const size = 12 * MIB + 123;
    const store = newStore();
    const content = post({ privacyLevel: 'PUBLIC_TO_EVERYONE', disableComment: false, coverTimestampMs: 1500 });
    const published = await attempt(client, content, { 'clip.mp4': mp4(size) }, store);
    const [publish] = creatorPublishes(creator);
    expect(publish!.publicId).toMatch(/^7\d{18}$/);
    expect(published).toEqual({
      externalId: publish!.publicId,
      externalUrl: `https://www.tiktok.com/@${creator.username}/video/${publish!.publicId}`,
    });
    expect(publish!.postInfo).toMatchObject({ disable_comment: false, video_cover_timestamp_ms: 1500 });
    const puts = exchangesTo('/video/', 'PUT').slice(-2);
    // Two chunks of 5 MiB: the second takes the trailing bytes.
    expect(puts.map((put) => [put.requestHeaders['content-range'], put.status])).toEqual([
      [`bytes 0-${5 * MIB - 1}/${size}`, 206],
      [`bytes ${5 * MIB}-${size - 1}/${size}`, 201],
    ]);
  });

  it('lets TikTok pull the video from the platform’s media link (PULL_FROM_URL)', async () => {
    const { creator, client } = await account(audited({ videoSource: 'PULL_FROM_URL' }));
    const bytes = mp4(50_000);
    const published = await attempt(
      client,
      post({ privacyLevel: 'FOLLOWER_OF_CREATOR' }),
      { 'clip.mp4': bytes },
      newStore(),
    );
    const [publish] = creatorPublishes(creator);
    expect(publish).toMatchObject({ source: 'PULL_FROM_URL', status: 'PUBLISH_COMPLETE' });
    expect(publish!.data.equals(bytes)).toBe(true);
    expect(published.externalId).toBe(publish!.publicId);
  });

  it('refuses PULL_FROM_URL from a domain not verified with TikTok, saying what the operator does', async () => {
    const { client } = await account(tiktok({ videoSource: 'PULL_FROM_URL' }));
    const refused = (await client
      .publish({
        content: post({ privacyLevel: 'SELF_ONLY' }),
        recordKey: 'r',
        createdAt: new Date(),
        loadMedia: async () => mp4(1000),
        mediaUrl: () => 'https://media.unverified.example/clip.mp4',
        jpegCopy: () => Promise.reject(new Error('TikTok posts videos only')),
        progress: null,
        saveProgress: async () => {},
        heartbeat: () => {},
      })
      .catch((error: unknown) => error)) as ChannelRefusedError;
    expect(refused).toBeInstanceOf(ChannelRefusedError);
    expect(refused.details).toMatchObject({ network: 'tiktok', networkError: 'url_ownership_unverified', status: 403 });
    expect(refused.message).toMatch(/TIKTOK_VIDEO_SOURCE=FILE_UPLOAD/);
  });

  it('sends a draft to the creator’s inbox with the video only', async () => {
    const { creator, client } = await account();
    const published = await attempt(client, post({ asDraft: true }), { 'clip.mp4': mp4(2000) }, newStore());
    const [publish] = creatorPublishes(creator);
    expect(publish).toMatchObject({ mode: 'inbox', status: 'SEND_TO_USER_INBOX', postInfo: null });
    expect(published).toEqual({
      externalId: publish!.publishId,
      externalUrl: `https://www.tiktok.com/@${creator.username}`,
    });
    expect(Object.keys(exchangesTo('/v2/post/publish/inbox/video/init/').at(-1)!.requestBody as object)).toEqual([
      'source_info',
    ]);
  });

  it('refuses to publish a post that breaks TikTok’s rules, before asking TikTok anything', async () => {
    const { client } = await account();
    const before = standin.exchanges.length;
    await expect(attempt(client, post({}), {}, newStore())).rejects.toThrow(ValidationError);
    expect(standin.exchanges.length).toBe(before);
  });

  it('reports a publish TikTok failed, with its reason; a repeated attempt starts a new publish', async () => {
    const { creator, client } = await account();
    const files = { 'clip.mp4': mp4(4000) };
    const store = newStore();
    standin.failNextPublish('frame_rate_check_failed');
    const failed = (await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store).catch(
      (error: unknown) => error,
    )) as ChannelRefusedError;
    expect(failed).toBeInstanceOf(ChannelRefusedError);
    expect(failed.message).toMatch(/23 to 60 frames per second/);
    expect(failed.details).toMatchObject({ networkError: 'frame_rate_check_failed' });

    const published = await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store);
    expect(creatorPublishes(creator).map((publish) => publish.status)).toEqual(['FAILED', 'PUBLISH_COMPLETE']);
    expect(published.externalId).toBe(creatorPublishes(creator)[1]!.publishId);
  });

  it('fails a file TikTok cannot read', async () => {
    const { client } = await account();
    const notVideo = Buffer.alloc(3000, 1);
    await expect(
      attempt(client, post({ privacyLevel: 'SELF_ONLY' }), { 'clip.mp4': notVideo }, newStore()),
    ).rejects.toThrow(/could not read the video file/);
  });
});

describe('exactly once', () => {
  it('initiates again after a lost init answer with FILE_UPLOAD: the first publish never got its file', async () => {
    const killable = killableFetch();
    const { creator, client } = await account(tiktok({ fetch: killable.fetch }));
    const files = { 'clip.mp4': mp4(5000) };
    const store = newStore();
    const held = standin.hold((request) => request.url.pathname === '/v2/post/publish/video/init/');
    const first = attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store).catch((error: unknown) => error);
    await held.arrived;
    killable.kill();
    expect(await first).toBeInstanceOf(UnavailableError);
    held.release();
    killable.revive();
    expect(store.progress).toMatchObject({ source: 'FILE_UPLOAD', initiatedAt: expect.any(String) });
    expect(store.progress).not.toHaveProperty('publishId');

    await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store);
    const publishes = creatorPublishes(creator);
    expect(publishes.map((publish) => [publish.status, publish.data.length])).toEqual([
      ['PROCESSING_UPLOAD', 0],
      ['PUBLISH_COMPLETE', 5000],
    ]);
  });

  it('after a lost answer to the last chunk, polls the saved publish instead of uploading or posting again', async () => {
    const killable = killableFetch();
    const { creator, client } = await account(tiktok({ fetch: killable.fetch }));
    const files = { 'clip.mp4': mp4(6000) };
    const store = newStore();
    const held = standin.hold((request) => request.method === 'PUT' && request.url.pathname === '/video/');
    const first = attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store).catch((error: unknown) => error);
    await held.arrived;
    killable.kill();
    expect(await first).toBeInstanceOf(UnavailableError);
    held.release();
    killable.revive();
    const puts = exchangesTo('/video/', 'PUT').length;
    const inits = exchangesTo('/v2/post/publish/video/init/').length;

    const published = await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store);
    expect(exchangesTo('/video/', 'PUT').length).toBe(puts);
    expect(exchangesTo('/v2/post/publish/video/init/').length).toBe(inits);
    expect(creatorPublishes(creator)).toHaveLength(1);
    expect(published.externalId).toBe(creatorPublishes(creator)[0]!.publishId);
  });

  it('resumes an upload cut off between chunks from the bytes TikTok has', async () => {
    let cutOff = true;
    const cuttingFetch: typeof globalThis.fetch = async (input, init) => {
      const range = new Headers(init?.headers).get('content-range');
      if (cutOff && init?.method === 'PUT' && range && !range.startsWith('bytes 0-')) throw new Error('killed');
      return fetch(input, init);
    };
    const { creator, client } = await account(tiktok({ fetch: cuttingFetch }));
    const size = 11 * MIB;
    const files = { 'clip.mp4': mp4(size) };
    const store = newStore();
    await expect(attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store)).rejects.toBeInstanceOf(
      UnavailableError,
    );
    expect(creatorPublishes(creator)[0]!.data.length).toBe(5 * MIB);
    cutOff = false;
    const puts = exchangesTo('/video/', 'PUT').length;

    await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store);
    const resumed = exchangesTo('/video/', 'PUT').slice(puts);
    expect(resumed.map((put) => put.requestHeaders['content-range'])).toEqual([`bytes ${5 * MIB}-${size - 1}/${size}`]);
    expect(creatorPublishes(creator)).toHaveLength(1);
    expect(creatorPublishes(creator)[0]!.data.equals(files['clip.mp4'])).toBe(true);
  });

  it('after a lost init answer with PULL_FROM_URL, finds the post TikTok made instead of posting it twice', async () => {
    const killable = killableFetch();
    const { creator, client } = await account(audited({ fetch: killable.fetch, videoSource: 'PULL_FROM_URL' }));
    const files = { 'clip.mp4': mp4(7000) };
    const store = newStore();
    const createdAt = new Date(Date.now() - 1000);
    const content = post({ privacyLevel: 'PUBLIC_TO_EVERYONE' });
    const held = standin.hold((request) => request.url.pathname === '/v2/post/publish/video/init/');
    const first = attempt(client, content, files, store, createdAt).catch((error: unknown) => error);
    await held.arrived;
    killable.kill();
    expect(await first).toBeInstanceOf(UnavailableError);
    held.release();
    killable.revive();
    const [made] = await pollUntil(
      async () => creatorPublishes(creator).filter((publish) => publish.publicId),
      (found) => found.length === 1,
      { timeoutMs: 5000, intervalMs: 20, timeoutMessage: 'TikTok never made the pulled post public' },
    );

    const published = await attempt(client, content, files, store, createdAt);
    expect(published).toEqual({
      externalId: made!.publicId,
      externalUrl: `https://www.tiktok.com/@${creator.username}/video/${made!.publicId}`,
    });
    expect(creatorPublishes(creator)).toHaveLength(1);
  });

  it('goes on with the saved publish when processing outlasted an attempt', async () => {
    const adapter = tiktok({ tuning: { pollIntervalMs: 10, processingTimeoutMs: 40, moderationWaitMs: 0 } });
    const { creator, client } = await account(adapter);
    const files = { 'clip.mp4': mp4(3000) };
    const store = newStore();
    standin.processingMs = 400;
    try {
      await expect(attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store)).rejects.toThrow(
        /still processing the video after 0.04 s \(PROCESSING_UPLOAD\)/,
      );
      // The run waits (its back-off) and tries again.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, store);
    } finally {
      standin.processingMs = 30;
    }
    expect(creatorPublishes(creator).map((publish) => publish.status)).toEqual(['PUBLISH_COMPLETE']);
  });
});

describe('limits and outages', () => {
  it('turns TikTok’s 429 into RateLimitedError with the wait (60 s when TikTok names none)', async () => {
    const { client } = await account();
    standin.rateLimitNext(1, 30);
    const named = (await client
      .validate(post({ privacyLevel: 'SELF_ONLY' }))
      .catch((error: unknown) => error)) as RateLimitedError;
    expect(named).toBeInstanceOf(RateLimitedError);
    expect(named.details).toEqual({ retryAfterSeconds: 30 });
    standin.rateLimitNext(1);
    const unnamed = (await client
      .metrics(['7000000000000000001'])
      .catch((error: unknown) => error)) as RateLimitedError;
    expect(unnamed.details).toEqual({ retryAfterSeconds: 60 });
  });

  it('hits the documented 6 publish inits a minute per token, and reports the budget as spent', async () => {
    const { client, quotas } = await account(tiktok({ tuning: { pollIntervalMs: 5, moderationWaitMs: 0 } }));
    const files = { 'clip.mp4': mp4(1000) };
    for (let index = 0; index < 6; index += 1) {
      await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, newStore());
    }
    expect(quotas).toEqual([]);
    const limited = (await attempt(client, post({ privacyLevel: 'SELF_ONLY' }), files, newStore()).catch(
      (error: unknown) => error,
    )) as RateLimitedError;
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect(limited.details).toEqual({ retryAfterSeconds: 60 });
    expect(quotas).toEqual([expect.objectContaining({ policy: '6;w=60', limit: 6, remaining: 0 })]);
  });

  it('turns a 5xx into UnavailableError, for the API and the token endpoint alike', async () => {
    const adapter = tiktok();
    const { identity, client } = await account(adapter);
    standin.failNext(1, 503);
    await expect(client.validate(post({ privacyLevel: 'SELF_ONLY' }))).rejects.toBeInstanceOf(UnavailableError);
    standin.failNext(1, 500);
    await expect(adapter.refresh(identity.credentials)).rejects.toBeInstanceOf(UnavailableError);
  });

  it('turns a network that does not answer into UnavailableError', async () => {
    const unreachable = tiktok({ apiUrl: 'http://127.0.0.1:1' });
    const client = unreachable.client(
      { accessToken: 'a', refreshToken: 'r', openId: 'o', username: 'u', scope: '', refreshExpiresAt: null },
      () => {},
      { kind: null, externalId: 'o', handle: 'u' },
    );
    await expect(client.metrics(['7000000000000000001'])).rejects.toBeInstanceOf(UnavailableError);
  });
});

describe('metrics and deleting', () => {
  it('reads views, likes, comments and shares; what TikTok does not measure is unknown', async () => {
    const { client } = await account(audited());
    const published = await attempt(
      client,
      post({ privacyLevel: 'PUBLIC_TO_EVERYONE' }),
      { 'clip.mp4': mp4(1000) },
      newStore(),
    );
    standin.setEngagement(published.externalId, { views: 1200, likes: 85, comments: 7, shares: 3 });
    const metrics = await client.metrics([published.externalId, '7999999999999999999']);
    expect([...metrics.keys()]).toEqual([published.externalId]);
    expect(metrics.get(published.externalId)).toEqual({
      impressions: null,
      reach: null,
      views: 1200,
      likes: 85,
      reposts: 3,
      replies: 7,
      quotes: null,
      bookmarks: null,
      score: null,
    });
  });

  it('reports a post still in moderation as unknown, then its engagement once TikTok made it public', async () => {
    const { client } = await account(audited());
    standin.moderationMs = null;
    let published;
    try {
      published = await attempt(
        client,
        post({ privacyLevel: 'PUBLIC_TO_EVERYONE' }),
        { 'clip.mp4': mp4(1000) },
        newStore(),
      );
    } finally {
      standin.moderationMs = 0;
    }
    expect(published.externalId).toMatch(/^v_pub_file~/);
    const pending = await client.metrics([published.externalId]);
    expect(Object.values(pending.get(published.externalId)!).every((value) => value === null)).toBe(true);

    const postId = standin.makePublic(published.externalId);
    standin.setEngagement(postId, { views: 40, likes: 4 });
    const counted = await client.metrics([published.externalId]);
    expect(counted.get(published.externalId)).toMatchObject({ views: 40, likes: 4, replies: 0, reposts: 0 });
  });

  it('cannot delete a published video through TikTok’s API, and says where to do it', async () => {
    const { client, creator } = await account();
    const refused = (await client
      .remove('7000000000000000001')
      .catch((error: unknown) => error)) as ChannelRefusedError;
    expect(refused).toBeInstanceOf(ChannelRefusedError);
    expect(refused.details).toEqual({ network: 'tiktok', networkError: 'delete_not_supported', status: 0 });
    expect(refused.message).toMatch(new RegExp(`delete it in the TikTok app.*@${creator.username}`));
  });

  it('makes a fresh record key for every post', () => {
    const adapter = tiktok();
    const keys = new Set(Array.from({ length: 50 }, () => adapter.newRecordKey(new Date())));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^[a-z2-7]{16}$/);
  });
});

describe('the exchanges', () => {
  it('all kept to TikTok’s specification', () => {
    expect(standin.exchanges.length).toBeGreaterThan(50);
    expect(standin.violations).toEqual([]);
  });
});
