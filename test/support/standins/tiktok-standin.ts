/**
 * A stand-in for TikTok (Login Kit OAuth v2 and the Content Posting API), for tests: a real HTTP server on
 * loopback that speaks TikTok's protocol as its developer documentation describes it — paths, form and JSON
 * bodies, `{ data, error: { code, message, log_id } }` answers with their HTTP statuses, the OAuth endpoints'
 * `{ error, error_description, log_id }`, PKCE, chunked uploads with `Content-Range` (206 until the file is
 * whole, 201 then), the publish statuses in order, moderation before a public post id, and the documented
 * limit on publish inits (6 a minute per user access token). Give its `url` to the adapter as every host (the
 * consent page, the API and the upload URLs it hands out are all served here).
 *
 * State is in memory; a publish moves on with time (`processingMs`, `moderationMs`) as it is read, without
 * timers. What TikTok checks inside a video file (codec, duration, frame rate) is not checked beyond the
 * container's signature: `failNextPublish(reason)` makes a publish fail the way TikTok reports it.
 */
import { testFetch } from '../http.ts';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import {
  startStandin,
  type ExchangeChecker,
  type StandinRequest,
  type StandinResponse,
  type StandinRoute,
  type StandinServer,
} from './standin-server.ts';
import { loadSpecChecker } from '../vendor-specs/spec-checker.ts';

const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'] as const;
type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

/** Scopes and the user fields each one opens (TikTok's scopes overview and `/v2/user/info/` reference). */
const SCOPE_NAMES: Record<string, string> = {
  'user.info.basic': 'Read your profile info (avatar, display name)',
  'user.info.profile': 'Read your profile details (username, bio, verified)',
  'user.info.stats': 'Read your statistics (followers, likes, videos)',
  'video.publish': 'Post content to your TikTok account directly',
  'video.upload': 'Share content to your TikTok inbox as a draft',
  'video.list': 'Read your public videos on TikTok',
};
const USER_FIELDS: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};
const VIDEO_FIELDS = [
  'id',
  'create_time',
  'cover_image_url',
  'share_url',
  'video_description',
  'duration',
  'height',
  'width',
  'title',
  'embed_html',
  'embed_link',
  'like_count',
  'comment_count',
  'share_count',
  'view_count',
];

const MB = 1024 * 1024;
const ACCESS_TTL_S = 86_400;
const REFRESH_TTL_S = 31_536_000;
const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

export interface StandinCreator {
  openId: string;
  unionId: string;
  username: string;
  nickname: string;
  privacyOptions: PrivacyLevel[];
  maxDurationSec: number;
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  /** TikTok answers `spam_risk_user_banned_from_posting`. */
  bannedFromPosting: boolean;
  /** Posts through apps in any 24 hours before `spam_risk_too_many_posts`. */
  postsPer24h: number;
}

export interface StandinEngagement {
  views: number;
  likes: number;
  comments: number;
  shares: number;
}

/** One publish (`video/init` or `inbox/video/init`), as the stand-in holds it. */
export interface StandinPublish {
  publishId: string;
  openId: string;
  mode: 'direct' | 'inbox';
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  /** `post_info` as sent (direct posts; the inbox takes none). */
  postInfo: Record<string, unknown> | null;
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';
  failReason: string | null;
  /** The public post id, once moderation made it public. */
  publicId: string | null;
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
  /** The file as TikTok has it (chunks in order). */
  data: Buffer;
  uploadId: string | null;
  /** Unix seconds, when TikTok published it. */
  createTime: number | null;
  engagement: StandinEngagement;
  /** Internal: when processing ends, when moderation ends (ms), and the upload URL's expiry. */
  readyAt: number | null;
  publicAt: number | null;
  uploadExpiresAt: number;
  uploadToken: string;
  contentType: string | null;
  plannedFailure: string | null;
}

export interface TikTokStandinOptions {
  clientKey?: string;
  clientSecret?: string;
  /** The app's name on the consent page. */
  appName?: string;
  /** Whether the app passed TikTok's audit (unaudited: SELF_ONLY posts only). */
  audited?: boolean;
  /** How long TikTok processes a video once it has the whole file. */
  processingMs?: number;
  /** How long moderation takes after a non-private post is published; null: only `makePublic` ends it. */
  moderationMs?: number | null;
  /** How long an authorization code is good for. */
  codeTtlMs?: number;
}

export interface TikTokStandin extends Pick<StandinServer, 'url' | 'exchanges' | 'violations' | 'hold' | 'close'> {
  clientKey: string;
  clientSecret: string;
  audited: boolean;
  processingMs: number;
  moderationMs: number | null;
  createCreator(input?: Partial<Omit<StandinCreator, 'openId' | 'unionId'>>): StandinCreator;
  /** Goes through the consent page as `as` (a username; the first creator by default) and returns the redirect. */
  authorize(
    authorizationUrl: string,
    as?: string,
    choice?: { decision?: 'allow' | 'cancel'; grant?: string[] },
  ): Promise<string>;
  expireAccessTokens(): void;
  /** Every refresh token is refused from now on (`invalid_grant`), as after the person removed the app. */
  refuseRefresh(): void;
  /** The next `n` API requests get TikTok's 429 (`rate_limit_exceeded`); `Retry-After` only when given. */
  rateLimitNext(n: number, retryAfterSeconds?: number): void;
  /** The next `n` API requests fail with `status` (`internal_error`). */
  failNext(n: number, status?: number): void;
  /** The next publish to finish processing fails with this `fail_reason`. */
  failNextPublish(reason: string): void;
  /** Moderation done: the post gets its public id (returned). */
  makePublic(publishId: string): string;
  setEngagement(postId: string, counts: Partial<StandinEngagement>): void;
  publishes(): StandinPublish[];
  /** Posts on creators' profiles (`PUBLISH_COMPLETE`). */
  posts(): StandinPublish[];
  /** Serves `bytes` at a URL under a verified prefix (for PULL_FROM_URL); returns the URL. */
  addMedia(name: string, bytes: Buffer, contentType: string): string;
  /** A URL prefix verified with TikTok (the stand-in's own media prefix is, from the start). */
  verifyUrlPrefix(prefix: string): void;
}

interface Token {
  openId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}
interface Code {
  openId: string;
  scopes: string[];
  redirectUri: string;
  challenge: string;
  expiresAt: number;
  used: boolean;
}

const digits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');
const token = (prefix: string) => `${prefix}.${randomBytes(24).toString('base64url')}`;
const logId = () =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(10).toString('hex').toUpperCase()}`;
/** A 19-digit id, written into JSON as the int64 TikTok documents (not a rounded JavaScript number). */
const int64 = (id: string) => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(id);
const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function answer(status: number, data: unknown, code = 'ok', message = ''): StandinResponse {
  const log = logId();
  return { status, headers: { 'x-tt-logid': log }, body: { data, error: { code, message, log_id: log } } };
}
const refuse = (status: number, code: string, message: string) => answer(status, {}, code, message);
const oauthError = (status: number, error: string, description: string): StandinResponse => ({
  status,
  body: { error, error_description: description, log_id: logId() },
});
const html = (status: number, body: string): StandinResponse => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>TikTok</title></head><body>${body}</body></html>`,
});

export async function startTikTokStandin(options: TikTokStandinOptions = {}): Promise<TikTokStandin> {
  const clientKey = options.clientKey ?? 'standin-client-key';
  const clientSecret = options.clientSecret ?? 'standin-client-secret';
  const appName = options.appName ?? 'Campaign Platform';
  const creators: StandinCreator[] = [];
  const tokens = new Map<string, Token>();
  const refreshTokens = new Map<string, Token>();
  const codes = new Map<string, Code>();
  const publishes: StandinPublish[] = [];
  const media = new Map<string, { bytes: Buffer; contentType: string }>();
  const initTimes = new Map<string, number[]>();
  const verifiedPrefixes: string[] = [];
  const faults = { rateLimited: 0, retryAfter: undefined as number | undefined, failing: 0, failStatus: 500 };
  let plannedFailure: string | null = null;

  const creatorOf = (openId: string) => creators.find((creator) => creator.openId === openId)!;

  /** Moves a publish on to where time has brought it. */
  function advance(publish: StandinPublish, now = Date.now()): void {
    if (publish.readyAt !== null && now >= publish.readyAt && publish.status.startsWith('PROCESSING')) {
      const failure = publish.plannedFailure ?? (signatureOk(publish) ? null : 'file_format_check_failed');
      if (failure) {
        publish.status = 'FAILED';
        publish.failReason = failure;
      } else if (publish.mode === 'inbox') {
        publish.status = 'SEND_TO_USER_INBOX';
      } else {
        publish.status = 'PUBLISH_COMPLETE';
        publish.createTime = Math.floor(publish.readyAt / 1000);
        const privacy = publish.postInfo?.privacy_level;
        if (privacy !== 'SELF_ONLY' && standin.moderationMs !== null) {
          publish.publicAt = publish.readyAt + standin.moderationMs;
        }
      }
    }
    if (publish.publicAt !== null && now >= publish.publicAt && !publish.publicId) publish.publicId = `7${digits(18)}`;
  }

  /** MP4 and MOV start with an `ftyp` box, WebM with the EBML magic number. */
  function signatureOk(publish: StandinPublish): boolean {
    const { data } = publish;
    return data.length >= 8 && (data.toString('latin1', 4, 8) === 'ftyp' || data.readUInt32BE(0) === 0x1a45dfa3);
  }

  function finishTransfer(publish: StandinPublish): void {
    publish.readyAt = Date.now() + standin.processingMs;
    publish.plannedFailure = plannedFailure;
    plannedFailure = null;
  }

  /** The access token of an API request, or TikTok's refusal. */
  function bearer(request: StandinRequest, scopes: string[]): { token: Token } | { refused: StandinResponse } {
    const value = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const found = value ? tokens.get(value) : undefined;
    if (!found || found.revoked || found.expiresAt <= Date.now()) {
      return {
        refused: refuse(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
      };
    }
    if (scopes.length && !scopes.some((scope) => found.scopes.includes(scope))) {
      return {
        refused: refuse(
          401,
          'scope_not_authorized',
          `The user did not authorize the scope required: ${scopes.join(' or ')}.`,
        ),
      };
    }
    return { token: found };
  }

  // --- OAuth: the consent page, the token and revoke endpoints ---------------------------------------------

  function consentPage(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'GET' || request.url.pathname !== '/v2/auth/authorize/') return null;
    const query = Object.fromEntries(request.url.searchParams);
    const problem =
      query.client_key !== clientKey
        ? 'client_key'
        : !query.redirect_uri
          ? 'redirect_uri'
          : query.response_type !== 'code'
            ? 'response_type'
            : !query.scope || query.scope.split(',').some((scope) => !SCOPE_NAMES[scope])
              ? 'scope'
              : !query.code_challenge || query.code_challenge_method !== 'S256'
                ? 'code_challenge'
                : creators.length === 0
                  ? 'no account is signed in'
                  : null;
    if (problem) {
      return html(
        400,
        `<h1>We couldn't log in with TikTok</h1><p>This may be due to specific app settings.</p><p>If you're a developer, correct the following and try again: <code>${escape(problem)}</code></p>`,
      );
    }
    const hidden = ['client_key', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method']
      .map((name) => `<input type="hidden" name="${name}" value="${escape(query[name] ?? '')}">`)
      .join('');
    const scopes = query
      .scope!.split(',')
      .map(
        (scope) =>
          `<li><label><input type="checkbox" name="scope" value="${scope}" checked> ${escape(SCOPE_NAMES[scope]!)}</label></li>`,
      )
      .join('');
    const accounts = creators
      .map((creator) => `<option value="${escape(creator.username)}">@${escape(creator.username)}</option>`)
      .join('');
    return html(
      200,
      `<main><h1>${escape(appName)} would like to access your TikTok account</h1>
<form method="post" action="/v2/auth/authorize/">${hidden}
<p><label>Signed in as <select name="account">${accounts}</select></label></p>
<p>${escape(appName)} will be able to:</p><ul>${scopes}</ul>
<button type="submit" name="decision" value="cancel">Cancel</button>
<button type="submit" name="decision" value="allow">Authorize</button>
</form></main>`,
    );
  }

  function consentDecision(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/auth/authorize/') return null;
    // A browser posts the checked scopes as repeated fields; the parsed form keeps one, so read the raw body.
    const form = new URLSearchParams(request.raw.toString('utf8'));
    const redirect = new URL(form.get('redirect_uri') ?? '');
    const state = form.get('state') ?? '';
    if (form.get('client_key') !== clientKey) return html(400, '<h1>Something went wrong</h1>');
    if (form.get('decision') !== 'allow') {
      redirect.search = new URLSearchParams({
        error: 'access_denied',
        error_description: 'The user denied the request',
        state,
      }).toString();
      return { status: 302, headers: { location: redirect.toString() } };
    }
    const creator = creators.find((candidate) => candidate.username === form.get('account')) ?? creators[0]!;
    const scopes = form.getAll('scope');
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      openId: creator.openId,
      scopes,
      redirectUri: form.get('redirect_uri') ?? '',
      challenge: form.get('code_challenge') ?? '',
      expiresAt: Date.now() + (options.codeTtlMs ?? 5 * 60 * 1000),
      used: false,
    });
    redirect.search = new URLSearchParams({ code, scopes: scopes.join(','), state }).toString();
    return { status: 302, headers: { location: redirect.toString() } };
  }

  function issueTokens(openId: string, scopes: string[]): StandinResponse {
    const access = token('act');
    const refresh = token('rft');
    const grant = { openId, scopes, revoked: false };
    tokens.set(access, { ...grant, expiresAt: Date.now() + ACCESS_TTL_S * 1000 });
    refreshTokens.set(refresh, { ...grant, expiresAt: Date.now() + REFRESH_TTL_S * 1000 });
    return {
      status: 200,
      body: {
        access_token: access,
        expires_in: ACCESS_TTL_S,
        open_id: openId,
        refresh_expires_in: REFRESH_TTL_S,
        refresh_token: refresh,
        scope: scopes.join(','),
        token_type: 'Bearer',
      },
    };
  }

  function tokenEndpoint(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/oauth/token/') return null;
    const form = (request.body ?? {}) as Record<string, string>;
    if (!request.contentType?.startsWith('application/x-www-form-urlencoded')) {
      return oauthError(400, 'invalid_request', 'The request must be application/x-www-form-urlencoded.');
    }
    if (form.client_key !== clientKey || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client key or secret is incorrect.');
    }
    if (form.grant_type === 'authorization_code') {
      const code = codes.get(form.code ?? '');
      if (!code || code.used || code.expiresAt <= Date.now()) {
        return oauthError(400, 'invalid_grant', 'Authorization code is expired.');
      }
      code.used = true;
      if (form.redirect_uri !== code.redirectUri) {
        return oauthError(400, 'invalid_grant', 'The redirect_uri does not match the authorization request.');
      }
      const computed = createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url');
      if (!form.code_verifier || computed !== code.challenge) {
        return oauthError(400, 'invalid_request', 'Code verifier or code challenge is invalid.');
      }
      return issueTokens(code.openId, code.scopes);
    }
    if (form.grant_type === 'refresh_token') {
      const grant = refreshTokens.get(form.refresh_token ?? '');
      if (!grant || grant.revoked || grant.expiresAt <= Date.now()) {
        return oauthError(400, 'invalid_grant', 'Refresh token is invalid or expired.');
      }
      // TikTok may hand back a new refresh token; this one rotates it, so the old one is spent.
      refreshTokens.delete(form.refresh_token!);
      return issueTokens(grant.openId, grant.scopes);
    }
    return oauthError(400, 'unsupported_grant_type', 'The grant type is not supported.');
  }

  function revokeEndpoint(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/oauth/revoke/') return null;
    const form = (request.body ?? {}) as Record<string, string>;
    if (form.client_key !== clientKey || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client key or secret is incorrect.');
    }
    const revoked = tokens.get(form.token ?? '');
    if (revoked) {
      // Revoking takes the app's access away: every token of that grant.
      for (const grant of [...tokens.values(), ...refreshTokens.values()]) {
        if (grant.openId === revoked.openId) grant.revoked = true;
      }
    }
    return { status: 200, body: {} };
  }

  // --- The API ------------------------------------------------------------------------------------------------

  function faultsFirst(request: StandinRequest): StandinResponse | null {
    if (!request.url.pathname.startsWith('/v2/') || request.url.pathname.startsWith('/v2/auth/')) return null;
    // The OAuth endpoints answer in OAuth's shape, the rest of the API in TikTok's.
    const oauth = request.url.pathname.startsWith('/v2/oauth/');
    if (faults.rateLimited > 0) {
      faults.rateLimited -= 1;
      const response = oauth
        ? oauthError(429, 'temporarily_unavailable', 'Too many requests. Please try again later.')
        : refuse(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
      response.headers ??= {};
      if (faults.retryAfter !== undefined) response.headers['retry-after'] = String(faults.retryAfter);
      return response;
    }
    if (faults.failing > 0) {
      faults.failing -= 1;
      return oauth
        ? oauthError(faults.failStatus, 'server_error', 'Something went wrong. Please try again later.')
        : refuse(faults.failStatus, 'internal_error', 'Something went wrong. Please try again later.');
    }
    return null;
  }

  function userInfo(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'GET' || request.url.pathname !== '/v2/user/info/') return null;
    const auth = bearer(request, ['user.info.basic']);
    if ('refused' in auth) return auth.refused;
    const fields = (request.url.searchParams.get('fields') ?? '').split(',').filter(Boolean);
    if (fields.length === 0 || fields.some((field) => !USER_FIELDS[field])) {
      return refuse(400, 'invalid_params', 'One or more fields in request is invalid.');
    }
    const missing = fields.filter((field) => !auth.token.scopes.includes(USER_FIELDS[field]!));
    if (missing.length) {
      return refuse(400, 'scope_permission_missed', `Fields need additional scopes: ${missing.join(',')}.`);
    }
    const creator = creatorOf(auth.token.openId);
    const all: Record<string, unknown> = {
      open_id: creator.openId,
      union_id: creator.unionId,
      avatar_url: `https://p16-sign.tiktokcdn-us.com/${creator.openId}.jpeg`,
      avatar_url_100: `https://p16-sign.tiktokcdn-us.com/${creator.openId}~100.jpeg`,
      avatar_large_url: `https://p16-sign.tiktokcdn-us.com/${creator.openId}~720.jpeg`,
      display_name: creator.nickname,
      username: creator.username,
    };
    return answer(200, { user: Object.fromEntries(fields.filter((field) => field in all).map((f) => [f, all[f]])) });
  }

  function creatorInfo(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/post/publish/creator_info/query/') return null;
    const auth = bearer(request, ['video.publish']);
    if ('refused' in auth) return auth.refused;
    const creator = creatorOf(auth.token.openId);
    if (creator.bannedFromPosting) {
      return refuse(403, 'spam_risk_user_banned_from_posting', 'The user is banned from making new posts.');
    }
    return answer(200, {
      creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/${creator.openId}.jpeg`,
      creator_username: creator.username,
      creator_nickname: creator.nickname,
      privacy_level_options: creator.privacyOptions,
      comment_disabled: creator.commentDisabled,
      duet_disabled: creator.duetDisabled,
      stitch_disabled: creator.stitchDisabled,
      max_video_post_duration_sec: creator.maxDurationSec,
    });
  }

  /** The media transfer guide's chunk rules, or what breaks them. */
  function chunkProblem(size: number, chunk: number, count: number): string | null {
    if (![size, chunk, count].every((value) => Number.isInteger(value) && value > 0)) {
      return 'video_size, chunk_size and total_chunk_count must be positive integers';
    }
    if (size < 5 * MB) return chunk === size && count === 1 ? null : 'a video under 5 MB is uploaded as one chunk';
    if (chunk < 5 * MB || chunk > 64 * MB) return 'chunk_size must be between 5 MB and 64 MB';
    if (count !== Math.floor(size / chunk)) return 'total_chunk_count must be video_size / chunk_size, rounded down';
    if (count > 1000) return 'at most 1000 chunks';
    if (size - (count - 1) * chunk > 128 * MB) return 'the final chunk may be at most 128 MB';
    return null;
  }

  function publishInit(request: StandinRequest): StandinResponse | null {
    const inbox = request.url.pathname === '/v2/post/publish/inbox/video/init/';
    if (request.method !== 'POST' || (!inbox && request.url.pathname !== '/v2/post/publish/video/init/')) return null;
    const auth = bearer(request, [inbox ? 'video.upload' : 'video.publish']);
    if ('refused' in auth) return auth.refused;
    // Each user access token may ask 6 times a minute (sliding window), each endpoint counted on its own.
    const key = `${request.url.pathname} ${request.headers.authorization}`;
    const recent = (initTimes.get(key) ?? []).filter((at) => at > Date.now() - 60_000);
    if (recent.length >= 6) {
      return refuse(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
    }
    initTimes.set(key, [...recent, Date.now()]);
    const creator = creatorOf(auth.token.openId);
    if (creator.bannedFromPosting) {
      return refuse(403, 'spam_risk_user_banned_from_posting', 'The user is banned from making new posts.');
    }
    const day = publishes.filter(
      (publish) => publish.openId === creator.openId && (publish.createTime ?? 0) * 1000 > Date.now() - 86_400_000,
    );
    if (!inbox && day.length >= creator.postsPer24h) {
      return refuse(
        403,
        'spam_risk_too_many_posts',
        'The daily post cap from the API is reached for the current user.',
      );
    }
    const body = (request.body ?? {}) as { post_info?: Record<string, unknown>; source_info?: Record<string, unknown> };
    const source = body.source_info?.source;
    let postInfo: Record<string, unknown> | null = null;
    if (!inbox) {
      postInfo = body.post_info ?? {};
      const privacy = postInfo.privacy_level as PrivacyLevel | undefined;
      if (!privacy || !PRIVACY_LEVELS.includes(privacy)) {
        return refuse(400, 'invalid_params', 'post_info.privacy_level is required.');
      }
      if (typeof postInfo.title === 'string' && postInfo.title.length > 2200) {
        return refuse(400, 'invalid_params', 'post_info.title is longer than 2200 runes.');
      }
      if (!creator.privacyOptions.includes(privacy)) {
        return refuse(403, 'privacy_level_option_mismatch', 'The privacy level is not among the creator’s options.');
      }
      if (!standin.audited && privacy !== 'SELF_ONLY') {
        return refuse(
          403,
          'unaudited_client_can_only_post_to_private_accounts',
          'Unaudited clients can only post with SELF_ONLY visibility.',
        );
      }
    }
    const id = digits(19);
    const base = {
      openId: creator.openId,
      mode: inbox ? ('inbox' as const) : ('direct' as const),
      postInfo,
      status: 'PROCESSING_UPLOAD' as StandinPublish['status'],
      failReason: null,
      publicId: null,
      data: Buffer.alloc(0),
      createTime: null,
      engagement: { views: 0, likes: 0, comments: 0, shares: 0 },
      readyAt: null,
      publicAt: null,
      uploadExpiresAt: Date.now() + UPLOAD_URL_TTL_MS,
      uploadToken: randomBytes(16).toString('hex'),
      contentType: null,
      plannedFailure: null,
    };
    if (source === 'FILE_UPLOAD') {
      const size = Number(body.source_info!.video_size);
      const chunk = Number(body.source_info!.chunk_size);
      const count = Number(body.source_info!.total_chunk_count);
      const problem = chunkProblem(size, chunk, count);
      if (problem) return refuse(400, 'invalid_params', `source_info: ${problem}.`);
      const publish: StandinPublish = {
        ...base,
        publishId: `${inbox ? 'v_inbox_file~v2' : 'v_pub_file~v2-1'}.${id}`,
        source: 'FILE_UPLOAD',
        videoSize: size,
        chunkSize: chunk,
        totalChunks: count,
        uploadId: digits(19),
      };
      publishes.push(publish);
      const uploadUrl = `${standin.url}/video/?upload_id=${publish.uploadId}&upload_token=${publish.uploadToken}`;
      return answer(200, { publish_id: publish.publishId, upload_url: uploadUrl });
    }
    if (source === 'PULL_FROM_URL') {
      const videoUrl = String(body.source_info!.video_url ?? '');
      if (!verifiedPrefixes.some((prefix) => videoUrl.startsWith(prefix))) {
        return refuse(403, 'url_ownership_unverified', 'The domain or URL prefix of video_url is not verified.');
      }
      const publish: StandinPublish = {
        ...base,
        publishId: `${inbox ? 'v_inbox_url~v2' : 'v_pub_url~v2-1'}.${id}`,
        source: 'PULL_FROM_URL',
        status: 'PROCESSING_DOWNLOAD',
        videoSize: 0,
        chunkSize: 0,
        totalChunks: 0,
        uploadId: null,
      };
      publishes.push(publish);
      void pull(publish, videoUrl);
      return answer(200, { publish_id: publish.publishId });
    }
    return refuse(400, 'invalid_params', 'source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
  }

  /** TikTok downloads the video itself, over HTTP, right after the init. */
  async function pull(publish: StandinPublish, videoUrl: string): Promise<void> {
    try {
      const response = await testFetch(videoUrl);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      publish.data = Buffer.from(await response.arrayBuffer());
      publish.videoSize = publish.data.length;
      publish.contentType = response.headers.get('content-type');
      finishTransfer(publish);
    } catch {
      publish.status = 'FAILED';
      publish.failReason = 'video_pull_failed';
    }
  }

  function uploadChunk(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'PUT' || request.url.pathname !== '/video/') return null;
    const publish = publishes.find(
      (candidate) =>
        candidate.uploadId === request.url.searchParams.get('upload_id') &&
        candidate.uploadToken === request.url.searchParams.get('upload_token'),
    );
    if (!publish || publish.uploadExpiresAt <= Date.now()) {
      return refuse(404, 'invalid_params', 'The upload URL is invalid or expired.');
    }
    if (publish.status !== 'PROCESSING_UPLOAD' || publish.readyAt !== null) {
      return refuse(400, 'invalid_file_upload', 'The file was already uploaded.');
    }
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(request.headers['content-range'] ?? '');
    const contentType = request.contentType ?? '';
    if (!range || !/^video\/(mp4|quicktime|webm)$/.test(contentType)) {
      return refuse(
        400,
        'invalid_file_upload',
        'Content-Range and a video Content-Type (mp4, quicktime, webm) are required.',
      );
    }
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    const index = first / publish.chunkSize;
    const expectedLast = index === publish.totalChunks - 1 ? publish.videoSize - 1 : first + publish.chunkSize - 1;
    // Chunks go in order; one already taken may be sent again (an upload resumed after a lost answer).
    if (
      total !== publish.videoSize ||
      !Number.isInteger(index) ||
      index >= publish.totalChunks ||
      first > publish.data.length ||
      last !== expectedLast ||
      request.raw.length !== last - first + 1
    ) {
      return refuse(400, 'invalid_file_upload', 'The chunk does not match the upload’s chunk plan.');
    }
    publish.data = Buffer.concat([publish.data.subarray(0, first), request.raw]);
    publish.contentType = contentType;
    if (publish.data.length < publish.videoSize) return { status: 206 };
    finishTransfer(publish);
    return { status: 201 };
  }

  function ownPublish(request: StandinRequest): { publish: StandinPublish } | { refused: StandinResponse } {
    const auth = bearer(request, ['video.publish', 'video.upload']);
    if ('refused' in auth) return auth;
    const publishId = (request.body as { publish_id?: unknown } | undefined)?.publish_id;
    const publish = publishes.find(
      (candidate) => candidate.publishId === publishId && candidate.openId === auth.token.openId,
    );
    if (!publish) return { refused: refuse(400, 'invalid_params', 'The publish_id does not exist.') };
    return { publish };
  }

  function statusFetch(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/post/publish/status/fetch/') return null;
    const found = ownPublish(request);
    if ('refused' in found) return found.refused;
    const { publish } = found;
    advance(publish);
    return answer(200, {
      status: publish.status,
      ...(publish.failReason ? { fail_reason: publish.failReason } : {}),
      publicaly_available_post_id: publish.publicId ? [int64(publish.publicId)] : [],
      ...(publish.source === 'FILE_UPLOAD'
        ? { uploaded_bytes: publish.data.length }
        : { downloaded_bytes: publish.data.length }),
    });
  }

  function videoOf(publish: StandinPublish, fields: string[]): Record<string, unknown> {
    const creator = creatorOf(publish.openId);
    const title = String(publish.postInfo?.title ?? '');
    const all: Record<string, unknown> = {
      id: publish.publicId,
      create_time: publish.createTime,
      share_url: `https://www.tiktok.com/@${creator.username}/video/${publish.publicId}`,
      video_description: title,
      title,
      duration: 0,
      like_count: publish.engagement.likes,
      comment_count: publish.engagement.comments,
      share_count: publish.engagement.shares,
      view_count: publish.engagement.views,
    };
    return Object.fromEntries(fields.filter((field) => field in all).map((field) => [field, all[field]]));
  }

  function videoFields(request: StandinRequest): string[] | null {
    const fields = (request.url.searchParams.get('fields') ?? '').split(',').filter(Boolean);
    return fields.length && fields.every((field) => VIDEO_FIELDS.includes(field)) ? fields : null;
  }

  /** The creator's public videos (moderated, with a public id), newest first. */
  function publicVideos(openId: string): StandinPublish[] {
    return publishes
      .filter((publish) => publish.openId === openId)
      .map((publish) => (advance(publish), publish))
      .filter((publish) => publish.publicId && publish.status === 'PUBLISH_COMPLETE')
      .sort((a, b) => b.createTime! - a.createTime!);
  }

  function videoList(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/video/list/') return null;
    const auth = bearer(request, ['video.list']);
    if ('refused' in auth) return auth.refused;
    const fields = videoFields(request);
    const body = (request.body ?? {}) as { max_count?: number; cursor?: number };
    const max = body.max_count ?? 10;
    if (!fields || !Number.isInteger(max) || max < 1 || max > 20) {
      return refuse(400, 'invalid_params', 'fields is required and max_count must be 1 to 20.');
    }
    const older = publicVideos(auth.token.openId).filter(
      (publish) => body.cursor === undefined || publish.createTime! * 1000 < body.cursor,
    );
    const page = older.slice(0, max);
    return answer(200, {
      videos: page.map((publish) => videoOf(publish, fields)),
      cursor: page.length ? page.at(-1)!.createTime! * 1000 : (body.cursor ?? 0),
      has_more: older.length > page.length,
    });
  }

  function videoQuery(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'POST' || request.url.pathname !== '/v2/video/query/') return null;
    const auth = bearer(request, ['video.list']);
    if ('refused' in auth) return auth.refused;
    const fields = videoFields(request);
    const ids = (request.body as { filters?: { video_ids?: unknown } } | undefined)?.filters?.video_ids;
    if (!fields || !Array.isArray(ids) || ids.length === 0 || ids.length > 20) {
      return refuse(400, 'invalid_params', 'fields is required and filters.video_ids takes 1 to 20 ids.');
    }
    const videos = publicVideos(auth.token.openId).filter((publish) => ids.includes(publish.publicId));
    return answer(200, { videos: videos.map((publish) => videoOf(publish, fields)), cursor: 0, has_more: false });
  }

  function mediaFile(request: StandinRequest): StandinResponse | null {
    if (request.method !== 'GET' || !request.url.pathname.startsWith('/_standin/media/')) return null;
    const file = media.get(decodeURIComponent(request.url.pathname.slice('/_standin/media/'.length)));
    if (!file) return { status: 404, body: 'not found', headers: { 'content-type': 'text/plain' } };
    return { status: 200, headers: { 'content-type': file.contentType }, body: file.bytes };
  }

  const routes: StandinRoute[] = [
    consentPage,
    consentDecision,
    mediaFile,
    faultsFirst,
    tokenEndpoint,
    revokeEndpoint,
    userInfo,
    creatorInfo,
    publishInit,
    statusFetch,
    videoList,
    videoQuery,
    uploadChunk,
  ];
  // The checker reads an answer as it went over the wire: a 19-digit post id written as an int64
  // (`JSON.rawJSON`) is an integer there, not the object that writes it.
  const specChecker = loadSpecChecker('tiktok');
  const wireChecker: ExchangeChecker = {
    check: (exchange) =>
      specChecker.check({
        ...exchange,
        responseBody:
          exchange.responseBody && typeof exchange.responseBody === 'object'
            ? (JSON.parse(JSON.stringify(exchange.responseBody)) as unknown)
            : exchange.responseBody,
      }),
  };
  const server = await startStandin({
    routes,
    checker: wireChecker,
    // The consent page and the stand-in's own media files are no part of TikTok's API.
    unchecked: (request) =>
      request.url.pathname.startsWith('/v2/auth/') || request.url.pathname.startsWith('/_standin/'),
  });
  verifiedPrefixes.push(`${server.url}/_standin/media/`);

  // The routes above read the controls' current values (processingMs, moderationMs, audited) from here.
  const standin: TikTokStandin = {
    url: server.url,
    exchanges: server.exchanges,
    violations: server.violations,
    hold: server.hold,
    close: server.close,
    clientKey,
    clientSecret,
    audited: options.audited ?? false,
    processingMs: options.processingMs ?? 50,
    moderationMs: options.moderationMs === undefined ? 0 : options.moderationMs,

    createCreator(input = {}) {
      const creator: StandinCreator = {
        openId: `-000${randomBytes(14).toString('hex')}`,
        unionId: randomBytes(16).toString('hex'),
        username: input.username ?? `creator_${randomBytes(3).toString('hex')}`,
        nickname: input.nickname ?? 'A Creator',
        privacyOptions: input.privacyOptions ?? [...PRIVACY_LEVELS],
        maxDurationSec: input.maxDurationSec ?? 600,
        commentDisabled: input.commentDisabled ?? false,
        duetDisabled: input.duetDisabled ?? false,
        stitchDisabled: input.stitchDisabled ?? false,
        bannedFromPosting: input.bannedFromPosting ?? false,
        postsPer24h: input.postsPer24h ?? 15,
      };
      creators.push(creator);
      return creator;
    },

    async authorize(authorizationUrl, as, choice = {}) {
      const page = await fetch(authorizationUrl);
      const text = await page.text();
      if (page.status !== 200)
        throw new Error(`The consent page refused the request: ${text.replace(/<[^>]+>/g, ' ')}`);
      const form = new URLSearchParams();
      for (const [, name, value] of text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
        form.append(
          name!,
          value!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))),
        );
      }
      const offered = [...text.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1]!);
      for (const scope of choice.grant ?? offered) form.append('scope', scope);
      form.append('account', as ?? creators[0]!.username);
      form.append('decision', choice.decision ?? 'allow');
      const action = new URL(/<form method="post" action="([^"]+)"/.exec(text)![1]!, authorizationUrl);
      const submitted = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'manual',
      });
      const location = submitted.headers.get('location');
      if (submitted.status !== 302 || !location) throw new Error(`The consent form answered ${submitted.status}`);
      return location;
    },

    expireAccessTokens() {
      for (const grant of tokens.values()) grant.expiresAt = Date.now() - 1;
    },
    refuseRefresh() {
      for (const grant of refreshTokens.values()) grant.revoked = true;
    },
    rateLimitNext(n, retryAfterSeconds) {
      faults.rateLimited = n;
      faults.retryAfter = retryAfterSeconds;
    },
    failNext(n, status = 500) {
      faults.failing = n;
      faults.failStatus = status;
    },
    failNextPublish(reason) {
      plannedFailure = reason;
    },
    makePublic(publishId) {
      const publish = publishes.find((candidate) => candidate.publishId === publishId);
      if (!publish) throw new Error(`No publish ${publishId}`);
      advance(publish);
      if (publish.status !== 'PUBLISH_COMPLETE') throw new Error(`${publishId} is ${publish.status}, not published`);
      publish.publicAt = Date.now();
      advance(publish);
      return publish.publicId!;
    },
    setEngagement(postId, counts) {
      const publish = publishes.find((candidate) => candidate.publicId === postId);
      if (!publish) throw new Error(`No public post ${postId}`);
      publish.engagement = { ...publish.engagement, ...counts };
    },
    publishes() {
      publishes.forEach((publish) => advance(publish));
      return [...publishes];
    },
    posts() {
      return standin.publishes().filter((publish) => publish.status === 'PUBLISH_COMPLETE');
    },
    addMedia(name, bytes, contentType) {
      media.set(name, { bytes, contentType });
      return `${server.url}/_standin/media/${encodeURIComponent(name)}`;
    },
    verifyUrlPrefix(prefix) {
      verifiedPrefixes.push(prefix);
    },
  };
  return standin;
}
