/**
 * Reddit, as far as the platform uses it, on loopback: the OAuth consent page and token endpoints of
 * www.reddit.com, the API of oauth.reddit.com, and the storage bucket image uploads go to — one server for
 * all three hosts (`url`). State is in memory; every answer is recorded and checked against Reddit's published
 * specification (see `standin-server.ts`).
 *
 * What it does as Reddit does (sources: reddit.com/dev/api, the reddit-archive OAuth2 wiki, and the
 * community's reddit-api-doc-notes, which record real answers):
 * - OAuth: `GET /api/v1/authorize` shows a consent page for the signed-in person (cookie `reddit_session`,
 *   else the default user) with the app's name, the scopes asked, and Allow/Decline; `POST` of that form
 *   redirects to `redirect_uri` with `state` and `code` (or `error=access_denied`). Codes are single-use and
 *   short-lived. No PKCE: Reddit does not implement it. The token endpoint takes HTTP Basic client
 *   credentials (401 without them) and answers a refused grant with HTTP 200 `{"error": "invalid_grant"}`.
 * - The API wants `Authorization: bearer …` (401 with `error="invalid_token"` otherwise), enforces each
 *   endpoint's scope (403 `insufficient_scope`), and reports `X-Ratelimit-Used/Remaining/Reset` per OAuth
 *   client (1,000 queries per 600 s window: 100 a minute averaged over ten minutes), 429 past it.
 * - JSON strings are HTML-escaped (`&amp;`) unless the request says `raw_json=1`.
 * - `POST /api/submit` refuses with `{"json": {"errors": [[code, message, field]]}}` and the subreddit's rules;
 *   an image post from an upload lease is answered with `user_submitted_page` and `websocket_url` only, and
 *   appears `processingMs` later. The websocket address is not served: the platform polls the listing.
 *
 * Refusal codes beyond those Reddit documents (`SUBMIT_VALIDATION_FLAIR_REQUIRED`, `NO_SELFS`, `RATELIMIT`,
 * …) follow the same pattern and are marked where they are modelled rather than recorded.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  startStandin,
  type FormValue,
  type StandinRequest,
  type StandinResponse,
  type StandinServer,
  type UploadedFile,
} from './standin-server.ts';
import { loadSpecChecker } from '../vendor-specs/spec-checker.ts';

export interface RedditStandinOptions {
  clientId?: string;
  clientSecret?: string;
  appName?: string;
  /** The redirect URI registered with the app; when unset, any is taken (and the code bound to it). */
  redirectUri?: string;
  /** The person signed in to Reddit when no `reddit_session` cookie names another. */
  username?: string;
  accessTokenSeconds?: number;
  codeTtlMs?: number;
  /** How long an uploaded image takes to become a post. */
  processingMs?: number;
  rateLimit?: { limit: number; windowSeconds: number };
}

export interface FlairSettings {
  id?: string;
  text: string;
  textEditable?: boolean;
  modOnly?: boolean;
}

export interface SubredditSettings {
  type?: 'public' | 'restricted' | 'private' | 'archived' | 'gold_restricted' | 'employees_only';
  submissionType?: 'any' | 'link' | 'self';
  allowImages?: boolean;
  /** A subreddit Reddit banned (404 `banned`). */
  banned?: boolean;
  flairRequired?: boolean;
  flairs?: FlairSettings[];
  titleMin?: number | null;
  titleMax?: number | null;
  titleRequiredStrings?: string[];
  titleBlacklistedStrings?: string[];
  bodyPolicy?: 'required' | 'notAllowed' | 'none';
  bodyRequiredStrings?: string[];
  bodyBlacklistedStrings?: string[];
  domainBlacklist?: string[];
  domainWhitelist?: string[];
  guidelines?: string | null;
  bannedUsers?: string[];
  approvedUsers?: string[];
  moderators?: string[];
}

export interface StandinPost {
  id: string;
  name: string;
  subreddit: string;
  author: string;
  kind: 'self' | 'link' | 'image';
  title: string;
  selftext: string;
  url: string;
  permalink: string;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
  createdUtc: number;
  score: number;
  numComments: number;
  upvoteRatio: number;
  removedByCategory: string | null;
}

export interface RedditStandin {
  url: string;
  clientId: string;
  clientSecret: string;
  exchanges: StandinServer['exchanges'];
  violations: StandinServer['violations'];
  hold: StandinServer['hold'];
  /** Opens the consent page as `as` (or the default user), presses Allow, and returns where Reddit redirects. */
  authorize(authorizationUrl: string, as?: string): Promise<string>;
  /** The same, pressing Decline. */
  decline(authorizationUrl: string, as?: string): Promise<string>;
  createSubreddit(name: string, settings?: SubredditSettings): void;
  posts(): StandinPost[];
  setEngagement(id: string, engagement: { score?: number; numComments?: number; upvoteRatio?: number }): void;
  /** What a moderator (or Reddit) removing the post looks like: `removed_by_category` set. */
  removePost(id: string, by?: string): void;
  expireAccessTokens(): void;
  /** Every refresh token stops working (the owner revoked the app): refreshes answer `invalid_grant`. */
  refuseRefresh(): void;
  /** The next `n` API requests answer 429 with the rate-limit headers naming `retryAfterSeconds`. */
  rateLimitNext(n: number, retryAfterSeconds: number): void;
  /** The next submit answers Reddit's per-account `RATELIMIT` error with this wait in its words. */
  throttleNextSubmit(words?: string): void;
  /** The next `n` requests (token endpoints and API) answer `status`. */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

/** What each scope lets an app do, as Reddit's consent page words it. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  identity: 'Access my reddit username and signup date.',
  edit: 'Edit and delete my comments and submissions.',
  flair: 'Select my subreddit flair. Change link flair on my submissions.',
  history: "Access my voting history and comments or submissions I've saved or hidden.",
  read: 'Access posts and comments through my account.',
  submit: 'Submit links and comments from my account.',
  mysubreddits: 'Access the list of subreddits I moderate, contribute to, and subscribe to.',
  vote: 'Submit and change my votes on comments and submissions.',
  save: 'Save and unsave comments and submissions.',
};

/** The scope each API route needs (reddit.com/dev/api). */
const ROUTE_SCOPES: [RegExp, string][] = [
  [/^\/api\/v1\/me$/, 'identity'],
  [/^\/r\/[^/]+\/about$/, 'read'],
  [/^\/api\/v1\/[^/]+\/post_requirements$/, 'submit'],
  [/^\/r\/[^/]+\/api\/link_flair_v2$/, 'flair'],
  [/^\/api\/media\/asset(\.json)?$/, 'submit'],
  [/^\/api\/submit$/, 'submit'],
  [/^\/user\/[^/]+\/submitted$/, 'history'],
  [/^\/api\/info$/, 'read'],
  [/^\/api\/del$/, 'edit'],
];

const UPLOAD_PATH = '/reddit-uploaded-media';
const WWW = 'https://www.reddit.com';
const IMAGE_TYPES: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif' };
const MAX_UPLOAD_BYTES = 20_000_000;
/** Reddit's user agents: `<platform>:<app id>:<version> (by /u/<name>)`. */
const DESCRIPTIVE_USER_AGENT = /^[\w.-]+:[\w.-]+:[\w.-]+ \(by \/u\/[\w-]+\)$/;

const id36 = (length: number) =>
  [...randomBytes(length)].map((byte) => '0123456789abcdefghijklmnopqrstuvwxyz'[byte % 36]).join('');
const json = (status: number, body: unknown, headers: Record<string, string> = {}): StandinResponse => ({
  status,
  body,
  headers,
});
const html = (status: number, body: string): StandinResponse => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body,
});
const xml = (status: number, body: string): StandinResponse => ({
  status,
  headers: { 'content-type': 'application/xml' },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
/** Reddit's legacy JSON escaping, undone by `raw_json=1`. */
function legacyEscaped(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (Array.isArray(value)) return value.map(legacyEscaped);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, legacyEscaped(inner)]));
  }
  return value;
}
const fieldsOf = (request: StandinRequest) =>
  (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, FormValue>;
const text = (value: FormValue | undefined) => (typeof value === 'string' ? value : '');
const submitError = (code: string, message: string, field: string | null) =>
  json(200, { json: { errors: [[code, message, field]] } });

interface Subreddit extends Required<Omit<SubredditSettings, 'flairs' | 'guidelines' | 'titleMin' | 'titleMax'>> {
  name: string;
  id: string;
  flairs: Required<FlairSettings>[];
  guidelines: string | null;
  titleMin: number | null;
  titleMax: number | null;
}
interface Grant {
  clientId: string;
  user: string;
  scope: string[];
  redirectUri: string;
  permanent: boolean;
}
interface Asset {
  id: string;
  key: string;
  mimetype: string;
  owner: string;
  signature: string;
  uploaded: boolean;
}

export async function startRedditStandin(options: RedditStandinOptions = {}): Promise<RedditStandin> {
  const clientId = options.clientId ?? 'standin-client-id';
  const clientSecret = options.clientSecret ?? 'standin-client-secret';
  const appName = options.appName ?? 'Campaign Platform';
  const defaultUser = options.username ?? 'campaign_bot';
  const accessSeconds = options.accessTokenSeconds ?? 3600;
  const codeTtlMs = options.codeTtlMs ?? 10 * 60_000;
  const processingMs = options.processingMs ?? 50;
  const budget = options.rateLimit ?? { limit: 1000, windowSeconds: 600 };

  const users = new Map<string, { id: string; name: string; created: number }>();
  const subreddits = new Map<string, Subreddit>();
  const posts = new Map<string, StandinPost>();
  const assets = new Map<string, Asset>();
  const codes = new Map<string, Grant & { expiresAt: number; used: boolean }>();
  const accessTokens = new Map<string, Grant & { expiresAt: number; refreshToken: string | null }>();
  const refreshTokens = new Map<string, Grant & { revoked: boolean }>();
  const windows = new Map<string, { startedAt: number; used: number }>();
  const timers = new Set<NodeJS.Timeout>();
  const faults = { rateLimited: 0, retryAfter: 60, failing: 0, failStatus: 500, throttle: null as string | null };

  function userNamed(name: string) {
    const key = name.toLowerCase();
    if (!users.has(key)) users.set(key, { id: id36(6), name, created: Math.floor(Date.now() / 1000) - 86_400 * 400 });
    return users.get(key)!;
  }
  userNamed(defaultUser);

  const nowSeconds = () => Date.now() / 1000;
  const modhash = (user: string) => createHmac('sha256', clientSecret).update(`uh:${user}`).digest('hex').slice(0, 32);
  const issue = (grant: Grant, refreshToken: string | null) => {
    const token = `${Math.floor(Math.random() * 1e9)}-${randomBytes(20).toString('base64url')}`;
    accessTokens.set(token, { ...grant, expiresAt: Date.now() + accessSeconds * 1000, refreshToken });
    return token;
  };

  // ---- The person's side: the consent page -------------------------------------------------------------
  function signedIn(request: StandinRequest): string {
    const cookie = /(?:^|;\s*)reddit_session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    return userNamed(cookie ? decodeURIComponent(cookie) : defaultUser).name;
  }

  function redirect(to: string, params: Record<string, string>): StandinResponse {
    const target = new URL(to);
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
    return { status: 302, headers: { location: target.toString() } };
  }

  function consentPage(request: StandinRequest): StandinResponse | null {
    if (request.url.pathname !== '/api/v1/authorize') return null;
    const query = request.method === 'POST' ? fieldsOf(request) : Object.fromEntries(request.url.searchParams);
    const param = (name: string) => text(query[name]);
    if (param('client_id') !== clientId) {
      return html(400, '<html><body><h1>bad request (reddit.com)</h1><p>invalid client id</p></body></html>');
    }
    const redirectUri = param('redirect_uri');
    if (!URL.canParse(redirectUri) || (options.redirectUri && redirectUri !== options.redirectUri)) {
      return html(
        400,
        '<html><body><h1>bad request (reddit.com)</h1><p>invalid redirect_uri parameter</p></body></html>',
      );
    }
    const state = param('state');
    if (param('response_type') !== 'code') return redirect(redirectUri, { state, error: 'unsupported_response_type' });
    const scopes = param('scope')
      .split(/[\s,]+/)
      .filter(Boolean);
    if (!scopes.length || scopes.some((scope) => !SCOPE_DESCRIPTIONS[scope])) {
      return redirect(redirectUri, { state, error: 'invalid_scope' });
    }
    if (!state || !['temporary', 'permanent'].includes(param('duration'))) {
      return redirect(redirectUri, { state, error: 'invalid_request' });
    }
    const user = signedIn(request);
    if (request.method === 'GET') {
      const hidden = ['client_id', 'redirect_uri', 'scope', 'state', 'response_type', 'duration']
        .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(param(name))}">`)
        .join('\n      ');
      const asked = scopes.map((scope) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope]!)}</li>`).join('\n        ');
      const lasting =
        param('duration') === 'permanent'
          ? 'Maintain this access indefinitely (or until manually revoked).'
          : 'Access expires in 1 hour.';
      return html(
        200,
        `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>reddit: authorize application</title></head>
  <body>
    <main>
      <h1>${escapeHtml(appName)} requests to connect with your Reddit account</h1>
      <p>Signed in as u/${escapeHtml(user)}.</p>
      <p>Allow ${escapeHtml(appName)} to:</p>
      <ul>
        ${asked}
      </ul>
      <p>${lasting}</p>
      <form method="post" action="/api/v1/authorize">
      ${hidden}
      <input type="hidden" name="uh" value="${modhash(user)}">
      <button type="submit" name="authorize" value="Decline">Decline</button>
      <button type="submit" name="authorize" value="Allow">Allow</button>
      </form>
    </main>
  </body>
</html>`,
      );
    }
    if (param('uh') !== modhash(user)) return html(403, '<html><body><h1>forbidden (reddit.com)</h1></body></html>');
    if (param('authorize') !== 'Allow') return redirect(redirectUri, { state, error: 'access_denied' });
    const code = randomBytes(22).toString('base64url');
    codes.set(code, {
      clientId,
      user,
      scope: scopes,
      redirectUri,
      permanent: param('duration') === 'permanent',
      expiresAt: Date.now() + codeTtlMs,
      used: false,
    });
    return redirect(redirectUri, { state, code });
  }

  async function pressButton(authorizationUrl: string, as: string | undefined, decision: 'Allow' | 'Decline') {
    const headers = as ? { cookie: `reddit_session=${encodeURIComponent(as)}` } : undefined;
    const page = await fetch(authorizationUrl, { headers, redirect: 'manual' });
    if (page.status === 302) return page.headers.get('location')!;
    const body = await page.text();
    if (page.status !== 200) throw new Error(`The consent page answered ${page.status}: ${body.slice(0, 200)}`);
    const form = new URLSearchParams();
    for (const match of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      form.set(
        match[1]!,
        match[2]!
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
    }
    form.set('authorize', decision);
    const answer = await fetch(new URL('/api/v1/authorize', server.url), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location) throw new Error(`Pressing ${decision} answered ${answer.status}`);
    return location;
  }

  // ---- The app's side: token endpoints on www.reddit.com ---------------------------------------------
  function appAuthenticated(request: StandinRequest): boolean {
    const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!basic) return false;
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 && decoded.slice(0, colon) === clientId && decoded.slice(colon + 1) === clientSecret;
  }

  function tokenAnswer(grant: Grant, refreshToken: string | null): StandinResponse {
    return json(200, {
      access_token: issue(grant, refreshToken),
      token_type: 'bearer',
      expires_in: accessSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: grant.scope.join(' '),
    });
  }

  function tokenEndpoints(request: StandinRequest): StandinResponse | null {
    const path = request.url.pathname;
    if (request.method !== 'POST' || !['/api/v1/access_token', '/api/v1/revoke_token'].includes(path)) return null;
    if (!appAuthenticated(request)) return json(401, { message: 'Unauthorized', error: 401 });
    const form = fieldsOf(request);
    if (path === '/api/v1/revoke_token') {
      const token = text(form.token);
      const refresh = refreshTokens.get(token);
      if (refresh) {
        refresh.revoked = true;
        for (const [access, grant] of accessTokens) if (grant.refreshToken === token) accessTokens.delete(access);
      }
      accessTokens.delete(token);
      return { status: 204 };
    }
    const grantType = text(form.grant_type);
    if (grantType === 'authorization_code') {
      if (!text(form.code) || !text(form.redirect_uri)) return json(200, { error: 'invalid_request' });
      const code = codes.get(text(form.code));
      // Reddit answers every refused grant the same way, with HTTP 200.
      if (!code || code.used || code.expiresAt < Date.now() || code.redirectUri !== text(form.redirect_uri)) {
        return json(200, { error: 'invalid_grant' });
      }
      code.used = true;
      const grant: Grant = {
        clientId,
        user: code.user,
        scope: code.scope,
        redirectUri: code.redirectUri,
        permanent: code.permanent,
      };
      const refreshToken = code.permanent
        ? `${Math.floor(Math.random() * 1e9)}-${randomBytes(20).toString('base64url')}`
        : null;
      if (refreshToken) refreshTokens.set(refreshToken, { ...grant, revoked: false });
      return tokenAnswer(grant, refreshToken);
    }
    if (grantType === 'refresh_token') {
      const token = text(form.refresh_token);
      const grant = refreshTokens.get(token);
      if (!grant || grant.revoked) return json(200, { error: 'invalid_grant' });
      return tokenAnswer(grant, token);
    }
    return json(200, { error: 'unsupported_grant_type' });
  }

  // ---- The API on oauth.reddit.com ------------------------------------------------------------------
  const rateHeaders = (used: number, remaining: number, reset: number) => ({
    'x-ratelimit-used': String(used),
    'x-ratelimit-remaining': remaining.toFixed(1),
    'x-ratelimit-reset': String(reset),
  });

  function countRequest(client: string) {
    const now = Date.now();
    let window = windows.get(client);
    if (!window || now - window.startedAt >= budget.windowSeconds * 1000) {
      window = { startedAt: now, used: 0 };
      windows.set(client, window);
    }
    window.used += 1;
    const reset = Math.max(1, Math.ceil((window.startedAt + budget.windowSeconds * 1000 - now) / 1000));
    const used = Math.min(window.used, budget.limit);
    return { over: window.used > budget.limit, headers: rateHeaders(used, budget.limit - used, reset) };
  }

  const subredditNamed = (name: string) => subreddits.get(name.toLowerCase());
  const isIn = (list: string[], user: string) => list.some((name) => name.toLowerCase() === user.toLowerCase());
  const isMember = (sr: Subreddit, user: string) => isIn(sr.approvedUsers, user) || isIn(sr.moderators, user);
  /** Private subreddits are invisible to outsiders; banned ones to everyone. */
  const closedTo = (sr: Subreddit, user: string) => sr.banned || (sr.type === 'private' && !isMember(sr, user));

  function aboutData(sr: Subreddit, user: string) {
    return {
      kind: 't5',
      data: {
        id: sr.id,
        name: `t5_${sr.id}`,
        display_name: sr.name,
        display_name_prefixed: `r/${sr.name}`,
        title: sr.name,
        url: `/r/${sr.name}/`,
        subreddit_type: sr.type,
        submission_type: sr.submissionType,
        allow_images: sr.allowImages,
        link_flair_enabled: sr.flairs.length > 0,
        over18: false,
        subscribers: 1234,
        created_utc: 1_500_000_000,
        public_description: '',
        user_is_banned: isIn(sr.bannedUsers, user),
        user_is_contributor: isIn(sr.approvedUsers, user),
        user_is_moderator: isIn(sr.moderators, user),
        user_is_subscriber: false,
      },
    };
  }

  function requirementsOf(sr: Subreddit) {
    return {
      title_regexes: [],
      body_blacklisted_strings: sr.bodyBlacklistedStrings,
      title_blacklisted_strings: sr.titleBlacklistedStrings,
      body_text_max_length: null,
      title_required_strings: sr.titleRequiredStrings,
      guidelines_text: sr.guidelines,
      gallery_min_items: null,
      domain_blacklist: sr.domainBlacklist,
      domain_whitelist: sr.domainWhitelist,
      title_text_max_length: sr.titleMax,
      body_restriction_policy: sr.bodyPolicy,
      link_restriction_policy: 'none',
      guidelines_display_policy: null,
      body_required_strings: sr.bodyRequiredStrings,
      title_text_min_length: sr.titleMin,
      gallery_captions_requirement: 'none',
      is_flair_required: sr.flairRequired,
      gallery_max_items: null,
      gallery_urls_requirement: 'none',
      body_regexes: [],
      link_repost_age: null,
      body_text_min_length: null,
    };
  }

  function flairTemplate(flair: Required<FlairSettings>) {
    return {
      type: 'text',
      text_editable: flair.textEditable,
      allowable_content: 'all',
      text: flair.text,
      max_emojis: 10,
      text_color: 'dark',
      mod_only: flair.modOnly,
      css_class: '',
      richtext: [],
      background_color: '#dadada',
      id: flair.id,
    };
  }

  function thing(post: StandinPost) {
    const deleted = post.removedByCategory === 'deleted';
    return {
      kind: 't3',
      data: {
        id: post.id,
        name: post.name,
        title: post.title,
        author: deleted ? '[deleted]' : post.author,
        subreddit: post.subreddit,
        subreddit_name_prefixed: `r/${post.subreddit}`,
        selftext: deleted ? '[deleted]' : post.selftext,
        is_self: post.kind === 'self',
        url: post.url,
        permalink: post.permalink,
        domain: post.kind === 'self' ? `self.${post.subreddit}` : new URL(post.url).hostname,
        post_hint: post.kind === 'image' ? 'image' : post.kind === 'link' ? 'link' : 'self',
        score: post.score,
        ups: post.score,
        downs: 0,
        upvote_ratio: post.upvoteRatio,
        num_comments: post.numComments,
        created: post.createdUtc,
        created_utc: post.createdUtc,
        over_18: post.nsfw,
        spoiler: post.spoiler,
        link_flair_text: post.flairText,
        link_flair_template_id: post.flairId,
        removed_by_category: post.removedByCategory,
        send_replies: post.sendReplies,
        locked: false,
        stickied: false,
        archived: false,
        is_video: false,
      },
    };
  }

  const listing = (children: unknown[], after: string | null = null) => ({
    kind: 'Listing',
    data: { after, dist: children.length, modhash: null, geo_filter: '', children, before: null },
  });

  // ---- Posting ----------------------------------------------------------------------------------------
  function mediaLease(request: StandinRequest, user: string): StandinResponse {
    const form = fieldsOf(request);
    const filepath = text(form.filepath);
    const mimetype = text(form.mimetype);
    const extension = IMAGE_TYPES[mimetype];
    if (!filepath || !extension) return json(400, { message: 'Bad Request', error: 400 });
    const asset: Asset = { id: id36(13), key: '', mimetype, owner: user, signature: '', uploaded: false };
    asset.key = `rte_images/${asset.id}`;
    const policy = Buffer.from(
      JSON.stringify({ expiration: new Date(Date.now() + 3_600_000).toISOString(), conditions: [{ key: asset.key }] }),
    ).toString('base64');
    asset.signature = createHmac('sha256', clientSecret).update(policy).digest('hex');
    assets.set(asset.id, asset);
    const host = new URL(server.url).host;
    return json(200, {
      args: {
        // Protocol-relative, as Reddit gives it (`//reddit-uploaded-media.s3-accelerate.amazonaws.com`).
        action: `//${host}${UPLOAD_PATH}`,
        fields: [
          { name: 'acl', value: 'private' },
          { name: 'key', value: asset.key },
          { name: 'X-Amz-Credential', value: 'ASIAEXAMPLE/20261127/us-east-1/s3/aws4_request' },
          { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
          { name: 'X-Amz-Date', value: '20261127T000000Z' },
          { name: 'success_action_status', value: '201' },
          { name: 'content-type', value: mimetype },
          { name: 'x-amz-storage-class', value: 'STANDARD' },
          { name: 'x-amz-meta-ext', value: extension },
          { name: 'policy', value: policy },
          { name: 'X-Amz-Signature', value: asset.signature },
          { name: 'x-amz-security-token', value: 'standin-session-token' },
        ],
      },
      asset: {
        asset_id: asset.id,
        processing_state: 'incomplete',
        payload: { filepath },
        websocket_url: `wss://ws-standin.wss.redditmedia.com/rte_images/${asset.id}?m=${randomBytes(12).toString('base64url')}`,
      },
    });
  }

  /** The storage bucket's `POST` upload (S3's answers: 201 with a `PostResponse`, or an XML `Error`). */
  function storeUpload(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== UPLOAD_PATH) return null;
    const form = fieldsOf(request);
    const asset = [...assets.values()].find((candidate) => candidate.key === text(form.key));
    const file = form.file as UploadedFile | undefined;
    const denied = (why: string) => xml(403, `<Error><Code>AccessDenied</Code><Message>${why}</Message></Error>`);
    if (!asset || text(form['X-Amz-Signature']) !== asset.signature) return denied('Invalid according to Policy');
    if (text(form['content-type']) !== asset.mimetype)
      return denied('Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type"]');
    if (!file || typeof file !== 'object')
      return xml(
        400,
        '<Error><Code>InvalidArgument</Code><Message>POST requires exactly one file upload per request.</Message></Error>',
      );
    if (file.bytes > MAX_UPLOAD_BYTES)
      return xml(
        400,
        '<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed size</Message></Error>',
      );
    asset.uploaded = true;
    const etag = createHash('md5').update(file.data).digest('hex');
    return xml(
      201,
      `<PostResponse><Location>${server.url}${UPLOAD_PATH}/${encodeURIComponent(asset.key)}</Location><Bucket>reddit-uploaded-media</Bucket><Key>${asset.key}</Key><ETag>"${etag}"</ETag></PostResponse>`,
    );
  }

  /** The asset a lease location names (as `<action>/<key>`, or S3's encoded `Location`). */
  function assetAt(url: string): Asset | undefined {
    const prefix = `${server.url}${UPLOAD_PATH}/`;
    if (!url.startsWith(prefix)) return undefined;
    const key = decodeURIComponent(url.slice(prefix.length));
    return [...assets.values()].find((asset) => asset.key === key);
  }

  function createPost(
    fields: Omit<
      StandinPost,
      'id' | 'name' | 'permalink' | 'createdUtc' | 'score' | 'numComments' | 'upvoteRatio' | 'removedByCategory'
    >,
  ) {
    const id = id36(7);
    const slug = fields.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 50);
    const permalink = `/r/${fields.subreddit}/comments/${id}/${slug}/`;
    const post: StandinPost = {
      ...fields,
      id,
      name: `t3_${id}`,
      permalink,
      url: fields.kind === 'self' ? `${WWW}${permalink}` : fields.url,
      createdUtc: Math.floor(nowSeconds()),
      score: 1,
      numComments: 0,
      upvoteRatio: 1,
      removedByCategory: null,
    };
    posts.set(id, post);
    return post;
  }

  /** What Reddit checks of a submission, in its order: the first refusal is answered. */
  function submitRefusal(
    form: Record<string, FormValue>,
    user: string,
    sr: Subreddit | undefined,
  ): StandinResponse | null {
    const kind = text(form.kind) || 'link';
    const title = text(form.title);
    if (!text(form.sr))
      return submitError(
        'BAD_SR_NAME',
        "This community name isn't recognizable. Check the spelling and try again.",
        'sr',
      );
    if (!sr)
      return submitError('SUBREDDIT_NOEXIST', "Hmm, that community doesn't exist. Try checking the spelling.", 'sr');
    if (closedTo(sr, user)) return json(404, { message: 'Not Found', error: 404 });
    if (isIn(sr.bannedUsers, user) || sr.type === 'archived' || (sr.type !== 'public' && !isMember(sr, user))) {
      return submitError('SUBREDDIT_NOTALLOWED', 'This community only allows trusted members to post here', 'sr');
    }
    if (!['self', 'link', 'image'].includes(kind))
      return submitError('INVALID_OPTION', 'that option is not valid', 'sr');
    if (!title.trim()) return submitError('NO_TEXT', 'we need something here', 'title');
    if ([...title].length > 300) return submitError('TOO_LONG', 'This field must be under 300 characters', 'title');
    if (kind === 'self' && [...text(form.text)].length > 40_000)
      return submitError('TOO_LONG', 'This field must be under 40000 characters', 'text');
    if (kind === 'self' && sr.submissionType === 'link')
      return submitError('NO_SELFS', "This community doesn't allow text posts", 'sr');
    // Modelled on NO_SELFS (r2's "that reddit only allows text posts"), and NO_IMAGES on the documented NO_VIDEOS.
    if (kind !== 'self' && sr.submissionType === 'self')
      return submitError('NO_LINKS', 'This community only allows text posts', 'sr');
    if (kind === 'image' && !sr.allowImages)
      return submitError('NO_IMAGES', "This community doesn't allow images", 'sr');
    if (kind !== 'self' && !URL.canParse(text(form.url))) return submitError('NO_URL', 'a url is required', 'url');
    const flairId = text(form.flair_id);
    const flair = sr.flairs.find(
      (candidate) => candidate.id === flairId && (!candidate.modOnly || isIn(sr.moderators, user)),
    );
    if (flairId && !flair)
      return submitError('BAD_FLAIR_TEMPLATE_ID', 'That flair is not available in this community', 'flair');
    if (sr.flairRequired && !flair)
      return submitError('SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair');
    // Modelled on the flair requirement: the other moderator-set requirements, checked the same way.
    const length = [...title].length;
    if ((sr.titleMin && length < sr.titleMin) || (sr.titleMax && length > sr.titleMax)) {
      return submitError(
        'SUBMIT_VALIDATION_TITLE_LENGTH',
        `Title must be between ${sr.titleMin ?? 1} and ${sr.titleMax ?? 300} characters`,
        'title',
      );
    }
    const lowerTitle = title.toLowerCase();
    if (
      sr.titleRequiredStrings.length &&
      !sr.titleRequiredStrings.some((word) => lowerTitle.includes(word.toLowerCase()))
    ) {
      return submitError(
        'SUBMIT_VALIDATION_TITLE_REQUIREMENT',
        `Title must contain one of: ${sr.titleRequiredStrings.join(', ')}`,
        'title',
      );
    }
    if (sr.titleBlacklistedStrings.some((word) => lowerTitle.includes(word.toLowerCase()))) {
      return submitError(
        'SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING',
        'Title contains a word this community does not allow',
        'title',
      );
    }
    const body = text(form.text);
    if (kind === 'self' && sr.bodyPolicy === 'required' && !body.trim())
      return submitError('SUBMIT_VALIDATION_BODY_REQUIRED', 'Post body is required', 'text');
    if (kind === 'self' && sr.bodyPolicy === 'notAllowed' && body.trim())
      return submitError('SUBMIT_VALIDATION_BODY_NOT_ALLOWED', 'Post body is not allowed', 'text');
    if (sr.bodyBlacklistedStrings.some((word) => body.toLowerCase().includes(word.toLowerCase()))) {
      return submitError(
        'SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING',
        'Post body contains a word this community does not allow',
        'text',
      );
    }
    if (kind === 'link') {
      const host = new URL(text(form.url)).hostname.replace(/^www\./, '');
      const on = (domain: string) => host === domain || host.endsWith(`.${domain}`);
      if (sr.domainBlacklist.some(on) || (sr.domainWhitelist.length && !sr.domainWhitelist.some(on))) {
        return submitError('SUBMIT_VALIDATION_DOMAIN', `Links to ${host} are not allowed in this community`, 'url');
      }
    }
    return null;
  }

  function submit(request: StandinRequest, user: string): StandinResponse {
    const form = fieldsOf(request);
    if (text(form.api_type) !== 'json')
      problem(request, 'POST /api/submit without api_type=json answers in the legacy jQuery format');
    if (faults.throttle !== null) {
      const words = faults.throttle;
      faults.throttle = null;
      return submitError('RATELIMIT', words, 'ratelimit');
    }
    const sr = subredditNamed(text(form.sr).replace(/^\/?r\//i, ''));
    const refusal = submitRefusal(form, user, sr);
    if (refusal) return refusal;
    const kind = text(form.kind) as StandinPost['kind'];
    const flair = sr!.flairs.find((candidate) => candidate.id === text(form.flair_id)) ?? null;
    const fields = {
      subreddit: sr!.name,
      author: user,
      kind,
      title: text(form.title),
      selftext: kind === 'self' ? text(form.text) : '',
      url: text(form.url),
      flairId: flair?.id ?? null,
      flairText: flair ? (flair.textEditable && text(form.flair_text)) || flair.text : null,
      nsfw: text(form.nsfw) === 'true',
      spoiler: text(form.spoiler) === 'true',
      sendReplies: text(form.sendreplies) !== 'false',
    };
    const asset = kind === 'image' ? assetAt(text(form.url)) : undefined;
    if (asset) {
      // A lease upload becomes a post once processed; the answer names only where it will show.
      const timer = setTimeout(() => {
        timers.delete(timer);
        // An upload that never arrived fails processing: no post (Reddit's websocket would say "failed").
        if (asset.uploaded && asset.owner === user) {
          createPost({ ...fields, url: `https://i.redd.it/${asset.id}.${IMAGE_TYPES[asset.mimetype]}` });
        }
      }, processingMs);
      timers.add(timer);
      return json(200, {
        json: {
          errors: [],
          data: {
            user_submitted_page: `${WWW}/user/${user}/submitted/`,
            websocket_url: `wss://ws-standin.wss.redditmedia.com/rte_images/${asset.id}?m=${randomBytes(12).toString('base64url')}`,
          },
        },
      });
    }
    const post = createPost(fields);
    return json(200, { json: { errors: [], data: { url: post.url, drafts_count: 0, id: post.id, name: post.name } } });
  }

  function submitted(request: StandinRequest, name: string): StandinResponse {
    if (!users.has(name.toLowerCase())) return json(404, { message: 'Not Found', error: 404 });
    // Newest first; a post its author deleted leaves the listing.
    const mine = [...posts.values()]
      .filter((post) => post.author.toLowerCase() === name.toLowerCase() && post.removedByCategory !== 'deleted')
      .reverse();
    const limit = Math.min(100, Math.max(1, Number(request.url.searchParams.get('limit')) || 25));
    const after = request.url.searchParams.get('after');
    const start = after ? mine.findIndex((post) => post.name === after) + 1 : 0;
    const page = mine.slice(start, start + limit);
    const more = start + limit < mine.length;
    return json(200, listing(page.map(thing), more ? page[page.length - 1]!.name : null));
  }

  function info(request: StandinRequest): StandinResponse {
    const ids = (request.url.searchParams.get('id') ?? '').split(',').filter(Boolean);
    // More than 100 ids: all are ignored; ids with upper-case letters are ignored.
    const found =
      ids.length > 100 ? [] : ids.filter((id) => /^t3_[0-9a-z]+$/.test(id)).map((id) => posts.get(id.slice(3)));
    return json(200, listing(found.filter((post): post is StandinPost => Boolean(post)).map(thing)));
  }

  function remove(request: StandinRequest, user: string): StandinResponse {
    const post = posts.get(text(fieldsOf(request).id).replace(/^t3_/, ''));
    if (post && post.author === user) post.removedByCategory = 'deleted';
    return json(200, {});
  }

  function endpoint(path: string, request: StandinRequest, user: string): StandinResponse {
    const notFound = json(404, { message: 'Not Found', error: 404 });
    const [, first, second, third] = path.split('/');
    const get = request.method === 'GET';
    if (path === '/api/v1/me' && get) {
      const me = userNamed(user);
      return json(200, {
        id: me.id,
        name: me.name,
        created: me.created,
        created_utc: me.created,
        link_karma: 1,
        comment_karma: 1,
        total_karma: 2,
        has_verified_email: true,
        is_suspended: false,
        is_mod: false,
        verified: true,
        over_18: false,
        subreddit: {
          display_name: `u_${me.name}`,
          display_name_prefixed: `u/${me.name}`,
          title: '',
          subreddit_type: 'user',
        },
      });
    }
    if (first === 'r' && third === 'about' && get) {
      const sr = subredditNamed(second!);
      if (!sr) return json(200, listing([]));
      if (sr.banned) return json(404, { reason: 'banned', message: 'Not Found', error: 404 });
      if (closedTo(sr, user)) return json(403, { reason: 'private', message: 'Forbidden', error: 403 });
      return json(200, aboutData(sr, user));
    }
    if (path.endsWith('/post_requirements') && get) {
      const sr = subredditNamed(third!);
      if (!sr)
        return json(404, {
          explanation: "Hmm, that community doesn't exist. Try checking the spelling.",
          message: 'Not Found',
          reason: 'SUBREDDIT_NOEXIST',
        });
      if (closedTo(sr, user))
        return json(403, {
          explanation: "you aren't allowed access to this subreddit",
          message: 'Forbidden',
          reason: 'SUBREDDIT_NO_ACCESS',
        });
      return json(200, requirementsOf(sr));
    }
    if (path.endsWith('/api/link_flair_v2') && get) {
      const sr = subredditNamed(second!);
      if (!sr) return notFound;
      // "Will not return flair if the user cannot set their own link flair."
      if (closedTo(sr, user) || sr.flairs.length === 0) return json(403, { message: 'Forbidden', error: 403 });
      return json(200, sr.flairs.map(flairTemplate));
    }
    if (path === '/api/media/asset' && !get) return mediaLease(request, user);
    if (path === '/api/submit' && !get) return submit(request, user);
    if (first === 'user' && third === 'submitted' && get) return submitted(request, decodeURIComponent(second!));
    if (path === '/api/info' && get) return info(request);
    if (path === '/api/del' && !get) return remove(request, user);
    return notFound;
  }

  async function oauthApi(request: StandinRequest): Promise<StandinResponse | null> {
    const path = request.url.pathname.replace(/\.json$/, '').replace(/\/+$/, '');
    const scope = ROUTE_SCOPES.find(([pattern]) => pattern.test(path))?.[1];
    if (!scope) return null;
    const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const grant = bearer ? accessTokens.get(bearer) : undefined;
    const limits = countRequest(grant?.clientId ?? 'anonymous');
    if (faults.rateLimited > 0) {
      faults.rateLimited -= 1;
      return json(429, { message: 'Too Many Requests', error: 429 }, rateHeaders(budget.limit, 0, faults.retryAfter));
    }
    if (limits.over) return json(429, { message: 'Too Many Requests', error: 429 }, limits.headers);
    if (!grant || grant.expiresAt <= Date.now()) {
      return json(
        401,
        { message: 'Unauthorized', error: 401 },
        { ...limits.headers, 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' },
      );
    }
    if (!grant.scope.includes(scope)) {
      return json(
        403,
        { message: 'Forbidden', error: 403 },
        { ...limits.headers, 'www-authenticate': 'Bearer realm="reddit", error="insufficient_scope"' },
      );
    }
    const answer = endpoint(path, request, grant.user);
    const raw = request.url.searchParams.get('raw_json') === '1';
    return {
      ...answer,
      body: raw ? answer.body : legacyEscaped(answer.body),
      headers: { ...limits.headers, ...answer.headers },
    };
  }

  // ---- Faults and the house rules every request meets ---------------------------------------------------
  const isPage = (request: StandinRequest) => request.url.pathname === '/api/v1/authorize';

  function problem(request: StandinRequest, what: string) {
    server.violations.push({ exchange: `${request.method} ${request.url.pathname}`, problem: what });
  }

  function houseRules(request: StandinRequest): StandinResponse | null {
    if (isPage(request)) return null; // a person's browser, not the API client
    if (!DESCRIPTIVE_USER_AGENT.test(request.headers['user-agent'] ?? '')) {
      problem(
        request,
        `User-Agent "${request.headers['user-agent'] ?? ''}" is not the descriptive <platform>:<app id>:<version> (by /u/<name>) Reddit requires`,
      );
    }
    if (faults.failing > 0) {
      faults.failing -= 1;
      const status = faults.failStatus;
      return json(status, { message: status === 503 ? 'Service Unavailable' : 'Internal Server Error', error: status });
    }
    return null;
  }

  const server: StandinServer = await startStandin({
    routes: [houseRules, consentPage, tokenEndpoints, storeUpload, oauthApi],
    checker: loadSpecChecker('reddit'),
    // The consent page is HTML for a person; the bucket upload is Amazon S3's protocol, not Reddit's API.
    unchecked: (request) => isPage(request) || request.url.pathname === UPLOAD_PATH,
  });

  const postById = (id: string) => {
    const post = posts.get(id.replace(/^t3_/, ''));
    if (!post) throw new Error(`The stand-in has no post ${id}`);
    return post;
  };

  return {
    url: server.url,
    clientId,
    clientSecret,
    exchanges: server.exchanges,
    violations: server.violations,
    hold: (match) => server.hold(match),
    authorize: (authorizationUrl, as) => pressButton(authorizationUrl, as, 'Allow'),
    decline: (authorizationUrl, as) => pressButton(authorizationUrl, as, 'Decline'),
    createSubreddit(name, settings = {}) {
      subreddits.set(name.toLowerCase(), {
        name,
        id: id36(5),
        type: settings.type ?? 'public',
        submissionType: settings.submissionType ?? 'any',
        allowImages: settings.allowImages ?? true,
        banned: settings.banned ?? false,
        flairRequired: settings.flairRequired ?? false,
        flairs: (settings.flairs ?? []).map((flair) => ({
          id: flair.id ?? crypto.randomUUID(),
          text: flair.text,
          textEditable: flair.textEditable ?? false,
          modOnly: flair.modOnly ?? false,
        })),
        titleMin: settings.titleMin ?? null,
        titleMax: settings.titleMax ?? null,
        titleRequiredStrings: settings.titleRequiredStrings ?? [],
        titleBlacklistedStrings: settings.titleBlacklistedStrings ?? [],
        bodyPolicy: settings.bodyPolicy ?? 'none',
        bodyRequiredStrings: settings.bodyRequiredStrings ?? [],
        bodyBlacklistedStrings: settings.bodyBlacklistedStrings ?? [],
        domainBlacklist: settings.domainBlacklist ?? [],
        domainWhitelist: settings.domainWhitelist ?? [],
        guidelines: settings.guidelines ?? null,
        bannedUsers: settings.bannedUsers ?? [],
        approvedUsers: settings.approvedUsers ?? [],
        moderators: settings.moderators ?? [],
      });
    },
    posts: () => [...posts.values()].map((post) => ({ ...post })),
    setEngagement(id, engagement) {
      const post = postById(id);
      if (engagement.score !== undefined) post.score = engagement.score;
      if (engagement.numComments !== undefined) post.numComments = engagement.numComments;
      if (engagement.upvoteRatio !== undefined) post.upvoteRatio = engagement.upvoteRatio;
    },
    removePost(id, by = 'moderator') {
      postById(id).removedByCategory = by;
    },
    expireAccessTokens() {
      for (const grant of accessTokens.values()) grant.expiresAt = Date.now() - 1;
    },
    refuseRefresh() {
      for (const grant of refreshTokens.values()) grant.revoked = true;
    },
    rateLimitNext(n, retryAfterSeconds) {
      faults.rateLimited = n;
      faults.retryAfter = retryAfterSeconds;
    },
    throttleNextSubmit(
      words = "Looks like you've been doing that a lot. Take a break for 5 minutes before trying again.",
    ) {
      faults.throttle = words;
    },
    failNext(n, status = 500) {
      faults.failing = n;
      faults.failStatus = status;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  };
}
