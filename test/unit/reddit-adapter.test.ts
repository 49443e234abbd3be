/**
 * The Reddit adapter against the Reddit stand-in (a real HTTP server on loopback, spoken to with real fetch):
 * connecting through the consent page, refreshing and a refused refresh, the subreddit's rules before
 * publishing, each kind of post, exactly-once publishing after a lost answer and after saved progress, rate
 * limits, outages, metrics and removal — and every exchange as Reddit's specification has it.
 */
import { ChannelRefusedError, RateLimitedError, UnavailableError, ValidationError } from '../../src/errors.ts';
import type { ChannelQuota } from '../../src/domain/channels/channel-account.entity.ts';
import {
  CredentialsRefusedError,
  type NetworkCredentials,
  type PostContent,
  type PublishProgress,
} from '../../src/domain/channels/channel-adapter.ts';
import type { PostMedia } from '../../src/domain/channels/channel-post.entity.ts';
import {
  createRedditAdapter,
  type RedditAdapter,
  type RedditNetworkClient,
} from '../../src/domain/channels/reddit/reddit-adapter.ts';
import { redditUserAgent } from '../../src/domain/channels/reddit/reddit-http.ts';
import { startRedditStandin, type RedditStandin } from '../support/standins/reddit-standin.ts';

const REDIRECT_URI = 'https://app.example.com/dashboard/channels/oauth/reddit/callback';
const USER_AGENT = redditUserAgent({
  platform: 'web',
  appId: 'campaign-platform',
  version: '1.4.0',
  operator: 'campaign_ops',
});
const ACCOUNT = { kind: null, externalId: 't2_unused', handle: 'campaign_bot' };
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let standin: RedditStandin;
let adapter: RedditAdapter;
let linkCount = 0;

function makeAdapter(fetch: typeof globalThis.fetch = globalThis.fetch, overrides: { clientSecret?: string } = {}) {
  return createRedditAdapter({
    clientId: standin.clientId,
    clientSecret: overrides.clientSecret ?? standin.clientSecret,
    userAgent: USER_AGENT,
    authUrl: standin.url,
    apiUrl: standin.url,
    fetch,
    imagePollIntervalMs: 20,
    imageWaitMs: 5_000,
  });
}

/** A fresh attributed link (each names its own post, as the brand site's hand-off does). */
function link() {
  linkCount += 1;
  return {
    url: `https://acme.sites.example.com/_cp/go?c=cmp_1&v=var_1&p=chp_${linkCount}`,
    display: 'acme.example.com/spring',
  };
}

function content(overrides: Partial<PostContent>): PostContent {
  return { text: '', link: null, media: [], langs: [], options: {}, ...overrides };
}

function image(overrides: Partial<PostMedia> = {}): PostMedia {
  return {
    key: 'renders/spring.png',
    mimeType: 'image/png',
    bytes: PNG.length,
    width: 1,
    height: 1,
    alt: 'A spring sale banner',
    durationSeconds: null,
    sourceJobId: null,
    ...overrides,
  };
}

/** What `publish` is given, with what it saves and how often it heartbeats. */
function publishing(postContent: PostContent, progress: PublishProgress | null = null, createdAt = new Date()) {
  const saved: PublishProgress[] = [];
  const state = { heartbeats: 0, loads: 0 };
  return {
    saved,
    state,
    input: {
      content: postContent,
      recordKey: adapter.newRecordKey(createdAt),
      createdAt,
      loadMedia: async () => {
        state.loads += 1;
        return PNG;
      },
      mediaUrl: () => 'https://media.example.com/unused',
      jpegCopy: () => Promise.reject(new Error('Reddit takes the image as it is')),
      progress,
      saveProgress: async (next: PublishProgress) => {
        saved.push(next);
      },
      heartbeat: () => {
        state.heartbeats += 1;
      },
    },
  };
}

async function connect(as?: string, connecting: RedditAdapter = adapter) {
  const authorizationUrl = connecting.oauth.authorizationUrl({
    state: 'state-123',
    redirectUri: REDIRECT_URI,
    codeChallenge: 'unused',
  });
  const back = new URL(await standin.authorize(authorizationUrl, as));
  const [identity] = await connecting.oauth.completeAuthorization({
    code: back.searchParams.get('code')!,
    redirectUri: REDIRECT_URI,
    codeVerifier: 'unused',
  });
  return identity!;
}

let credentials: NetworkCredentials;
const quotas: ChannelQuota[] = [];
let client: RedditNetworkClient;

beforeAll(async () => {
  standin = await startRedditStandin({ redirectUri: REDIRECT_URI, processingMs: 60 });
  adapter = makeAdapter();
  credentials = (await connect()).credentials;
  client = adapter.client(credentials, (quota) => quotas.push(quota), ACCOUNT);
});

afterAll(async () => {
  await standin.close();
});

describe('connecting', () => {
  it('sends the person to Reddit with the platform app, a permanent grant and its scopes', () => {
    const url = new URL(
      adapter.oauth.authorizationUrl({ state: 'abc', redirectUri: REDIRECT_URI, codeChallenge: 'ch' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${standin.url}/api/v1/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: standin.clientId,
      response_type: 'code',
      state: 'abc',
      redirect_uri: REDIRECT_URI,
      duration: 'permanent',
      scope: 'identity submit read flair edit history',
    });
    expect(adapter.oauth.configured).toBe(true);
  });

  it('shows a consent page naming the app and what it may do, and comes back with state and code', async () => {
    const authorizationUrl = adapter.oauth.authorizationUrl({
      state: 's-1',
      redirectUri: REDIRECT_URI,
      codeChallenge: 'x',
    });
    const page = await (await fetch(authorizationUrl)).text();
    expect(page).toContain('Campaign Platform requests to connect with your Reddit account');
    expect(page).toContain('Submit links and comments from my account.');
    expect(page).toMatch(/<button type="submit" name="authorize" value="Allow">Allow<\/button>/);
    expect(page).toMatch(/<form method="post" action="\/api\/v1\/authorize">/);

    const back = new URL(await standin.authorize(authorizationUrl, 'someone_else'));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('s-1');
    const identities = await adapter.oauth.completeAuthorization({
      code: back.searchParams.get('code')!,
      redirectUri: REDIRECT_URI,
      codeVerifier: 'v',
    });
    expect(identities).toHaveLength(1);
    expect(identities[0]).toMatchObject({ handle: 'someone_else', displayName: null });
    expect(identities[0]!.externalId).toMatch(/^t2_[0-9a-z]+$/);
    const expiresIn = identities[0]!.accessExpiresAt!.getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(3590_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
    expect(identities[0]!.credentials).toMatchObject({
      username: 'someone_else',
      scope: 'identity submit read flair edit history',
    });
  });

  it('refuses a code used twice or for another redirect URI, saying to start again', async () => {
    const authorizationUrl = adapter.oauth.authorizationUrl({
      state: 's-2',
      redirectUri: REDIRECT_URI,
      codeChallenge: 'x',
    });
    const code = new URL(await standin.authorize(authorizationUrl)).searchParams.get('code')!;
    await adapter.oauth.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier: 'v' });
    const again = adapter.oauth.completeAuthorization({ code, redirectUri: REDIRECT_URI, codeVerifier: 'v' });
    await expect(again).rejects.toBeInstanceOf(ValidationError);
    await expect(again).rejects.toThrow(/invalid_grant.*Start again/);

    const other = new URL(await standin.authorize(authorizationUrl)).searchParams.get('code')!;
    await expect(
      adapter.oauth.completeAuthorization({
        code: other,
        redirectUri: 'https://elsewhere.example.com/cb',
        codeVerifier: 'v',
      }),
    ).rejects.toThrow(/invalid_grant/);
  });

  it('comes back with access_denied when the person declines', async () => {
    const authorizationUrl = adapter.oauth.authorizationUrl({
      state: 's-3',
      redirectUri: REDIRECT_URI,
      codeChallenge: 'x',
    });
    const back = new URL(await standin.decline(authorizationUrl));
    expect(Object.fromEntries(back.searchParams)).toEqual({ state: 's-3', error: 'access_denied' });
  });

  it('is not configured without the app, and says what the operator sets', () => {
    const unconfigured = createRedditAdapter({ clientId: '', clientSecret: '', userAgent: USER_AGENT, fetch });
    expect(unconfigured.oauth.configured).toBe(false);
    expect(() =>
      unconfigured.oauth.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge: 'c' }),
    ).toThrow(/REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET/);
  });

  it("blames the operator's app credentials, not the person, when Reddit refuses them", async () => {
    const misconfigured = makeAdapter(fetch, { clientSecret: 'wrong' });
    const refused = misconfigured.refresh(credentials);
    await expect(refused).rejects.toBeInstanceOf(ChannelRefusedError);
    await expect(refused).rejects.toThrow(/REDDIT_CLIENT_SECRET/);
  });
});

describe('tokens', () => {
  it('refreshes an expired access token; the refusal before it is one the framework refreshes for', async () => {
    const identity = await connect('refresher');
    const own = adapter.client(identity.credentials, () => {}, ACCOUNT);
    standin.expireAccessTokens();
    const refused = await own.metrics(['t3_zzzzz']).catch((error: unknown) => error);
    expect(adapter.isAuthExpired(refused)).toBe(true);
    expect(String(refused)).not.toContain(String(identity.credentials.accessToken));

    const refreshed = await adapter.refresh(identity.credentials);
    expect(refreshed.credentials.accessToken).not.toBe(identity.credentials.accessToken);
    expect(refreshed.credentials.refreshToken).toBe(identity.credentials.refreshToken);
    expect(refreshed.accessExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    await expect(adapter.client(refreshed.credentials, () => {}, ACCOUNT).metrics([])).resolves.toEqual(new Map());
    credentials = (await adapter.refresh(credentials)).credentials;
    client = adapter.client(credentials, (quota) => quotas.push(quota), ACCOUNT);
  });

  it('turns a refused refresh into CredentialsRefusedError (reconnect), and an outage into UnavailableError', async () => {
    const identity = await connect('revoked_owner');
    standin.failNext(1, 503);
    await expect(adapter.refresh(identity.credentials)).rejects.toBeInstanceOf(UnavailableError);

    const signedOut = await connect('leaving_owner');
    await adapter.signOut(signedOut.credentials);
    await expect(adapter.refresh(signedOut.credentials)).rejects.toBeInstanceOf(CredentialsRefusedError);
    expect(
      adapter.isAuthExpired(
        await adapter
          .client(signedOut.credentials, () => {}, ACCOUNT)
          .metrics(['t3_a'])
          .catch((e: unknown) => e),
      ),
    ).toBe(true);

    standin.refuseRefresh();
    const refused = adapter.refresh(identity.credentials);
    await expect(refused).rejects.toBeInstanceOf(CredentialsRefusedError);
    await expect(refused).rejects.toThrow(/u\/revoked_owner.*Reconnect/);
    // Every account's refresh token went with refuseRefresh: the shared one gets a new sign-in.
    credentials = (await connect()).credentials;
    client = adapter.client(credentials, (quota) => quotas.push(quota), ACCOUNT);
  });
});

describe('validation without the network', () => {
  it('needs a subreddit and a title of at most 300 characters', () => {
    const missing = adapter.validateOffline(content({ text: 'Hello' }), ACCOUNT);
    expect(missing.valid).toBe(false);
    expect(missing.issues.map((issue) => issue.rule)).toEqual(['subreddit_missing', 'title_missing']);

    const long = adapter.validateOffline(
      content({ text: 'Hello', options: { subreddit: 'r/marketing', title: 'x'.repeat(301) } }),
      ACCOUNT,
    );
    expect(long.issues).toEqual([
      {
        field: 'title',
        rule: 'title_too_long',
        message: expect.stringContaining('Reddit allows 300: shorten it by 1'),
      },
    ]);
    const bad = adapter.validateOffline(content({ options: { subreddit: 'no spaces!', title: 'T' } }), ACCOUNT);
    expect(bad.issues.map((issue) => issue.rule)).toEqual(['subreddit_invalid']);
  });

  it('previews a text post as published, the attributed link appended as markdown', () => {
    const attributed = link();
    const result = adapter.validateOffline(
      content({
        text: 'Our spring sale is on.',
        link: attributed,
        langs: ['en'],
        options: { subreddit: 'deals', title: 'Spring sale' },
      }),
      ACCOUNT,
    );
    expect(result.valid).toBe(true);
    const markdown = `[acme.example.com/spring](${attributed.url})`;
    expect(result.preview).toMatchObject({
      text: `Our spring sale is on.\n\n${markdown}`,
      unit: 'characters',
      limit: 40_000,
    });
    expect(result.preview.facets).toEqual([
      {
        kind: 'link',
        text: markdown,
        target: attributed.url,
        byteStart: 24,
        byteEnd: 24 + Buffer.byteLength(markdown),
      },
    ]);
    expect(result.warnings.map((warning) => warning.rule)).toEqual(['langs_not_published']);
  });

  it('checks what each kind carries', () => {
    const options = { subreddit: 'deals', title: 'T' };
    expect(
      adapter.validateOffline(content({ text: 'x', options: { ...options, postKind: 'link' } }), ACCOUNT).issues[0]
        ?.rule,
    ).toBe('link_missing');
    const tooLong = adapter.validateOffline(content({ text: 'y'.repeat(40_001), options }), ACCOUNT);
    expect(tooLong.issues.map((issue) => issue.rule)).toEqual(['text_too_long']);
    const linkPost = adapter.validateOffline(
      content({ text: 'Not shown', link: link(), options: { ...options, postKind: 'link' } }),
      ACCOUNT,
    );
    expect(linkPost.valid).toBe(true);
    expect(linkPost.warnings.map((warning) => warning.rule)).toEqual(['text_not_published']);
    const images = adapter.validateOffline(
      content({ media: [image(), image({ key: 'b.png' })], link: link(), options }),
      ACCOUNT,
    );
    expect(images.issues.map((issue) => issue.rule)).toEqual(['too_many_images']);
    expect(images.warnings.map((warning) => warning.rule)).toContain('link_not_published');
    const video = adapter.validateOffline(content({ media: [image({ mimeType: 'video/mp4' })], options }), ACCOUNT);
    expect(video.issues.map((issue) => issue.rule)).toContain('video_not_supported');
    const webp = adapter.validateOffline(
      content({ media: [image({ mimeType: 'image/webp', bytes: 25_000_000 })], options }),
      ACCOUNT,
    );
    expect(webp.issues.map((issue) => issue.rule)).toEqual(['unsupported_image_type', 'image_too_large']);
  });
});

describe("validation against the subreddit's rules", () => {
  beforeAll(() => {
    standin.createSubreddit('FlairedDeals', {
      flairRequired: true,
      flairs: [
        { id: 'f-discussion', text: 'Discussion' },
        { id: 'f-offer', text: 'Offer', textEditable: true },
        { id: 'f-mods', text: 'Announcement', modOnly: true },
      ],
      guidelines: 'Be kind.',
    });
    standin.createSubreddit('LinksOnly', { submissionType: 'link', domainBlacklist: ['example.com'] });
    standin.createSubreddit('TitleRules', {
      titleMin: 20,
      titleRequiredStrings: ['[Offer]'],
      bodyPolicy: 'notAllowed',
    });
    standin.createSubreddit('SecretClub', { type: 'private' });
    standin.createSubreddit('Approved', { type: 'restricted' });
  });

  const validate = (options: Record<string, string | boolean>, extra: Partial<PostContent> = {}) =>
    client.validate(content({ text: 'Spring is here.', ...extra, options: { title: 'Spring sale', ...options } }));

  it('names the flairs to choose when the subreddit requires one (its typical refusal)', async () => {
    const result = await validate({ subreddit: 'flaireddeals' });
    expect(result.valid).toBe(false);
    expect(result.issues).toEqual([
      {
        field: 'flairId',
        rule: 'flair_required',
        message:
          'r/FlairedDeals requires a post flair: choose one (flairId): "Discussion" (flairId f-discussion), "Offer" (flairId f-offer)',
      },
    ]);
    expect(result.warnings).toEqual([
      { field: 'subreddit', rule: 'subreddit_guidelines', message: 'r/FlairedDeals asks posters to read: Be kind.' },
    ]);
    expect((await validate({ subreddit: 'FlairedDeals', flairId: 'f-offer', flairText: 'Half price' })).valid).toBe(
      true,
    );
    expect((await validate({ subreddit: 'FlairedDeals', flairId: 'f-mods' })).issues[0]?.rule).toBe('flair_unknown');
    expect(
      (await validate({ subreddit: 'FlairedDeals', flairId: 'f-discussion', flairText: 'Mine' })).issues[0]?.rule,
    ).toBe('flair_text_not_editable');
  });

  it('refuses kinds, links, titles and bodies the subreddit does not take', async () => {
    expect((await validate({ subreddit: 'LinksOnly' })).issues.map((issue) => issue.rule)).toEqual([
      'kind_not_allowed',
    ]);
    const blocked = await validate({ subreddit: 'LinksOnly', postKind: 'link' }, { text: '', link: link() });
    expect(blocked.issues.map((issue) => issue.rule)).toEqual(['link_domain_blocked']);
    const titled = await validate({ subreddit: 'TitleRules' }, { link: link() });
    expect(titled.issues.map((issue) => issue.rule)).toEqual([
      'title_too_short',
      'title_words_missing',
      'body_not_allowed',
    ]);
  });

  it('says when the subreddit does not exist or does not let the account post', async () => {
    expect((await validate({ subreddit: 'NoSuchPlace' })).issues.map((issue) => issue.rule)).toEqual([
      'subreddit_not_found',
    ]);
    expect((await validate({ subreddit: 'SecretClub' })).issues.map((issue) => issue.rule)).toEqual([
      'subreddit_closed',
    ]);
    expect((await validate({ subreddit: 'Approved' })).issues.map((issue) => issue.rule)).toEqual([
      'subreddit_restricted',
    ]);
  });
});

describe('publishing', () => {
  beforeAll(() => {
    standin.createSubreddit('SpringDeals', { flairs: [{ id: 'f-sale', text: 'Sale' }] });
  });

  it('publishes a text post with the attributed link, its flair and marks', async () => {
    const attributed = link();
    const before = quotas.length;
    const { input, saved } = publishing(
      content({
        text: 'Tips & tricks for spring.',
        link: attributed,
        options: { subreddit: 'SpringDeals', title: 'Tips & tricks', flairId: 'f-sale', spoiler: true },
      }),
    );
    const published = await client.publish(input);
    expect(published.externalId).toMatch(/^t3_[0-9a-z]+$/);
    expect(published.externalUrl).toMatch(
      /^https:\/\/www\.reddit\.com\/r\/SpringDeals\/comments\/[0-9a-z]+\/tips_tricks\/$/,
    );
    const post = standin.posts().find((candidate) => candidate.name === published.externalId)!;
    expect(post).toMatchObject({
      kind: 'self',
      title: 'Tips & tricks',
      selftext: `Tips & tricks for spring.\n\n[acme.example.com/spring](${attributed.url})`,
      flairText: 'Sale',
      spoiler: true,
      nsfw: false,
      author: 'campaign_bot',
    });
    expect(saved).toEqual([{ submitting: true }]);
    expect(quotas.length).toBeGreaterThan(before);
    expect(quotas.at(-1)).toMatchObject({ limit: 1000, policy: null });
    expect(quotas.at(-1)!.remaining).toBeLessThan(1000);
  });

  it('publishes a link post to the attributed link', async () => {
    const attributed = link();
    const { input } = publishing(
      content({ link: attributed, options: { subreddit: 'SpringDeals', title: 'Our spring page' } }),
    );
    const published = await client.publish(input);
    expect(standin.posts().find((post) => post.name === published.externalId)).toMatchObject({
      kind: 'link',
      url: attributed.url,
    });
  });

  it('uploads an image, submits it, and waits for Reddit to show the post', async () => {
    const { input, saved, state } = publishing(
      content({ media: [image()], options: { subreddit: 'SpringDeals', title: 'Spring banner' } }),
    );
    const published = await client.publish(input);
    const post = standin.posts().find((candidate) => candidate.name === published.externalId)!;
    const asset = saved[0] as { assetId: string; imageUrl: string };
    expect(post).toMatchObject({
      kind: 'image',
      url: `https://i.redd.it/${asset.assetId}.png`,
      title: 'Spring banner',
    });
    expect(asset.imageUrl).toBe(`${standin.url}/reddit-uploaded-media/rte_images/${asset.assetId}`);
    expect(saved).toEqual([asset, { ...asset, submitting: true }]);
    expect(state.heartbeats).toBeGreaterThan(0);
    expect(state.loads).toBe(1);
  });

  it("passes Reddit's own refusals on: a missing flair, and its per-account wait", async () => {
    standin.createSubreddit('StrictFlair', { flairRequired: true, flairs: [{ id: 'f-1', text: 'One' }] });
    const refused = await client
      .publish(publishing(content({ text: 'x', options: { subreddit: 'StrictFlair', title: 'No flair' } })).input)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ChannelRefusedError);
    expect((refused as ChannelRefusedError).details).toMatchObject({
      network: 'reddit',
      networkError: 'SUBMIT_VALIDATION_FLAIR_REQUIRED',
    });
    expect((refused as Error).message).toContain('Your post must contain post flair.');

    standin.throttleNextSubmit();
    const throttled = await client
      .publish(publishing(content({ text: 'x', options: { subreddit: 'SpringDeals', title: 'Too soon' } })).input)
      .catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(RateLimitedError);
    expect((throttled as RateLimitedError).details).toEqual({ retryAfterSeconds: 300 });
  });

  it('answers a 429 with the wait Reddit names, and a 5xx as an outage', async () => {
    standin.rateLimitNext(1, 42);
    const limited = await client.metrics(['t3_abc']).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).details).toEqual({ retryAfterSeconds: 42 });
    expect(quotas.at(-1)).toMatchObject({ remaining: 0, limit: 1000 });

    standin.failNext(1, 500);
    await expect(client.metrics(['t3_abc'])).rejects.toBeInstanceOf(UnavailableError);
  });
});

describe('exactly once', () => {
  beforeAll(() => {
    standin.createSubreddit('OnceOnly');
  });

  it('finds a post whose submit answer was lost instead of posting it again', async () => {
    const attributed = link();
    const postContent = content({
      text: 'Hello',
      link: attributed,
      options: { subreddit: 'OnceOnly', title: 'Lost answer' },
    });
    const createdAt = new Date(Date.now() - 2_000);
    const controller = new AbortController();
    const dying = makeAdapter((url, init) => fetch(url, { ...init, signal: controller.signal })).client(
      credentials,
      () => {},
      ACCOUNT,
    );
    const held = standin.hold((request) => request.url.pathname === '/api/submit');
    const first = publishing(postContent, null, createdAt);
    const attempt = dying.publish(first.input);
    await held.arrived;
    controller.abort(); // the worker is killed after Reddit accepted the post
    await expect(attempt).rejects.toBeInstanceOf(UnavailableError);
    held.release();
    expect(first.saved).toEqual([{ submitting: true }]);
    // A newer post with the same title and text but another attributed link must not be taken for it.
    await client.publish(
      publishing(content({ text: 'Hello', link: link(), options: { subreddit: 'OnceOnly', title: 'Lost answer' } }))
        .input,
    );

    const again = publishing(postContent, first.saved.at(-1)!, createdAt);
    const published = await client.publish(again.input);
    const mine = standin.posts().filter((post) => post.selftext.includes(attributed.url));
    expect(mine).toHaveLength(1);
    expect(published.externalId).toBe(mine[0]!.name);
    expect(standin.posts().filter((post) => post.title === 'Lost answer')).toHaveLength(2);
  });

  it('posts once when saved progress says a submit was about to go but none arrived', async () => {
    const attributed = link();
    const postContent = content({
      text: 'Again',
      link: attributed,
      options: { subreddit: 'OnceOnly', title: 'Never sent' },
    });
    const { input } = publishing(postContent, { submitting: true });
    const published = await client.publish(input);
    expect(
      standin
        .posts()
        .filter((post) => post.selftext.includes(attributed.url))
        .map((post) => post.name),
    ).toEqual([published.externalId]);
  });

  it('resumes an image post from its saved upload without uploading again', async () => {
    const postContent = content({ media: [image()], options: { subreddit: 'OnceOnly', title: 'Resumed image' } });
    const first = publishing(postContent);
    const held = standin.hold((request) => request.url.pathname === '/api/submit');
    const controller = new AbortController();
    const dying = makeAdapter((url, init) => fetch(url, { ...init, signal: controller.signal })).client(
      credentials,
      () => {},
      ACCOUNT,
    );
    const attempt = dying.publish(first.input);
    await held.arrived;
    controller.abort();
    await expect(attempt).rejects.toBeInstanceOf(UnavailableError);
    held.release();

    const leases = () => standin.exchanges.filter((exchange) => exchange.url.includes('/api/media/asset')).length;
    const leasesBefore = leases();
    const again = publishing(postContent, first.saved.at(-1)!);
    const published = await client.publish(again.input);
    expect(leases()).toBe(leasesBefore);
    expect(again.state.loads).toBe(0);
    expect(
      standin
        .posts()
        .filter((post) => post.title === 'Resumed image')
        .map((post) => post.name),
    ).toEqual([published.externalId]);
  });
});

describe('metrics and removal', () => {
  it('reports score and comments, leaves likes unknown, and tells a moderator removal apart', async () => {
    standin.createSubreddit('Measured');
    const { externalId } = await client.publish(
      publishing(content({ text: 'Counted', options: { subreddit: 'Measured', title: 'Count me' } })).input,
    );
    standin.setEngagement(externalId, { score: 42, numComments: 7, upvoteRatio: 0.93 });

    const metrics = await client.metrics([externalId, 't3_missing']);
    expect([...metrics.keys()]).toEqual([externalId]);
    expect(metrics.get(externalId)).toEqual({
      impressions: null,
      reach: null,
      views: null,
      likes: null,
      reposts: null,
      replies: 7,
      quotes: null,
      bookmarks: null,
      score: 42,
      upvoteRatio: 0.93,
      removedBy: null,
    });
    expect((await client.postStates([externalId])).get(externalId)).toMatchObject({
      upvoteRatio: 0.93,
      removedBy: null,
    });

    standin.removePost(externalId, 'moderator');
    expect((await client.postStates([externalId])).get(externalId)).toMatchObject({ removedBy: 'moderator' });
    expect((await client.metrics([externalId])).get(externalId)).toMatchObject({ score: 42, removedBy: 'moderator' });
  });

  it('deletes a post, and deleting it again is no error', async () => {
    standin.createSubreddit('Removable');
    const { externalId } = await client.publish(
      publishing(content({ text: 'Bye', options: { subreddit: 'Removable', title: 'Delete me' } })).input,
    );
    await client.remove(externalId);
    expect(standin.posts().find((post) => post.name === externalId)?.removedByCategory).toBe('deleted');
    await expect(client.remove(externalId)).resolves.toBeUndefined();
    expect((await client.metrics([externalId])).size).toBe(0);
  });
});

describe('the exchanges', () => {
  it('all follow Reddit as its specification has it', () => {
    expect(standin.exchanges.length).toBeGreaterThan(20);
    expect(standin.violations).toEqual([]);
  });
});
