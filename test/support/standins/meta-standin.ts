/**
 * A stand-in for Meta's Graph API (Facebook Pages and Instagram with Facebook Login) and its Login dialog: a
 * real HTTP server on loopback that the Meta adapter talks to with real `fetch`, keeping its state in memory.
 *
 * What it does as Meta documents it (Graph API v24.0 reference, Facebook Login manual flow, Instagram Content
 * Publishing guide):
 * - **Login**: `GET /{v}/dialog/oauth` is a consent page (HTML a browser can click through) that redirects to
 *   `redirect_uri` with `code` and `state` (Facebook appends `#_=_`), or with `error=access_denied`. Codes are
 *   single-use, expire after `codeTtlMs`, are bound to the redirect URI, and to the PKCE challenge when one was
 *   sent. `GET /{v}/oauth/access_token` exchanges a code for a short-lived user token and
 *   (`grant_type=fb_exchange_token`) a user token for a long-lived one; `/me/accounts` lists the user's Pages
 *   with Page tokens and linked Instagram accounts.
 * - **Pages**: `/feed` (message, link, attached_media), `/photos` (multipart `source`, `published`), `/videos`
 *   (`file_url`, fetched, then processing for `processingMs`), `/posts` and `/videos` listings, node reads with
 *   `fields` (projected, edges such as `comments.summary(true)` included), insights, DELETE.
 * - **Instagram**: containers (`POST /{ig}/media`; images fetched at once and refused unless JPEG, videos
 *   fetched and processed for `processingMs`), `status_code` IN_PROGRESS → FINISHED (or ERROR / EXPIRED on
 *   demand), `media_publish` (50 per 24 hours), `/media` and `/stories` listings, `content_publishing_limit`,
 *   media insights (`impressions` refused as for media made after 2024-07-02), DELETE.
 * - **Errors** in Meta's shape `{error: {message, type, code, error_subcode, fbtrace_id}}`; every answer carries
 *   `X-App-Usage` and `X-Business-Use-Case-Usage` (percentages; `estimated_time_to_regain_access` in minutes).
 *
 * Test controls: `authorize`, `signInAs`, `expireAccessTokens`, `refuseRefresh`, `rateLimitNext`, `failNext`,
 * `refuseContentNext`, `failContainersNext`, `expireContainers`, `retireMetric`, `setEngagement`,
 * `publishElsewhere`, `posts`, and the shell's `hold`, `exchanges` and `violations` (every exchange but the
 * consent pages is checked against Meta's specification, `loadSpecChecker('meta')`).
 */
import { testFetch } from '../http.ts';
import { createHash, randomBytes } from 'node:crypto';
import {
  startStandin,
  type StandinRequest,
  type StandinResponse,
  type StandinServer,
  type UploadedFile,
} from './standin-server.ts';
import { loadSpecChecker } from '../vendor-specs/spec-checker.ts';

export interface MetaStandinInstagram {
  id: string;
  username: string;
  name?: string;
}

export interface MetaStandinPage {
  id: string;
  name: string;
  username?: string;
  instagram?: MetaStandinInstagram;
}

export interface MetaStandinUser {
  id: string;
  name: string;
  pages: MetaStandinPage[];
}

export interface MetaStandinOptions {
  appId?: string;
  appSecret?: string;
  appName?: string;
  users?: MetaStandinUser[];
  /** How long Meta "processes" a video or a media container. */
  processingMs?: number;
  /** How long an authorization code is good for (Meta: about 10 minutes). */
  codeTtlMs?: number;
}

export interface Engagement {
  impressions: number;
  reach: number;
  reactions: number;
  comments: number;
  shares: number;
  likes: number;
  saved: number;
  views: number;
}

export interface PublishedItem {
  network: 'facebook' | 'instagram';
  id: string;
  /** The Page or Instagram account it is on. */
  ownerId: string;
  kind: 'status' | 'photo' | 'album' | 'video' | 'image' | 'carousel' | 'reel' | 'story';
  text: string;
  link: string | null;
  media: { type: 'image' | 'video'; bytes: number; contentType: string; url: string | null; alt: string | null }[];
  createdAt: Date;
  permalink: string;
  engagement: Engagement;
  deleted: boolean;
}

export interface MetaStandin {
  url: string;
  appId: string;
  appSecret: string;
  exchanges: StandinServer['exchanges'];
  violations: StandinServer['violations'];
  hold: StandinServer['hold'];
  /** Opens the consent page of `authorizationUrl` and presses Allow (or Cancel) as `as`; returns the redirect URL. */
  authorize(authorizationUrl: string, as?: string, decision?: 'allow' | 'cancel'): Promise<string>;
  /** The Facebook user the consent page shows (the first configured user by default). */
  signInAs(userId: string): void;
  /** Page tokens and short-lived user tokens stop working (code 190); long-lived user tokens can still be exchanged. */
  expireAccessTokens(): void;
  /** Every user token is invalidated (code 190, subcode 460): exchanging it fails. */
  refuseRefresh(): void;
  /** The next `count` Graph calls are refused as rate-limited (default code 32, a Page's limit). */
  rateLimitNext(count: number, retryAfterSeconds: number, code?: 4 | 17 | 32 | 613): void;
  /** The next `count` Graph calls fail with `status` (a transient Meta error). */
  failNext(count: number, status?: number): void;
  /** The next `count` posts are refused as Meta refuses content (code 368). */
  refuseContentNext(count?: number): void;
  /** The next `count` media containers end in ERROR (or EXPIRED) instead of FINISHED. */
  failContainersNext(count?: number, statusCode?: 'ERROR' | 'EXPIRED'): void;
  /** Every container not yet published expires (as after 24 hours). */
  expireContainers(): void;
  /** An insights metric Meta no longer offers (code 100). */
  retireMetric(name: string): void;
  setEngagement(id: string, engagement: Partial<Engagement>): void;
  /** Posts the Instagram account published through the API elsewhere (another tool): they count toward its 50 a day. */
  publishElsewhere(igUserId: string, count: number): void;
  /** Everything published, oldest first (deleted ones flagged). */
  posts(): PublishedItem[];
  close(): Promise<void>;
}

const DEFAULT_USERS: MetaStandinUser[] = [
  {
    id: '10160000000000001',
    name: 'Alex Example',
    pages: [
      {
        id: '104000000000001',
        name: 'Acme Shoes',
        username: 'acmeshoes',
        instagram: { id: '17841400000000001', username: 'acme.shoes', name: 'Acme Shoes' },
      },
      { id: '104000000000002', name: 'Acme Outlet' },
    ],
  },
];

const SHORT_LIVED_SECONDS = 5_400;
const LONG_LIVED_SECONDS = 5_183_944;
const VERSION_PATH = /^\/(v\d+\.\d+)\/(.*)$/;
const IG_POSTS_PER_DAY = 50;

type TokenKind = 'user_short' | 'user_long' | 'page';
interface Token {
  kind: TokenKind;
  userId: string;
  pageId: string | null;
  expiresAt: number | null;
  invalid: 'expired' | 'revoked' | null;
}

interface Code {
  userId: string;
  redirectUri: string;
  challenge: string | null;
  method: string;
  expiresAt: number;
  used: boolean;
}

interface Photo {
  id: string;
  pageId: string;
  createdAt: Date;
  published: boolean;
  file: UploadedFile;
  alt: string | null;
}

interface Video {
  id: string;
  pageId: string;
  description: string;
  bytes: number;
  contentType: string;
  url: string;
  createdAt: Date;
  readyAt: number;
  published: boolean;
}

interface Container {
  id: string;
  igUserId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';
  carouselItem: boolean;
  caption: string;
  url: string | null;
  bytes: number;
  contentType: string;
  alt: string | null;
  children: string[];
  readyAt: number;
  endsAs: 'FINISHED' | 'ERROR' | 'EXPIRED';
  expired: boolean;
  publishedAs: string | null;
}

class GraphFault extends Error {
  readonly status: number;
  readonly code: number;
  readonly subcode: number | undefined;
  readonly extra: Record<string, unknown>;

  constructor(status: number, code: number, message: string, subcode?: number, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.subcode = subcode;
    this.extra = extra;
  }
}

const missing = (id: string, verb = 'get') =>
  new GraphFault(
    400,
    100,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    33,
    { type: 'GraphMethodException' },
  );
const invalidParameter = (message: string, subcode?: number, extra: Record<string, unknown> = {}) =>
  new GraphFault(400, 100, `(#100) ${message}`, subcode, extra);

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Graph's time format: `2026-11-27T10:00:00+0000`. */
const graphTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, '+0000');

interface FieldSpec {
  name: string;
  sub: FieldSpec[] | null;
}

/** `id,attachments{unshimmed_url},comments.summary(true)` → field names with their sub-fields. */
function parseFields(text: string): FieldSpec[] {
  const specs: FieldSpec[] = [];
  let depth = 0;
  let current = '';
  const push = () => {
    const item = current.trim();
    current = '';
    if (!item) return;
    const brace = item.indexOf('{');
    const head = brace >= 0 ? item.slice(0, brace) : item;
    const name = head.split('.')[0]!.trim();
    specs.push({ name, sub: brace >= 0 ? parseFields(item.slice(brace + 1, item.lastIndexOf('}'))) : null });
  };
  for (const char of text) {
    if (char === '{' || char === '(') depth++;
    if (char === '}' || char === ')') depth--;
    if (char === ',' && depth === 0) push();
    else current += char;
  }
  push();
  return specs;
}

function project(value: unknown, specs: FieldSpec[] | null): unknown {
  if (!specs || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => project(item, specs));
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.data) && !('id' in record)) return { ...record, data: project(record.data, specs) };
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    if (record[spec.name] !== undefined) out[spec.name] = project(record[spec.name], spec.sub);
  }
  return out;
}

function isJpeg(bytes: Buffer): boolean {
  return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export async function startMetaStandin(options: MetaStandinOptions = {}): Promise<MetaStandin> {
  const appId = options.appId ?? '1234567890123456';
  const appSecret = options.appSecret ?? randomBytes(16).toString('hex');
  const appName = options.appName ?? 'Campaign Platform';
  const users = options.users ?? DEFAULT_USERS;
  const processingMs = options.processingMs ?? 30;
  const codeTtlMs = options.codeTtlMs ?? 10 * 60_000;

  const pages = new Map(users.flatMap((user) => user.pages.map((page) => [page.id, page] as const)));
  const igOwners = new Map(
    [...pages.values()].filter((page) => page.instagram).map((page) => [page.instagram!.id, page] as const),
  );
  const managers = (pageId: string) => users.filter((user) => user.pages.some((page) => page.id === pageId));

  const codes = new Map<string, Code>();
  const tokens = new Map<string, Token>();
  const photos = new Map<string, Photo>();
  const videos = new Map<string, Video>();
  const containers = new Map<string, Container>();
  const published = new Map<string, PublishedItem>();
  const retiredMetrics = new Set<string>();
  let signedIn = users[0]!.id;
  let sequence = 0;
  let calls = 0;
  const faults = {
    rateLimit: { count: 0, seconds: 60, code: 32 as number },
    fail: { count: 0, status: 500 },
    refuseContent: 0,
    containers: { count: 0, as: 'ERROR' as 'ERROR' | 'EXPIRED' },
  };

  // Meta's ids are 15–18 digit strings (beyond a JavaScript number's exact range): a prefix and a counter.
  const nextId = (prefix: string) => `${prefix}${String(++sequence).padStart(8, '0')}`;
  const newToken = (kind: TokenKind, userId: string, pageId: string | null, seconds: number | null) => {
    const token = `EAA${randomBytes(24).toString('base64url')}`;
    tokens.set(token, {
      kind,
      userId,
      pageId,
      expiresAt: seconds === null ? null : Date.now() + seconds * 1000,
      invalid: null,
    });
    return token;
  };
  const zeroEngagement = (): Engagement => ({
    impressions: 0,
    reach: 0,
    reactions: 0,
    comments: 0,
    shares: 0,
    likes: 0,
    saved: 0,
    views: 0,
  });

  function usageHeaders(ownerId: string | null, type: 'pages' | 'instagram', limited: number | null) {
    const percent = limited === null ? Math.min(99, calls % 100) : 100;
    const figures = {
      call_count: percent,
      total_cputime: Math.floor(percent / 2),
      total_time: Math.floor(percent / 2),
    };
    return {
      'x-app-usage': JSON.stringify(figures),
      ...(ownerId
        ? {
            'x-business-use-case-usage': JSON.stringify({
              [ownerId]: [{ type, ...figures, estimated_time_to_regain_access: limited ?? 0 }],
            }),
          }
        : {}),
      'facebook-api-version': 'v24.0',
      'x-fb-trace-id': randomBytes(8).toString('base64url'),
    };
  }

  function errorResponse(fault: GraphFault, headers: Record<string, string>): StandinResponse {
    return {
      status: fault.status,
      headers,
      body: {
        error: {
          message: fault.message,
          type: 'OAuthException',
          code: fault.code,
          ...(fault.subcode !== undefined ? { error_subcode: fault.subcode } : {}),
          ...fault.extra,
          fbtrace_id: randomBytes(8).toString('base64url'),
        },
      },
    };
  }

  // ---- Login ---------------------------------------------------------------------------------------------

  function consentPage(request: StandinRequest, version: string): StandinResponse {
    const query = request.url.searchParams;
    const problem =
      query.get('client_id') !== appId
        ? 'Invalid App ID: the app ID in the request is not one of a Meta app.'
        : !query.get('redirect_uri')
          ? 'The redirect_uri parameter is missing.'
          : query.get('response_type') !== 'code'
            ? 'This sign-in only supports response_type=code.'
            : null;
    if (problem) {
      return {
        status: 400,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><h1>Sorry, something went wrong.</h1><p>${escapeHtml(problem)}</p></body></html>`,
      };
    }
    const user = users.find((candidate) => candidate.id === signedIn)!;
    const scopes = (query.get('scope') ?? '').split(/[ ,]+/).filter(Boolean);
    const hidden = ['client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method']
      .filter((name) => query.get(name) !== null)
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(query.get(name)!)}">`)
      .join('\n      ');
    const html = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Log in With Facebook</title></head>
  <body>
    <main>
      <h1>${escapeHtml(appName)} is requesting access to:</h1>
      <p>Your Pages (${user.pages.map((page) => escapeHtml(page.name)).join(', ')}) and the Instagram accounts linked to them.</p>
      <ul>${scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('')}</ul>
      <form method="post" action="/${version}/dialog/oauth/confirm">
      ${hidden}
      <input type="hidden" name="user" value="${escapeHtml(user.id)}">
      <button type="submit" name="decision" value="allow">Continue as ${escapeHtml(user.name)}</button>
      <button type="submit" name="decision" value="cancel">Cancel</button>
      </form>
    </main>
  </body>
</html>`;
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
  }

  function confirmConsent(request: StandinRequest): StandinResponse {
    const form = (request.body ?? {}) as Record<string, string>;
    const redirect = new URL(form.redirect_uri ?? '');
    if (form.state) redirect.searchParams.set('state', form.state);
    if (form.decision !== 'allow') {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_code', '200');
      redirect.searchParams.set('error_description', 'Permissions error');
      redirect.searchParams.set('error_reason', 'user_denied');
    } else {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, {
        userId: form.user ?? signedIn,
        redirectUri: form.redirect_uri ?? '',
        challenge: form.code_challenge ?? null,
        method: form.code_challenge_method ?? 'plain',
        expiresAt: Date.now() + codeTtlMs,
        used: false,
      });
      redirect.searchParams.set('code', code);
    }
    // Facebook appends an empty fragment to the redirect (browsers keep it; servers never see it).
    return { status: 302, headers: { location: `${redirect.toString()}#_=_` }, body: '' };
  }

  function exchangeToken(params: Record<string, unknown>): unknown {
    if (params.client_id !== appId) {
      throw new GraphFault(400, 101, 'Error validating application. Invalid application ID.');
    }
    if (params.client_secret !== appSecret) throw new GraphFault(400, 1, 'Error validating client secret.');
    if (params.grant_type === 'fb_exchange_token') {
      const held = tokens.get(String(params.fb_exchange_token ?? ''));
      if (!held || held.kind === 'page' || held.invalid || (held.expiresAt !== null && held.expiresAt < Date.now())) {
        throw new GraphFault(
          400,
          190,
          'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
          460,
        );
      }
      const access_token = newToken('user_long', held.userId, null, LONG_LIVED_SECONDS);
      return { access_token, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS };
    }
    const code = codes.get(String(params.code ?? ''));
    // Login errors carry no `(#100)` prefix, unlike Graph parameter errors.
    const refused = (message: string, subcode?: number) => new GraphFault(400, 100, message, subcode);
    if (!code) throw refused('Invalid verification code format.');
    if (code.used) throw refused('This authorization code has been used.', 36009);
    if (code.expiresAt < Date.now()) throw refused('This authorization code has expired.', 36007);
    if (code.redirectUri !== params.redirect_uri) {
      throw refused(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        36008,
      );
    }
    if (code.challenge) {
      const verifier = String(params.code_verifier ?? '');
      const computed = code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (computed !== code.challenge) throw refused('Invalid code verifier.');
    }
    code.used = true;
    const access_token = newToken('user_short', code.userId, null, SHORT_LIVED_SECONDS);
    return { access_token, token_type: 'bearer', expires_in: SHORT_LIVED_SECONDS };
  }

  // ---- Access ----------------------------------------------------------------------------------------------

  function tokenOf(request: StandinRequest, params: Record<string, unknown>): Token {
    const header = request.headers.authorization ?? '';
    const value = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header)?.[1] ?? (params.access_token as string | undefined);
    if (!value) {
      throw new GraphFault(
        400,
        2500,
        'An active access token must be used to query information about the current user.',
      );
    }
    const token = tokens.get(value);
    if (!token) throw new GraphFault(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (token.invalid === 'revoked') {
      throw new GraphFault(
        400,
        190,
        'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
        460,
      );
    }
    if (token.invalid === 'expired' || (token.expiresAt !== null && token.expiresAt < Date.now())) {
      throw new GraphFault(
        400,
        190,
        `Error validating access token: Session has expired on ${new Date().toUTCString()}. The current time is ${new Date().toUTCString()}.`,
        463,
      );
    }
    return token;
  }

  /** Whether `token` may act for the Page (its Page token, or a user token of someone who manages it). */
  function canActFor(token: Token, pageId: string): boolean {
    if (token.kind === 'page') return token.pageId === pageId;
    return managers(pageId).some((user) => user.id === token.userId);
  }

  /** The Page an object belongs to (a Page, its post, photo, video; its Instagram account, container, media). */
  function pageOf(id: string): string | null {
    if (pages.has(id)) return id;
    if (igOwners.has(id)) return igOwners.get(id)!.id;
    if (photos.has(id)) return photos.get(id)!.pageId;
    if (videos.has(id)) return videos.get(id)!.pageId;
    const container = containers.get(id);
    if (container) return igOwners.get(container.igUserId)!.id;
    const item = published.get(id);
    if (item) return item.network === 'facebook' ? item.ownerId : igOwners.get(item.ownerId)!.id;
    return null;
  }

  function requireAccess(token: Token, id: string, verb = 'get'): string {
    const pageId = pageOf(id);
    if (!pageId || !canActFor(token, pageId)) throw missing(id, verb);
    return pageId;
  }

  // ---- Nodes -------------------------------------------------------------------------------------------------

  function containerStatus(container: Container): { status_code: string; status: string } {
    if (container.publishedAs) return { status_code: 'PUBLISHED', status: 'Published: Media has been published.' };
    if (container.expired) {
      return { status_code: 'EXPIRED', status: 'Expired: The container was not published within 24 hours.' };
    }
    if (Date.now() < container.readyAt) {
      return { status_code: 'IN_PROGRESS', status: 'In Progress: Media is still being processed.' };
    }
    if (container.endsAs === 'ERROR') {
      return { status_code: 'ERROR', status: 'Error: Media upload has failed with error code 2207003.' };
    }
    if (container.endsAs === 'EXPIRED') {
      return { status_code: 'EXPIRED', status: 'Expired: The container was not published within 24 hours.' };
    }
    return { status_code: 'FINISHED', status: 'Finished: Media has been uploaded and it is ready to be published.' };
  }

  function videoNode(video: Video) {
    const ready = Date.now() >= video.readyAt;
    if (ready && !video.published) publishVideo(video);
    return {
      id: video.id,
      description: video.description,
      created_time: graphTime(video.createdAt),
      permalink_url: `/${video.pageId}/videos/${video.id}/`,
      ...(ready ? { post_id: `${video.pageId}_${video.id}` } : {}),
      status: {
        video_status: ready ? 'ready' : 'processing',
        processing_progress: ready ? 100 : 50,
      },
    };
  }

  function publishVideo(video: Video): void {
    video.published = true;
    published.set(`${video.pageId}_${video.id}`, {
      network: 'facebook',
      id: `${video.pageId}_${video.id}`,
      ownerId: video.pageId,
      kind: 'video',
      text: video.description,
      link: null,
      media: [{ type: 'video', bytes: video.bytes, contentType: video.contentType, url: video.url, alt: null }],
      createdAt: video.createdAt,
      permalink: `https://www.facebook.com/${video.pageId}/videos/${video.id}/`,
      engagement: zeroEngagement(),
      deleted: false,
    });
  }

  /** IG Media's `media_type`: reels and video stories are VIDEO, carousels CAROUSEL_ALBUM. */
  function instagramMediaType(item: PublishedItem): string {
    if (item.kind === 'carousel') return 'CAROUSEL_ALBUM';
    if (item.kind === 'reel') return 'VIDEO';
    return item.media[0]?.type === 'video' ? 'VIDEO' : 'IMAGE';
  }

  function postNode(item: PublishedItem): Record<string, unknown> {
    if (item.network === 'instagram') {
      return {
        id: item.id,
        caption: item.text || undefined,
        media_type: instagramMediaType(item),
        media_product_type: item.kind === 'reel' ? 'REELS' : item.kind === 'story' ? 'STORY' : 'FEED',
        permalink: item.permalink,
        timestamp: graphTime(item.createdAt),
        username: igOwners.get(item.ownerId)!.instagram!.username,
        like_count: item.engagement.likes,
        comments_count: item.engagement.comments,
      };
    }
    return {
      id: item.id,
      message: item.text || undefined,
      created_time: graphTime(item.createdAt),
      permalink_url: item.permalink,
      is_published: true,
      // Meta leaves `shares` out of a post nobody shared.
      ...(item.engagement.shares ? { shares: { count: item.engagement.shares } } : {}),
      comments: { data: [], summary: { order: 'ranked', total_count: item.engagement.comments, can_comment: true } },
      reactions: { data: [], summary: { total_count: item.engagement.reactions, viewer_reaction: 'NONE' } },
      ...(item.link ? { attachments: { data: [{ type: 'share', unshimmed_url: item.link, url: item.link }] } } : {}),
    };
  }

  function readNode(token: Token, id: string, fields: FieldSpec[] | null): unknown {
    if (id === 'me') {
      if (token.kind === 'page') {
        const page = pages.get(token.pageId!)!;
        return project({ id: page.id, name: page.name }, fields ?? parseFields('id,name'));
      }
      const user = users.find((candidate) => candidate.id === token.userId)!;
      return project({ id: user.id, name: user.name }, fields ?? parseFields('id,name'));
    }
    requireAccess(token, id);
    const page = pages.get(id);
    if (page) {
      const node: Record<string, unknown> = { id: page.id, name: page.name, username: page.username };
      if (token.kind !== 'page') node.access_token = pageTokenFor(token, page.id);
      if (page.instagram) {
        node.instagram_business_account = {
          id: page.instagram.id,
          username: page.instagram.username,
          name: page.instagram.name,
        };
      }
      return project(node, fields ?? parseFields('id,name'));
    }
    const owner = igOwners.get(id);
    if (owner) return project({ ...owner.instagram }, fields ?? parseFields('id'));
    const video = videos.get(id);
    if (video) return project(videoNode(video), fields ?? parseFields('id'));
    const photo = photos.get(id);
    if (photo) return project({ id: photo.id, created_time: graphTime(photo.createdAt) }, fields ?? parseFields('id'));
    const container = containers.get(id);
    if (container) return project({ id: container.id, ...containerStatus(container) }, fields ?? parseFields('id'));
    const item = published.get(id);
    if (item && !item.deleted) {
      return project(
        postNode(item),
        fields ?? parseFields(item.network === 'instagram' ? 'id' : 'id,message,created_time'),
      );
    }
    throw missing(id);
  }

  function pageTokenFor(token: Token, pageId: string): string {
    // A Page token from a long-lived user token does not expire; from a short-lived one, it expires with it.
    return newToken('page', token.userId, pageId, token.kind === 'user_long' ? null : SHORT_LIVED_SECONDS);
  }

  function listing<T>(items: T[], params: Record<string, unknown>, fields: FieldSpec[] | null) {
    const limit = Math.min(100, Number(params.limit ?? 25) || 25);
    const start = params.after ? Number(Buffer.from(String(params.after), 'base64url').toString()) || 0 : 0;
    const slice = items.slice(start, start + limit);
    const cursor = (index: number) => Buffer.from(String(index)).toString('base64url');
    const more = start + limit < items.length;
    return {
      data: slice.map((item) => project(item, fields)),
      paging: {
        cursors: { before: cursor(start), after: cursor(start + slice.length) },
        ...(more ? { next: `https://graph.facebook.com/v24.0/next?after=${cursor(start + slice.length)}` } : {}),
      },
    };
  }

  // ---- Pages ---------------------------------------------------------------------------------------------------

  function refuseContentIfAsked(): void {
    if (faults.refuseContent <= 0) return;
    faults.refuseContent--;
    throw new GraphFault(403, 368, 'The action attempted has been deemed abusive or is otherwise disallowed', 1390008, {
      error_user_title: 'You Can’t Post This',
      error_user_msg: 'This post goes against our Community Standards.',
    });
  }

  function attachedMedia(params: Record<string, unknown>): string[] {
    const raw: unknown[] = [];
    const direct = params.attached_media;
    if (Array.isArray(direct)) raw.push(...direct);
    else if (typeof direct === 'string') raw.push(...(JSON.parse(direct) as unknown[]));
    for (const [name, value] of Object.entries(params)) {
      if (/^attached_media\[\d+\]$/.test(name)) raw.push(typeof value === 'string' ? JSON.parse(value) : value);
    }
    return raw.map((entry) => String((entry as { media_fbid?: unknown }).media_fbid ?? ''));
  }

  function createFeedPost(pageId: string, params: Record<string, unknown>) {
    const message = typeof params.message === 'string' ? params.message : '';
    const link = typeof params.link === 'string' ? params.link : null;
    const mediaIds = attachedMedia(params);
    if (!message && !link && mediaIds.length === 0) throw invalidParameter('Missing message or attachment');
    if ([...message].length > 63_206) throw invalidParameter('Message is too long (maximum 63206 characters)');
    const attached = mediaIds.map((id) => {
      const photo = photos.get(id);
      if (!photo || photo.pageId !== pageId || photo.published) throw invalidParameter(`Invalid attached_media: ${id}`);
      return photo;
    });
    refuseContentIfAsked();
    for (const photo of attached) photo.published = true;
    const id = `${pageId}_${nextId('9000000')}`;
    published.set(id, {
      network: 'facebook',
      id,
      ownerId: pageId,
      kind: attached.length ? 'album' : 'status',
      text: message,
      link,
      media: attached.map((photo) => ({
        type: 'image',
        bytes: photo.file.bytes,
        contentType: photo.file.contentType,
        url: null,
        alt: photo.alt,
      })),
      createdAt: new Date(),
      permalink: `https://www.facebook.com/${pageId}/posts/${id.split('_')[1]}`,
      engagement: zeroEngagement(),
      deleted: false,
    });
    return { id };
  }

  function uploadPhoto(pageId: string, params: Record<string, unknown>) {
    const file = params.source as UploadedFile | undefined;
    if (!file || typeof file !== 'object') throw new GraphFault(400, 324, '(#324) Requires upload file');
    if (!file.contentType.startsWith('image/')) throw invalidParameter('Invalid image file');
    if (file.bytes > 4 * 1024 * 1024) throw invalidParameter('The image is too large (maximum 4 MB)');
    const isPublished = String(params.published ?? 'true') !== 'false';
    if (isPublished) refuseContentIfAsked();
    const photo: Photo = {
      id: nextId('8000000'),
      pageId,
      createdAt: new Date(),
      published: isPublished,
      file,
      alt: typeof params.alt_text_custom === 'string' ? params.alt_text_custom : null,
    };
    photos.set(photo.id, photo);
    if (!isPublished) return { id: photo.id };
    const postId = `${pageId}_${photo.id}`;
    published.set(postId, {
      network: 'facebook',
      id: postId,
      ownerId: pageId,
      kind: 'photo',
      text: typeof params.message === 'string' ? params.message : '',
      link: null,
      media: [{ type: 'image', bytes: file.bytes, contentType: file.contentType, url: null, alt: photo.alt }],
      createdAt: new Date(),
      permalink: `https://www.facebook.com/photo/?fbid=${photo.id}`,
      engagement: zeroEngagement(),
      deleted: false,
    });
    return { id: photo.id, post_id: postId };
  }

  async function fetchMedia(url: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    try {
      const response = await testFetch(url, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) return null;
      return {
        bytes: Buffer.from(await response.arrayBuffer()),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      };
    } catch {
      return null;
    }
  }

  async function uploadVideo(pageId: string, params: Record<string, unknown>) {
    const url = typeof params.file_url === 'string' ? params.file_url : '';
    if (!url) throw new GraphFault(400, 324, '(#324) Requires upload file');
    const fetched = await fetchMedia(url);
    if (!fetched) throw new GraphFault(400, 389, 'Unable to fetch video file from URL.');
    refuseContentIfAsked();
    const video: Video = {
      id: nextId('7000000'),
      pageId,
      description: typeof params.description === 'string' ? params.description : '',
      bytes: fetched.bytes.length,
      contentType: fetched.contentType,
      url,
      createdAt: new Date(),
      readyAt: Date.now() + processingMs,
      published: false,
    };
    videos.set(video.id, video);
    return { id: video.id };
  }

  const PAGE_POST_METRICS = new Set(['post_impressions', 'post_impressions_unique', 'post_reactions_by_type_total']);
  const IG_MEDIA_METRICS = new Set(['reach', 'likes', 'comments', 'shares', 'saved', 'views', 'total_interactions']);

  function insights(item: PublishedItem, metricParam: string): unknown {
    const names = metricParam
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (!names.length) throw invalidParameter('The parameter metric is required');
    const e = item.engagement;
    const data = names.map((name) => {
      const offered = item.network === 'facebook' ? PAGE_POST_METRICS.has(name) : IG_MEDIA_METRICS.has(name);
      if (!offered || retiredMetrics.has(name)) {
        if (item.network === 'instagram' && name === 'impressions') {
          throw invalidParameter(
            'Starting from version v22.0 and above, the impressions metric is no longer supported for media created after July 2, 2024.',
          );
        }
        throw invalidParameter('The value must be a valid insights metric');
      }
      if (item.kind === 'story' && ['likes', 'comments', 'saved'].includes(name)) {
        throw invalidParameter(
          `The Media Insights API does not support the ${name} metric for this media product type.`,
        );
      }
      const value =
        name === 'post_impressions'
          ? e.impressions
          : name === 'post_impressions_unique'
            ? e.reach
            : name === 'post_reactions_by_type_total'
              ? { like: e.reactions }
              : name === 'total_interactions'
                ? e.likes + e.comments + e.shares + e.saved
                : e[name as keyof Engagement];
      return {
        name,
        period: 'lifetime',
        values: [{ value }],
        title: name,
        description: `Lifetime ${name}`,
        id: `${item.id}/insights/${name}/lifetime`,
      };
    });
    return { data };
  }

  // ---- Instagram -----------------------------------------------------------------------------------------------

  async function createContainer(igUserId: string, params: Record<string, unknown>) {
    const requested = typeof params.media_type === 'string' ? params.media_type : 'IMAGE';
    if (!['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'].includes(requested)) {
      throw invalidParameter(`Param media_type must be one of {CAROUSEL, REELS, STORIES, VIDEO} - got "${requested}"`);
    }
    const mediaType = requested as Container['mediaType'];
    const caption = typeof params.caption === 'string' ? params.caption : '';
    if ([...caption].length > 2_200) {
      throw invalidParameter('The caption is too long (maximum 2200 characters)', 2207010);
    }
    if ((caption.match(/(^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length > 30) {
      throw invalidParameter('The caption has more than 30 hashtags', 2207010);
    }
    const carouselItem = String(params.is_carousel_item ?? 'false') === 'true';
    const base: Container = {
      id: nextId('1789000000'),
      igUserId,
      mediaType,
      carouselItem,
      caption,
      url: null,
      bytes: 0,
      contentType: '',
      alt: typeof params.alt_text === 'string' ? params.alt_text : null,
      children: [],
      readyAt: Date.now() + processingMs,
      endsAs: 'FINISHED',
      expired: false,
      publishedAs: null,
    };
    if (mediaType === 'CAROUSEL') {
      const children = Array.isArray(params.children)
        ? params.children.map(String)
        : String(params.children ?? '')
            .split(',')
            .filter(Boolean);
      if (children.length < 2 || children.length > 10) {
        throw invalidParameter('A carousel needs between 2 and 10 children', 2207028);
      }
      for (const child of children) {
        const found = containers.get(child);
        if (
          !found ||
          found.igUserId !== igUserId ||
          !found.carouselItem ||
          containerStatus(found).status_code !== 'FINISHED'
        ) {
          throw invalidParameter(`The child container ${child} is not ready or is not a carousel item`, 2207028);
        }
      }
      base.children = children;
    } else {
      const imageUrl = typeof params.image_url === 'string' ? params.image_url : null;
      const videoUrl = typeof params.video_url === 'string' ? params.video_url : null;
      const url = ['VIDEO', 'REELS'].includes(mediaType) ? videoUrl : (imageUrl ?? videoUrl);
      if (!url) {
        throw invalidParameter(
          `The parameter ${['VIDEO', 'REELS'].includes(mediaType) ? 'video_url' : 'image_url'} is required`,
        );
      }
      const fetched = await fetchMedia(url);
      const downloadFailed = (message: string) =>
        new GraphFault(400, 9004, 'Only photo or video can be accepted as media type.', 2207052, {
          error_user_title: 'Media download has failed',
          error_user_msg: message,
          is_transient: false,
        });
      if (!fetched) throw downloadFailed("The media URI doesn't meet our requirements.");
      if (url === imageUrl && !isJpeg(fetched.bytes)) {
        throw downloadFailed('The image format is not supported. Only JPEG images can be published.');
      }
      Object.assign(base, { url, bytes: fetched.bytes.length, contentType: fetched.contentType });
      if (url === imageUrl && mediaType === 'IMAGE') base.mediaType = 'IMAGE';
    }
    if (faults.containers.count > 0) {
      faults.containers.count--;
      base.endsAs = faults.containers.as;
    }
    containers.set(base.id, base);
    return { id: base.id };
  }

  function publishedInLastDay(igUserId: string): number {
    const since = Date.now() - 86_400_000;
    return [...published.values()].filter(
      (item) => item.network === 'instagram' && item.ownerId === igUserId && item.createdAt.getTime() >= since,
    ).length;
  }

  function publishContainer(igUserId: string, params: Record<string, unknown>) {
    const container = containers.get(String(params.creation_id ?? ''));
    if (!container || container.igUserId !== igUserId || container.carouselItem) {
      throw invalidParameter('Media ID is not available', 2207006, { error_user_title: 'Media not found' });
    }
    const state = containerStatus(container).status_code;
    if (state === 'PUBLISHED') throw invalidParameter('The media has already been published', 2207006);
    if (state !== 'FINISHED') {
      throw new GraphFault(400, 9007, 'Media ID is not available', 2207027, {
        error_user_title: 'Media is not ready to be published',
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      });
    }
    if (publishedInLastDay(igUserId) >= IG_POSTS_PER_DAY) {
      throw new GraphFault(400, 9, 'Application request limit reached', 2207042, {
        error_user_title: 'Maximum number of posts reached',
        error_user_msg:
          'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
      });
    }
    refuseContentIfAsked();
    const items =
      container.mediaType === 'CAROUSEL' ? container.children.map((id) => containers.get(id)!) : [container];
    const id = nextId('1790000000');
    const shortcode = randomBytes(8).toString('base64url').slice(0, 11);
    const username = igOwners.get(igUserId)!.instagram!.username;
    const kind: PublishedItem['kind'] =
      container.mediaType === 'CAROUSEL'
        ? 'carousel'
        : container.mediaType === 'STORIES'
          ? 'story'
          : container.mediaType === 'REELS'
            ? 'reel'
            : 'image';
    container.publishedAs = id;
    published.set(id, {
      network: 'instagram',
      id,
      ownerId: igUserId,
      kind,
      text: container.caption,
      link: null,
      media: items.map((item) => ({
        type: item.contentType.startsWith('video/') ? 'video' : 'image',
        bytes: item.bytes,
        contentType: item.contentType,
        url: item.url,
        alt: item.alt,
      })),
      createdAt: new Date(),
      permalink:
        kind === 'story'
          ? `https://www.instagram.com/stories/${username}/${id}/`
          : `https://www.instagram.com/${kind === 'reel' ? 'reel' : 'p'}/${shortcode}/`,
      engagement: zeroEngagement(),
      deleted: false,
    });
    return { id };
  }

  // ---- Routing -------------------------------------------------------------------------------------------------

  function paramsOf(request: StandinRequest): Record<string, unknown> {
    const body = request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
    // A multipart form carries line breaks as CRLF (the HTML form encoding); Meta stores and returns text with LF.
    const multipart = (request.contentType ?? '').startsWith('multipart/');
    const text = Object.entries(body).map(([name, value]) => [
      name,
      multipart && typeof value === 'string' ? value.replace(/\r\n/g, '\n') : value,
    ]);
    return { ...Object.fromEntries(request.url.searchParams), ...Object.fromEntries(text) };
  }

  async function graph(request: StandinRequest, path: string): Promise<unknown> {
    const params = paramsOf(request);
    const segments = path.split('/').filter(Boolean);
    const method = request.method;
    if (segments[0] === 'oauth' && segments[1] === 'access_token' && method === 'GET') return exchangeToken(params);
    const token = tokenOf(request, params);
    const fields = typeof params.fields === 'string' ? parseFields(params.fields) : null;
    const [id, edge, ...rest] = segments;
    if (!id || rest.length) throw new GraphFault(400, 2500, 'Unknown path components: /' + path);

    if (id === 'me' && edge === 'accounts' && method === 'GET') {
      if (token.kind === 'page') {
        throw new GraphFault(400, 100, '(#100) Tried accessing nonexisting field (accounts) on node type (Page)');
      }
      const user = users.find((candidate) => candidate.id === token.userId)!;
      const list = user.pages.map((page) => ({
        id: page.id,
        name: page.name,
        username: page.username,
        access_token: pageTokenFor(token, page.id),
        category: 'Shopping & retail',
        tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
        ...(page.instagram
          ? {
              instagram_business_account: {
                id: page.instagram.id,
                username: page.instagram.username,
                name: page.instagram.name,
              },
            }
          : {}),
      }));
      return listing(list, params, fields ?? parseFields('id,name,access_token,category,tasks'));
    }
    if (!edge) {
      if (method === 'GET') return readNode(token, id, fields);
      if (method === 'DELETE') {
        requireAccess(token, id, 'delete');
        const item = published.get(id);
        if (!item || item.deleted) throw missing(id, 'delete');
        item.deleted = true;
        return { success: true };
      }
      throw missing(id, method.toLowerCase());
    }

    if (pages.has(id)) {
      requireAccess(token, id, method === 'GET' ? 'get' : 'post');
      if (edge === 'feed' && method === 'POST') return createFeedPost(id, params);
      if (edge === 'photos' && method === 'POST') return uploadPhoto(id, params);
      if (edge === 'videos' && method === 'POST') return uploadVideo(id, params);
      if (edge === 'posts' && method === 'GET') {
        for (const video of videos.values()) videoNode(video);
        const posts = [...published.values()]
          .filter((item) => item.network === 'facebook' && item.ownerId === id && !item.deleted)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map(postNode);
        return listing(posts, params, fields ?? parseFields('id,message,created_time'));
      }
      if (edge === 'videos' && method === 'GET') {
        const list = [...videos.values()]
          .filter((video) => video.pageId === id)
          .reverse()
          .map(videoNode);
        return listing(list, params, fields ?? parseFields('id,description,updated_time'));
      }
    }
    if (igOwners.has(id)) {
      requireAccess(token, id, method === 'GET' ? 'get' : 'post');
      if (edge === 'media' && method === 'POST') return createContainer(id, params);
      if (edge === 'media_publish' && method === 'POST') return publishContainer(id, params);
      if ((edge === 'media' || edge === 'stories') && method === 'GET') {
        const list = [...published.values()]
          .filter((item) => item.network === 'instagram' && item.ownerId === id && !item.deleted)
          .filter((item) => (edge === 'stories') === (item.kind === 'story'))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map(postNode);
        return listing(list, params, fields ?? parseFields('id'));
      }
      if (edge === 'content_publishing_limit' && method === 'GET') {
        const answer = {
          quota_usage: publishedInLastDay(id),
          config: { quota_total: IG_POSTS_PER_DAY, quota_duration: 86_400 },
        };
        return { data: [project(answer, fields ?? parseFields('quota_usage'))] };
      }
    }
    if (edge === 'insights' && method === 'GET') {
      requireAccess(token, id);
      const item = published.get(id);
      if (!item || item.deleted) throw missing(id);
      return insights(item, String(params.metric ?? ''));
    }
    throw new GraphFault(400, 100, `(#100) Unknown edge ${edge} for ${method} on ${id}`);
  }

  function usageOwner(path: string): { ownerId: string | null; type: 'pages' | 'instagram' } {
    const first = path.split('/').filter(Boolean)[0] ?? '';
    if (igOwners.has(first)) return { ownerId: first, type: 'instagram' };
    const pageId = pageOf(first);
    if (pageId) {
      return {
        ownerId: pageId,
        type: containers.has(first) || published.get(first)?.network === 'instagram' ? 'instagram' : 'pages',
      };
    }
    return { ownerId: null, type: 'pages' };
  }

  const isConsent = (request: StandinRequest) => /^\/v\d+\.\d+\/dialog\/oauth(\/confirm)?$/.test(request.url.pathname);

  const server = await startStandin({
    checker: loadSpecChecker('meta'),
    unchecked: isConsent,
    routes: [
      async (request) => {
        const match = VERSION_PATH.exec(request.url.pathname);
        if (!match) return null;
        const [, version, path] = match as unknown as [string, string, string];
        if (path === 'dialog/oauth' && request.method === 'GET') return consentPage(request, version);
        if (path === 'dialog/oauth/confirm' && request.method === 'POST') return confirmConsent(request);
        calls++;
        const { ownerId, type } = usageOwner(path);
        if (faults.rateLimit.count > 0) {
          faults.rateLimit.count--;
          const minutes = Math.max(1, Math.ceil(faults.rateLimit.seconds / 60));
          const code = faults.rateLimit.code;
          const messages: Record<number, string> = {
            4: '(#4) Application request limit reached',
            17: '(#17) User request limit reached',
            32: '(#32) Page request limit reached',
            613: '(#613) Calls to this api have exceeded the rate limit.',
          };
          return errorResponse(
            new GraphFault(code === 4 ? 403 : 400, code, messages[code] ?? 'Rate limit reached', undefined, {
              is_transient: true,
            }),
            usageHeaders(ownerId ?? pages.keys().next().value!, type, minutes),
          );
        }
        const headers = usageHeaders(ownerId, type, null);
        if (faults.fail.count > 0) {
          faults.fail.count--;
          return errorResponse(
            new GraphFault(
              faults.fail.status,
              2,
              'An unexpected error has occurred. Please retry your request later.',
              undefined,
              {
                is_transient: true,
              },
            ),
            headers,
          );
        }
        try {
          return { status: 200, headers, body: await graph(request, path) };
        } catch (error) {
          if (error instanceof GraphFault) return errorResponse(error, headers);
          throw error;
        }
      },
    ],
  });

  return {
    url: server.url,
    appId,
    appSecret,
    exchanges: server.exchanges,
    violations: server.violations,
    hold: server.hold.bind(server),

    async authorize(authorizationUrl, as, decision = 'allow') {
      const page = await fetch(authorizationUrl);
      const html = await page.text();
      if (!page.ok) throw new Error(`The consent page refused: ${html.replace(/<[^>]+>/g, ' ').trim()}`);
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error('The consent page has no form');
      const form = new URLSearchParams();
      for (const input of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
        form.set(
          input[1]!,
          input[2]!.replace(/&#(\d+);/g, (_all, code: string) => String.fromCharCode(Number(code))),
        );
      }
      if (as) form.set('user', as);
      form.set('decision', decision);
      const answer = await fetch(new URL(action, authorizationUrl), {
        method: 'POST',
        body: form,
        redirect: 'manual',
      });
      const location = answer.headers.get('location');
      if (answer.status !== 302 || !location) throw new Error(`The consent form answered ${answer.status}`);
      return location;
    },
    signInAs(userId) {
      if (!users.some((user) => user.id === userId)) throw new Error(`No stand-in user ${userId}`);
      signedIn = userId;
    },
    expireAccessTokens() {
      for (const token of tokens.values()) if (token.kind !== 'user_long') token.invalid ??= 'expired';
    },
    refuseRefresh() {
      for (const token of tokens.values()) if (token.kind !== 'page') token.invalid = 'revoked';
    },
    rateLimitNext(count, retryAfterSeconds, code = 32) {
      faults.rateLimit = { count, seconds: retryAfterSeconds, code };
    },
    failNext(count, status = 500) {
      faults.fail = { count, status };
    },
    refuseContentNext(count = 1) {
      faults.refuseContent = count;
    },
    failContainersNext(count = 1, statusCode = 'ERROR') {
      faults.containers = { count, as: statusCode };
    },
    expireContainers() {
      for (const container of containers.values()) if (!container.publishedAs) container.expired = true;
    },
    retireMetric(name) {
      retiredMetrics.add(name);
    },
    setEngagement(id, engagement) {
      const item = published.get(id);
      if (!item) throw new Error(`Nothing published as ${id}`);
      Object.assign(item.engagement, engagement);
    },
    publishElsewhere(igUserId, count) {
      const owner = igOwners.get(igUserId);
      if (!owner) throw new Error(`No stand-in Instagram account ${igUserId}`);
      for (let index = 0; index < count; index++) {
        const id = nextId('1790000000');
        published.set(id, {
          network: 'instagram',
          id,
          ownerId: igUserId,
          kind: 'image',
          text: `Published elsewhere ${index + 1}`,
          link: null,
          media: [],
          createdAt: new Date(),
          permalink: `https://www.instagram.com/p/${id}/`,
          engagement: zeroEngagement(),
          deleted: false,
        });
      }
    },
    posts() {
      for (const video of videos.values()) videoNode(video);
      return [...published.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
    close: () => server.close(),
  };
}
