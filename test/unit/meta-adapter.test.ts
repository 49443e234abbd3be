/**
 * The Meta adapter (Facebook Pages and Instagram) against the Meta stand-in, over real HTTP on loopback:
 * Facebook Login with PKCE, token renewal and its refusal, validation (offline and live, Instagram's typical
 * refusals), every kind of post on both networks, exactly-once publishing after a lost answer and after saved
 * progress, rate limits, outages, metrics and deletion. Media the networks fetch themselves (Instagram, Page
 * videos) are served by a real media server, as the platform's public media URLs are.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { convertToJpeg } from '../../src/domain/creative/video/ffmpeg.ts';
import { ChannelRefusedError, RateLimitedError, UnavailableError, ValidationError } from '../../src/errors.ts';
import type { ChannelQuota } from '../../src/domain/channels/channel-account.entity.ts';
import {
  CredentialsRefusedError,
  type AccountContext,
  type ChannelAdapter,
  type ConnectedIdentity,
  type NetworkClient,
  type PostContent,
  type PublishProgress,
} from '../../src/domain/channels/channel-adapter.ts';
import type { PostMedia } from '../../src/domain/channels/channel-post.entity.ts';
import { createMetaAdapter, META_RULES } from '../../src/domain/channels/meta/meta-adapter.ts';
import { quotaOf } from '../../src/domain/channels/meta/meta-graph.ts';
import { startMetaStandin, type MetaStandin } from '../support/standins/meta-standin.ts';

/** A 1×1 baseline JPEG. */
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const PNG_BYTES = PNG.sync.write(new PNG({ width: 2, height: 2 }));
/** The first box of an MP4 file (the stand-ins fetch videos; nothing decodes them). */
const MP4 = Buffer.concat([
  Buffer.from('0000001c667479706d703432', 'hex'),
  Buffer.from('mp42isommp42'),
  randomBytes(64),
]);
const REDIRECT_URI = 'https://platform.example.com/dashboard/channels/callback/meta';

let standin: MetaStandin;
let mediaServer: http.Server;
let mediaOrigin: string;
const mediaFiles = new Map<string, { bytes: Buffer; type: string }>([
  ['renders/a.jpg', { bytes: JPEG, type: 'image/jpeg' }],
  ['renders/b.jpg', { bytes: JPEG, type: 'image/jpeg' }],
  ['renders/c.png', { bytes: PNG_BYTES, type: 'image/png' }],
  ['renders/film.mp4', { bytes: MP4, type: 'video/mp4' }],
]);
const mediaRequests: string[] = [];

function adapterFor(overrides: Partial<Parameters<typeof createMetaAdapter>[0]> = {}): ChannelAdapter {
  return createMetaAdapter({
    appId: standin.appId,
    appSecret: standin.appSecret,
    graphUrl: standin.url,
    dialogUrl: standin.url,
    fetch: globalThis.fetch,
    polling: { intervalMs: 10, timeoutMs: 5_000 },
    ...overrides,
  });
}

beforeAll(async () => {
  standin = await startMetaStandin({ processingMs: 40 });
  mediaServer = http.createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? '').replace(/^\/media\//, '').split('?')[0]!);
    mediaRequests.push(key);
    const file = mediaFiles.get(key);
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length }).end(file.bytes);
  });
  await new Promise<void>((resolve) => mediaServer.listen(0, '127.0.0.1', resolve));
  mediaOrigin = `http://127.0.0.1:${(mediaServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  mediaServer.closeAllConnections();
  await new Promise<void>((resolve) => mediaServer.close(() => resolve()));
  await standin.close();
});

function pkce() {
  const codeVerifier = randomBytes(48).toString('base64url');
  return { codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}

/** Facebook Login through the stand-in's consent page: the identities the platform would store. */
async function connect(adapter = adapterFor(), state = randomBytes(12).toString('base64url')) {
  const { codeVerifier, codeChallenge } = pkce();
  const url = adapter.oauth!.authorizationUrl({ state, redirectUri: REDIRECT_URI, codeChallenge });
  const redirect = new URL(await standin.authorize(url));
  expect(redirect.searchParams.get('state')).toBe(state);
  const code = redirect.searchParams.get('code')!;
  const identities = await adapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier });
  return { identities, code, codeVerifier };
}

function accountOf(identity: ConnectedIdentity): AccountContext {
  return { kind: identity.kind ?? null, externalId: identity.externalId, handle: identity.handle };
}

function media(key: string, overrides: Partial<PostMedia> = {}): PostMedia {
  const file = mediaFiles.get(key)!;
  const video = file.type.startsWith('video/');
  return {
    key,
    mimeType: file.type,
    bytes: file.bytes.length,
    width: video ? 1080 : 1080,
    height: video ? 1920 : 1080,
    alt: video ? '' : 'A red running shoe on a white background',
    durationSeconds: video ? 12 : null,
    sourceJobId: null,
    ...overrides,
  };
}

function content(overrides: Partial<PostContent> = {}): PostContent {
  return {
    text: 'Spring sale: 20% off every running shoe',
    link: null,
    media: [],
    langs: [],
    options: {},
    ...overrides,
  };
}

const LINK = {
  url: 'https://acme.sites.example.com/_cp/go?c=cmp_1&v=var_1&p=pst_1',
  display: 'acme.example.com/spring',
};

/** A publish with an in-memory progress store, as the framework runs it. */
function publishInput(post: PostContent, store: { progress: PublishProgress | null } = { progress: null }) {
  const heartbeats = { count: 0 };
  return {
    store,
    heartbeats,
    input: {
      content: post,
      recordKey: 'rk',
      createdAt: new Date(),
      loadMedia: async (key: string) => mediaFiles.get(key)!.bytes,
      mediaUrl: (key: string) => `${mediaOrigin}/media/${encodeURIComponent(key)}`,
      // As the platform does it (media/jpeg-copies.ts): a real JPEG made with ffmpeg, stored beside the original.
      jpegCopy: async (key: string) => {
        const copy = `${key}.jpg`;
        if (!mediaFiles.has(copy)) {
          mediaFiles.set(copy, { bytes: await convertToJpeg(mediaFiles.get(key)!.bytes), type: 'image/jpeg' });
        }
        return copy;
      },
      progress: store.progress,
      saveProgress: async (progress: PublishProgress) => {
        store.progress = progress;
      },
      heartbeat: () => {
        heartbeats.count++;
      },
    },
  };
}

let adapter: ChannelAdapter;
let page: ConnectedIdentity;
let instagram: ConnectedIdentity;
let pageClient: NetworkClient;
let igClient: NetworkClient;
const quotas: ChannelQuota[] = [];

beforeAll(async () => {
  adapter = adapterFor();
  [page, instagram] = (await connect(adapter)).identities as [ConnectedIdentity, ConnectedIdentity];
  pageClient = adapter.client(page.credentials, (quota) => quotas.push(quota), accountOf(page));
  igClient = adapter.client(instagram.credentials, (quota) => quotas.push(quota), accountOf(instagram));
});

describe('connecting with Facebook Login', () => {
  it('asks Meta for the Pages and Instagram scopes, with PKCE', () => {
    const url = new URL(
      adapterFor().oauth!.authorizationUrl({ state: 's1', redirectUri: REDIRECT_URI, codeChallenge: 'c'.repeat(43) }),
    );
    expect(url.pathname).toBe('/v24.0/dialog/oauth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: standin.appId,
      redirect_uri: REDIRECT_URI,
      state: 's1',
      scope:
        'pages_show_list,pages_read_engagement,pages_manage_posts,read_insights,instagram_basic,instagram_content_publish,instagram_manage_insights,business_management',
      response_type: 'code',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
  });

  it('shows a consent page a browser can submit, naming the app and the scopes', async () => {
    const url = adapterFor().oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge: 'x' });
    const html = await (await fetch(url)).text();
    expect(html).toContain('Campaign Platform is requesting access to:');
    expect(html).toContain('<li>instagram_content_publish</li>');
    expect(html).toMatch(/<button type="submit" name="decision" value="allow">Continue as Alex Example<\/button>/);
    expect(html).toMatch(/<button type="submit" name="decision" value="cancel">Cancel<\/button>/);
  });

  it('turns one sign-in into an account per Page and per linked Instagram account', async () => {
    const before = Date.now();
    const { identities } = await connect();
    expect(
      identities.map(({ kind, handle, displayName, externalId }) => ({ kind, handle, displayName, externalId })),
    ).toEqual([
      { kind: 'facebook_page', handle: 'acmeshoes', displayName: 'Acme Shoes', externalId: '104000000000001' },
      { kind: 'instagram', handle: 'acme.shoes', displayName: 'Acme Shoes', externalId: '17841400000000001' },
      { kind: 'facebook_page', handle: 'Acme Outlet', displayName: 'Acme Outlet', externalId: '104000000000002' },
    ]);
    // The long-lived user token's ~60 days are when the account must be renewed.
    const expiry = identities[0]!.accessExpiresAt!.getTime();
    expect(expiry - before).toBeGreaterThan(59 * 86_400_000);
    expect(identities[1]!.credentials).toMatchObject({ pageId: '104000000000001', igUserId: '17841400000000001' });
    expect(identities[0]!.credentials.pageAccessToken).toMatch(/^EAA/);
  });

  it('refuses a code used twice, and a code whose PKCE verifier does not match', async () => {
    const { code, codeVerifier } = await connect();
    await expect(
      adapterFor().oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier }),
    ).rejects.toThrow(/Meta refused the sign-in \(This authorization code has been used\.\)/);

    const { codeChallenge } = pkce();
    const url = adapterFor().oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
    const fresh = new URL(await standin.authorize(url)).searchParams.get('code')!;
    const wrong = adapterFor().oauth!.completeAuthorization({
      code: fresh,
      redirectUri: REDIRECT_URI,
      codeVerifier: pkce().codeVerifier,
    });
    await expect(wrong).rejects.toBeInstanceOf(ValidationError);
    await expect(wrong).rejects.toThrow(/Invalid code verifier/);
  });

  it('refuses a code that expired, or one asked for with another redirect URI', async () => {
    const quick = await startMetaStandin({ codeTtlMs: 1 });
    try {
      const quickAdapter = createMetaAdapter({
        appId: quick.appId,
        appSecret: quick.appSecret,
        graphUrl: quick.url,
        dialogUrl: quick.url,
        fetch: globalThis.fetch,
      });
      const { codeVerifier, codeChallenge } = pkce();
      const url = quickAdapter.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
      const code = new URL(await quick.authorize(url)).searchParams.get('code')!;
      await new Promise((resolve) => setTimeout(resolve, 10));
      await expect(
        quickAdapter.oauth!.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier }),
      ).rejects.toThrow(/This authorization code has expired/);
      expect(quick.violations).toEqual([]);
    } finally {
      await quick.close();
    }
    const { codeVerifier, codeChallenge } = pkce();
    const url = adapterFor().oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge });
    const code = new URL(await standin.authorize(url)).searchParams.get('code')!;
    await expect(
      adapterFor().oauth!.completeAuthorization({
        code,
        redirectUri: 'https://elsewhere.example.com/cb',
        codeVerifier,
      }),
    ).rejects.toThrow(/redirect_uri is identical/);
  });

  it('sends a person who pressed Cancel back with access_denied and the state', async () => {
    const url = adapterFor().oauth!.authorizationUrl({ state: 'st-9', redirectUri: REDIRECT_URI, codeChallenge: 'x' });
    const redirect = new URL(await standin.authorize(url, undefined, 'cancel'));
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('st-9');
    expect(redirect.searchParams.get('code')).toBeNull();
  });

  it('is not configured without an app id and secret, and says which variables to set', async () => {
    const unconfigured = adapterFor({ appId: '', appSecret: '' });
    expect(unconfigured.oauth!.configured).toBe(false);
    expect(() =>
      unconfigured.oauth!.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge: 'x' }),
    ).toThrow(/META_APP_ID and META_APP_SECRET/);
    await expect(
      unconfigured.oauth!.completeAuthorization({ code: 'c', redirectUri: REDIRECT_URI, codeVerifier: 'v' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('validation', () => {
  const instagramAccount = () => accountOf(instagram);
  const pageAccount = () => accountOf(page);

  it('refuses an Instagram post without media, offline and live', async () => {
    const offline = adapter.validateOffline(content(), instagramAccount());
    expect(offline.valid).toBe(false);
    expect(offline.issues).toEqual([
      expect.objectContaining({
        field: 'media',
        rule: 'media_required',
        message: expect.stringMatching(/need an image or a video/),
      }),
    ]);
    const live = await igClient.validate(content());
    expect(live.issues.map((issue) => issue.rule)).toEqual(['media_required']);
    // The live check also read Instagram's own count of API posts.
    expect(standin.exchanges.some((exchange) => exchange.url.includes('/content_publishing_limit'))).toBe(true);
  });

  it("states Instagram's own limits: JPEG (or PNG, sent as JPEG), 4:5–1.91:1, 2,200 characters, 30 hashtags, 10 items", () => {
    const png = adapter.validateOffline(content({ media: [media('renders/c.png')] }), instagramAccount());
    expect(png.issues).toEqual([]);
    const webp = adapter.validateOffline(
      content({ media: [media('renders/c.png', { mimeType: 'image/webp' })] }),
      instagramAccount(),
    );
    expect(webp.issues).toEqual([
      expect.objectContaining({
        field: 'media.0',
        rule: 'image_format_not_supported',
        message: expect.stringMatching(/JPEG images \(the platform converts PNG\).*WEBP/),
      }),
    ]);
    const tall = adapter.validateOffline(
      content({ media: [media('renders/a.jpg', { width: 1080, height: 1920 })] }),
      instagramAccount(),
    );
    expect(tall.issues.map((issue) => issue.rule)).toEqual(['aspect_ratio_not_supported']);
    // A 9:16 image is fine as a story.
    const story = content({
      media: [media('renders/a.jpg', { width: 1080, height: 1920 })],
      options: { instagramMediaType: 'story' },
    });
    expect(adapter.validateOffline(story, instagramAccount()).valid).toBe(true);
    const long = adapter.validateOffline(
      content({ text: 'x'.repeat(2_201), media: [media('renders/a.jpg')] }),
      instagramAccount(),
    );
    expect(long.issues.map((issue) => issue.rule)).toEqual(['text_too_long']);
    const tags = Array.from({ length: 31 }, (_, index) => `#tag${index}`).join(' ');
    const tagged = adapter.validateOffline(
      content({ text: tags, media: [media('renders/a.jpg')] }),
      instagramAccount(),
    );
    expect(tagged.issues.map((issue) => issue.rule)).toEqual(['too_many_hashtags']);
    const eleven = Array.from({ length: 11 }, () => media('renders/a.jpg'));
    expect(
      adapter.validateOffline(content({ media: eleven }), instagramAccount()).issues.map((issue) => issue.rule),
    ).toEqual(['too_many_images']);
  });

  it('previews an Instagram caption with the attributed link as text, and warns it is not clickable', () => {
    const result = adapter.validateOffline(
      content({ text: 'New in #running', link: LINK, media: [media('renders/a.jpg')] }),
      instagramAccount(),
    );
    expect(result.valid).toBe(true);
    expect(result.preview).toMatchObject({ text: `New in #running\n\n${LINK.url}`, limit: 2_200, unit: 'characters' });
    expect(result.preview.facets.map((facet) => [facet.kind, facet.text])).toEqual([
      ['tag', '#running'],
      ['link', LINK.url],
    ]);
    expect(result.warnings.map((warning) => warning.rule)).toEqual(['link_not_clickable']);
  });

  it('checks a Page post: 63,206 characters, a link card for text, the link in the message of a photo', () => {
    const text = adapter.validateOffline(content({ link: LINK }), pageAccount());
    expect(text).toMatchObject({
      valid: true,
      preview: { text: 'Spring sale: 20% off every running shoe', limit: 63_206 },
    });
    const photo = adapter.validateOffline(content({ link: LINK, media: [media('renders/c.png')] }), pageAccount());
    expect(photo.valid).toBe(true);
    expect(photo.preview.text).toBe(`Spring sale: 20% off every running shoe\n\n${LINK.url}`);
    const long = adapter.validateOffline(content({ text: 'y'.repeat(63_207) }), pageAccount());
    expect(long.issues).toEqual([
      expect.objectContaining({ rule: 'text_too_long', message: expect.stringMatching(/shorten it by 1/) }),
    ]);
    const noAlt = adapter.validateOffline(content({ media: [media('renders/a.jpg', { alt: ' ' })] }), pageAccount());
    expect(noAlt.issues.map((issue) => [issue.field, issue.rule])).toEqual([['media.0.alt', 'alt_text_missing']]);
    const mixed = adapter.validateOffline(
      content({ media: [media('renders/a.jpg'), media('renders/film.mp4')] }),
      pageAccount(),
    );
    expect(mixed.issues.map((issue) => issue.rule)).toEqual(['mixed_media']);
  });

  it('refuses options it does not know the values of', () => {
    const result = adapter.validateOffline(
      content({ media: [media('renders/a.jpg')], options: { instagramMediaType: 'carousel' } }),
      instagramAccount(),
    );
    expect(result.issues.map((issue) => [issue.field, issue.rule])).toEqual([['instagramMediaType', 'invalid_option']]);
    expect(adapter.postOptions.safeParse({ instagramMediaType: 'reels', instagramShareToFeed: false }).success).toBe(
      true,
    );
    expect(META_RULES.postsPer24h).toEqual({ instagram: 50 });
  });
});

describe('publishing to a Facebook Page', () => {
  it('posts text with the attributed link as a link card', async () => {
    const { input } = publishInput(content({ link: LINK }));
    const result = await pageClient.publish(input);
    expect(result.externalId).toMatch(/^104000000000001_\d+$/);
    expect(result.externalUrl).toMatch(/^https:\/\/www\.facebook\.com\/104000000000001\/posts\/\d+$/);
    const post = standin.posts().find((item) => item.id === result.externalId)!;
    expect(post).toMatchObject({ kind: 'status', text: 'Spring sale: 20% off every running shoe', link: LINK.url });
  });

  it('uploads one photo with its bytes, its alt text and the link in the message', async () => {
    const { input } = publishInput(content({ text: 'One shoe', link: LINK, media: [media('renders/a.jpg')] }));
    const result = await pageClient.publish(input);
    const post = standin.posts().find((item) => item.id === result.externalId)!;
    expect(post).toMatchObject({ kind: 'photo', text: `One shoe\n\n${LINK.url}` });
    expect(post.media).toEqual([
      {
        type: 'image',
        bytes: JPEG.length,
        contentType: 'image/jpeg',
        url: null,
        alt: 'A red running shoe on a white background',
      },
    ]);
  });

  it('uploads several photos unpublished, then posts them together, saving each photo id first', async () => {
    const { input, store } = publishInput(
      content({ text: 'Two shoes', media: [media('renders/a.jpg'), media('renders/c.png')] }),
    );
    const result = await pageClient.publish(input);
    const post = standin.posts().find((item) => item.id === result.externalId)!;
    expect(post.kind).toBe('album');
    expect(post.media.map((item) => item.contentType)).toEqual(['image/jpeg', 'image/png']);
    expect((store.progress as { photoIds: string[] }).photoIds).toHaveLength(2);
  });

  it('posts a video Meta fetches from the media URL, waiting for it to be processed', async () => {
    const { input, heartbeats } = publishInput(content({ text: 'The film', media: [media('renders/film.mp4')] }));
    const result = await pageClient.publish(input);
    expect(result.externalUrl).toMatch(/^https:\/\/www\.facebook\.com\/104000000000001\/videos\/\d+\/$/);
    const post = standin.posts().find((item) => item.id === result.externalId)!;
    expect(post).toMatchObject({ kind: 'video', text: 'The film' });
    expect(post.media[0]).toMatchObject({
      type: 'video',
      bytes: MP4.length,
      url: `${mediaOrigin}/media/renders%2Ffilm.mp4`,
    });
    expect(heartbeats.count).toBeGreaterThan(0);
  });

  it("refuses with Meta's message when Meta refuses the content", async () => {
    standin.refuseContentNext();
    const attempt = pageClient.publish(publishInput(content({ text: 'Too good to be true' })).input);
    await expect(attempt).rejects.toBeInstanceOf(ChannelRefusedError);
    await expect(attempt).rejects.toThrow(/deemed abusive.*Community Standards/);
  });
});

describe('publishing to Instagram', () => {
  it('publishes an image from its public URL: container, processing, media_publish', async () => {
    const { input, store, heartbeats } = publishInput(
      content({ text: 'New in #running', link: LINK, media: [media('renders/a.jpg')] }),
    );
    const result = await igClient.publish(input);
    expect(result.externalUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    const post = standin.posts().find((item) => item.id === result.externalId)!;
    expect(post).toMatchObject({ network: 'instagram', kind: 'image', text: `New in #running\n\n${LINK.url}` });
    expect(post.media).toEqual([
      {
        type: 'image',
        bytes: JPEG.length,
        contentType: 'image/jpeg',
        url: `${mediaOrigin}/media/renders%2Fa.jpg`,
        alt: 'A red running shoe on a white background',
      },
    ]);
    expect(store.progress).toEqual({ container: expect.any(String), mediaId: result.externalId });
    expect(heartbeats.count).toBeGreaterThan(0);
  });

  it('publishes a carousel of images and a video, a reel, and a story', async () => {
    const carousel = await igClient.publish(
      publishInput(
        content({
          text: 'Three looks',
          media: [media('renders/a.jpg'), media('renders/b.jpg'), media('renders/film.mp4')],
        }),
      ).input,
    );
    const reel = await igClient.publish(
      publishInput(
        content({ text: 'Watch', media: [media('renders/film.mp4')], options: { instagramShareToFeed: false } }),
      ).input,
    );
    const story = await igClient.publish(
      publishInput(
        content({ text: 'not shown', media: [media('renders/a.jpg')], options: { instagramMediaType: 'story' } }),
      ).input,
    );
    const byId = (id: string) => standin.posts().find((item) => item.id === id)!;
    expect(byId(carousel.externalId)).toMatchObject({ kind: 'carousel', text: 'Three looks' });
    expect(byId(carousel.externalId).media.map((item) => item.type)).toEqual(['image', 'image', 'video']);
    expect(byId(reel.externalId)).toMatchObject({ kind: 'reel', text: 'Watch' });
    expect(reel.externalUrl).toMatch(/\/reel\//);
    expect(byId(story.externalId)).toMatchObject({ kind: 'story', text: '' });
    const reelRequest = standin.exchanges.find(
      (exchange) =>
        exchange.method === 'POST' && (exchange.requestBody as { media_type?: string })?.media_type === 'REELS',
    )!;
    expect(reelRequest.requestBody).toMatchObject({ share_to_feed: false, caption: 'Watch' });
  });

  it('sends a PNG render as its JPEG copy (Instagram takes image_url only as JPEG)', async () => {
    const published = await igClient.publish(publishInput(content({ media: [media('renders/c.png')] })).input);
    expect(published.externalId).toBeTruthy();
    // Instagram fetched the copy, a real JPEG (its first bytes are the JPEG SOI marker).
    expect(mediaRequests).toContain('renders/c.png.jpg');
    expect(mediaRequests).not.toContain('renders/c.png');
    expect(mediaFiles.get('renders/c.png.jpg')!.bytes.subarray(0, 2).toString('hex')).toBe('ffd8');
  });

  it('refuses with the status when a container ends in ERROR; a later attempt makes a new one', async () => {
    standin.failContainersNext(1, 'ERROR');
    const text = `Errored once ${randomBytes(4).toString('hex')}`;
    const first = publishInput(content({ text, media: [media('renders/a.jpg')] }));
    const attempt = igClient.publish(first.input);
    await expect(attempt).rejects.toBeInstanceOf(ChannelRefusedError);
    await expect(attempt).rejects.toThrow(/Instagram could not take the media \(ERROR: Error: Media upload has failed/);
    const failed = (first.store.progress as { container: string }).container;
    const retried = publishInput(content({ text, media: [media('renders/a.jpg')] }), first.store);
    await igClient.publish(retried.input);
    expect((retried.store.progress as { container: string }).container).not.toBe(failed);
    expect(standin.posts().filter((item) => item.text === text)).toHaveLength(1);
  });
});

describe('exactly once', () => {
  const count = (text: string) => standin.posts().filter((item) => item.text === text && !item.deleted).length;

  it('finds the Page post whose answer was lost instead of posting it twice', async () => {
    const text = `Lost answer ${randomBytes(4).toString('hex')}`;
    const held = standin.hold((request) => request.method === 'POST' && request.url.pathname.endsWith('/feed'));
    const first = publishInput(content({ text, link: LINK }));
    const dead = { progress: null as PublishProgress | null, alive: true };
    const firstAttempt = pageClient.publish({
      ...first.input,
      saveProgress: async (progress) => {
        if (dead.alive) dead.progress = progress;
      },
    });
    await held.arrived;
    dead.alive = false; // the worker is gone: nothing it does from here on is saved
    expect(dead.progress).toEqual({ creating: 'feed' });
    expect(count(text)).toBe(1);

    const second = publishInput(content({ text, link: LINK }), { progress: dead.progress });
    second.input.createdAt = first.input.createdAt;
    const result = await pageClient.publish(second.input);
    expect(count(text)).toBe(1);
    expect(result.externalId).toBe(standin.posts().find((item) => item.text === text)!.id);
    held.release();
    await firstAttempt;
  });

  it('finds the Instagram post a published container made when the publish answer was lost', async () => {
    const text = `IG lost answer ${randomBytes(4).toString('hex')}`;
    const held = standin.hold((request) => request.url.pathname.endsWith('/media_publish'));
    const first = publishInput(content({ text, media: [media('renders/a.jpg')] }));
    const firstAttempt = igClient.publish(first.input);
    await held.arrived;
    const saved = { ...first.store.progress } as PublishProgress;
    expect(saved).toEqual({ container: expect.any(String) });

    const second = publishInput(content({ text, media: [media('renders/a.jpg')] }), { progress: saved });
    second.input.createdAt = first.input.createdAt;
    const result = await igClient.publish(second.input);
    expect(count(text)).toBe(1);
    expect(result.externalId).toBe(standin.posts().find((item) => item.text === text)!.id);
    held.release();
    await firstAttempt.catch(() => undefined);
  });

  it('finds a Page video and an Instagram story whose answers were lost', async () => {
    const text = `Video lost ${randomBytes(4).toString('hex')}`;
    const heldVideo = standin.hold((request) => request.method === 'POST' && request.url.pathname.endsWith('/videos'));
    const first = publishInput(content({ text, media: [media('renders/film.mp4')] }));
    const firstVideo = pageClient.publish(first.input);
    await heldVideo.arrived;
    const second = publishInput(content({ text, media: [media('renders/film.mp4')] }), { ...first.store });
    second.input.createdAt = first.input.createdAt;
    const video = await pageClient.publish(second.input);
    expect(
      standin
        .posts()
        .filter((item) => item.text === text)
        .map((item) => item.id),
    ).toEqual([video.externalId]);
    heldVideo.release();
    await firstVideo.catch(() => undefined);

    const storiesBefore = standin.posts().filter((item) => item.kind === 'story').length;
    const heldStory = standin.hold((request) => request.url.pathname.endsWith('/media_publish'));
    const story = content({ media: [media('renders/b.jpg')], options: { instagramMediaType: 'story' } });
    const firstStory = publishInput(story);
    const firstAttempt = igClient.publish(firstStory.input);
    await heldStory.arrived;
    const retried = publishInput(story, { ...firstStory.store });
    retried.input.createdAt = firstStory.input.createdAt;
    const result = await igClient.publish(retried.input);
    const stories = standin.posts().filter((item) => item.kind === 'story');
    expect(stories).toHaveLength(storiesBefore + 1);
    expect(result.externalId).toBe(stories.at(-1)!.id);
    heldStory.release();
    await firstAttempt.catch(() => undefined);
  });

  it('resumes from saved progress: the container is not made again', async () => {
    const text = `IG resumed ${randomBytes(4).toString('hex')}`;
    const first = publishInput(content({ text, media: [media('renders/a.jpg'), media('renders/b.jpg')] }));
    const crash = new Error('worker killed after saving the carousel');
    await expect(
      igClient.publish({
        ...first.input,
        saveProgress: async (progress) => {
          first.store.progress = progress;
          if (progress.container) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    const containersBefore = standin.exchanges.filter(
      (exchange) => exchange.method === 'POST' && exchange.url.endsWith('/media'),
    ).length;

    const second = publishInput(content({ text, media: [media('renders/a.jpg'), media('renders/b.jpg')] }), {
      progress: first.store.progress,
    });
    const result = await igClient.publish(second.input);
    const containersAfter = standin.exchanges.filter(
      (exchange) => exchange.method === 'POST' && exchange.url.endsWith('/media'),
    ).length;
    expect(containersAfter).toBe(containersBefore);
    expect(count(text)).toBe(1);
    expect(result.externalId).toBe(second.store.progress!.mediaId);
  });

  it('uploads only the photos an interrupted album had not uploaded yet', async () => {
    const text = `Album resumed ${randomBytes(4).toString('hex')}`;
    const photos = () =>
      standin.exchanges.filter((exchange) => exchange.method === 'POST' && exchange.url.endsWith('/photos')).length;
    const before = photos();
    const first = publishInput(content({ text, media: [media('renders/a.jpg'), media('renders/b.jpg')] }));
    const crash = new Error('worker killed after the first photo');
    await expect(
      pageClient.publish({
        ...first.input,
        saveProgress: async (progress) => {
          first.store.progress = progress;
          throw crash;
        },
      }),
    ).rejects.toBe(crash);
    expect(first.store.progress).toEqual({ photoIds: [expect.any(String)] });
    await pageClient.publish(
      publishInput(content({ text, media: [media('renders/a.jpg'), media('renders/b.jpg')] }), first.store).input,
    );
    expect(photos() - before).toBe(2);
    expect(count(text)).toBe(1);
  });

  it('starts over when the saved container expired unpublished', async () => {
    const text = `IG expired ${randomBytes(4).toString('hex')}`;
    const first = publishInput(content({ text, media: [media('renders/a.jpg')] }));
    await expect(
      igClient.publish({
        ...first.input,
        saveProgress: async (progress) => {
          first.store.progress = progress;
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    standin.expireContainers();
    const result = await igClient.publish(
      publishInput(content({ text, media: [media('renders/a.jpg')] }), first.store).input,
    );
    expect(count(text)).toBe(1);
    expect(result.externalId).toEqual(expect.any(String));
  });
});

describe('limits and outages', () => {
  it("is rate-limited for as long as Meta's usage header says", async () => {
    standin.rateLimitNext(1, 120);
    const attempt = pageClient.metrics([standin.posts().find((item) => item.network === 'facebook')!.id]);
    await expect(attempt).rejects.toBeInstanceOf(RateLimitedError);
    await expect(attempt).rejects.toMatchObject({ details: { retryAfterSeconds: 120 } });
    expect(quotas.at(-1)).toMatchObject({ limit: 100, remaining: 0, policy: 'pages;percent;w=3600' });
  });

  it('reads every answer’s usage as the quota', () => {
    const headers = new Headers({
      'x-app-usage': '{"call_count":28,"total_time":25,"total_cputime":25}',
      'x-business-use-case-usage':
        '{"104":[{"type":"pages","call_count":40,"total_cputime":5,"total_time":5,"estimated_time_to_regain_access":0}]}',
    });
    const now = new Date('2026-11-27T10:00:00.000Z');
    expect(quotaOf(headers, now)).toEqual({
      policy: 'pages;percent;w=3600',
      limit: 100,
      remaining: 60,
      resetAt: '2026-11-27T11:00:00.000Z',
      observedAt: now.toISOString(),
    });
    expect(quotaOf(new Headers(), now)).toBeNull();
  });

  it('is unavailable when Meta does not answer in time', async () => {
    const slow = adapterFor({ requestTimeoutMs: 200 }).client(page.credentials, () => undefined, accountOf(page));
    const held = standin.hold((request) => request.url.pathname.endsWith('/insights'));
    const attempt = slow.metrics([standin.posts().find((item) => item.network === 'facebook')!.id]);
    await held.arrived;
    await expect(attempt).rejects.toBeInstanceOf(UnavailableError);
    await expect(attempt).rejects.toThrow(/Meta did not answer when asked to read the post’s insights/);
    held.release();
  });

  it('is unavailable when Meta fails', async () => {
    standin.failNext(1, 503);
    await expect(pageClient.publish(publishInput(content({ text: 'During an outage' })).input)).rejects.toBeInstanceOf(
      UnavailableError,
    );
    expect(standin.posts().some((item) => item.text === 'During an outage')).toBe(false);
  });
});

describe('metrics', () => {
  it('reads a Page post’s impressions, reach, reactions, comments and shares', async () => {
    const { externalId } = await pageClient.publish(publishInput(content({ text: 'Measured' })).input);
    standin.setEngagement(externalId, { impressions: 900, reach: 700, reactions: 42, comments: 7, shares: 3 });
    const metrics = await pageClient.metrics([externalId, '104000000000001_999999']);
    expect([...metrics.keys()]).toEqual([externalId]);
    expect(metrics.get(externalId)).toEqual({
      impressions: 900,
      reach: 700,
      views: null,
      likes: 42,
      reposts: 3,
      replies: 7,
      quotes: null,
      bookmarks: null,
      score: null,
    });
  });

  it('reports a metric Meta refuses as unknown, and an unshared post as 0 shares', async () => {
    const { externalId } = await pageClient.publish(publishInput(content({ text: 'Measured again' })).input);
    standin.setEngagement(externalId, { impressions: 10, reach: 8, reactions: 1 });
    standin.retireMetric('post_impressions');
    const counts = (await pageClient.metrics([externalId])).get(externalId)!;
    expect(counts).toMatchObject({ impressions: null, reach: 8, likes: 1, reposts: 0, replies: 0 });
  });

  it('reads Instagram reach, likes, comments, shares, saves and views; impressions stay unknown', async () => {
    const { externalId } = await igClient.publish(
      publishInput(content({ text: 'IG measured', media: [media('renders/a.jpg')] })).input,
    );
    standin.setEngagement(externalId, { reach: 500, likes: 60, comments: 4, shares: 2, saved: 9, views: 800 });
    expect((await igClient.metrics([externalId])).get(externalId)).toEqual({
      impressions: null,
      reach: 500,
      views: 800,
      likes: 60,
      reposts: 2,
      replies: 4,
      quotes: null,
      bookmarks: 9,
      score: null,
    });
    const story = standin.posts().find((item) => item.kind === 'story')!;
    standin.setEngagement(story.id, { reach: 30, views: 40, shares: 1 });
    expect((await igClient.metrics([story.id])).get(story.id)).toMatchObject({
      reach: 30,
      views: 40,
      reposts: 1,
      likes: null,
      replies: null,
      bookmarks: null,
    });
  });
});

describe('deleting', () => {
  it('deletes a Page post and an Instagram post; deleting again is not an error', async () => {
    const fb = await pageClient.publish(publishInput(content({ text: 'Short-lived' })).input);
    const ig = await igClient.publish(
      publishInput(content({ text: 'Short-lived IG', media: [media('renders/a.jpg')] })).input,
    );
    await pageClient.remove(fb.externalId);
    await igClient.remove(ig.externalId);
    await pageClient.remove(fb.externalId);
    const deleted = standin.posts().filter((item) => [fb.externalId, ig.externalId].includes(item.id));
    expect(deleted.map((item) => item.deleted)).toEqual([true, true]);
    expect((await pageClient.metrics([fb.externalId])).size).toBe(0);
  });
});

describe("Instagram's 50 posts a day", () => {
  it('warns when validating, and waits when publishing, once Meta counts the 24 hours full', async () => {
    const published = standin.posts().filter((item) => item.network === 'instagram').length;
    standin.publishElsewhere(instagram.externalId, 50 - published);
    const result = await igClient.validate(content({ media: [media('renders/a.jpg')] }));
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        rule: 'publishing_limit_reached',
        message: expect.stringMatching(/50 posts .* allows 50/),
      }),
    ]);
    const attempt = igClient.publish(
      publishInput(content({ text: 'One too many', media: [media('renders/a.jpg')] })).input,
    );
    await expect(attempt).rejects.toBeInstanceOf(RateLimitedError);
    await expect(attempt).rejects.toMatchObject({ details: { retryAfterSeconds: 3600 } });
  });
});

describe('tokens', () => {
  it('renews the user token and re-reads the Page token', async () => {
    const { identities } = await connect();
    const renewed = await adapter.refresh(identities[0]!.credentials);
    expect(renewed.credentials.userAccessToken).not.toBe(identities[0]!.credentials.userAccessToken);
    expect(renewed.credentials.pageAccessToken).not.toBe(identities[0]!.credentials.pageAccessToken);
    expect(renewed.accessExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    const client = adapter.client(renewed.credentials, () => undefined, accountOf(identities[0]!));
    await expect(client.publish(publishInput(content({ text: 'After renewal' })).input)).resolves.toMatchObject({
      externalId: expect.stringMatching(/^104000000000001_/),
    });
  });

  it('recognises a refused access token, which a refresh cures', async () => {
    const { identities } = await connect();
    standin.expireAccessTokens();
    const stale = adapter.client(identities[0]!.credentials, () => undefined, accountOf(identities[0]!));
    const error = await stale
      .publish(publishInput(content({ text: 'With a stale token' })).input)
      .catch((caught: unknown) => caught);
    expect(adapter.isAuthExpired(error)).toBe(true);
    expect(String((error as Error).message)).not.toMatch(/EAA/);
    const renewed = await adapter.refresh(identities[0]!.credentials);
    const fresh = adapter.client(renewed.credentials, () => undefined, accountOf(identities[0]!));
    await expect(fresh.publish(publishInput(content({ text: 'With a stale token' })).input)).resolves.toBeDefined();
    expect(standin.posts().filter((item) => item.text === 'With a stale token')).toHaveLength(1);
  });

  it('refuses a refresh Meta refuses, for a person to reconnect, without the token in the message', async () => {
    const { identities } = await connect();
    standin.refuseRefresh();
    const attempt = adapter.refresh(identities[1]!.credentials);
    await expect(attempt).rejects.toBeInstanceOf(CredentialsRefusedError);
    await expect(attempt).rejects.toThrow(
      /Meta refused to renew the sign-in: Error validating access token.*Reconnect/,
    );
    await expect(attempt).rejects.not.toThrow(/EAA/);
  });

  it('signs out without revoking the person’s grant (their other Pages stay connected)', async () => {
    const { identities } = await connect();
    const before = standin.exchanges.length;
    await adapter.signOut(identities[0]!.credentials);
    expect(standin.exchanges.length).toBe(before);
    expect(adapter.newRecordKey(new Date())).toMatch(/^[a-z2-7]{16}$/);
  });
});

describe('the specification', () => {
  it('is kept in every request the adapter sent and every answer the stand-in gave', () => {
    expect(standin.exchanges.length).toBeGreaterThan(50);
    expect(standin.violations).toEqual([]);
  });
});
