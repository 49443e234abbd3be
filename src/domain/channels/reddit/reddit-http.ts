/**
 * Talking to Reddit over HTTP: the two hosts (www.reddit.com for the OAuth token endpoints, oauth.reddit.com
 * for the API), the headers Reddit requires, its rate-limit headers, and its answers turned into the
 * platform's errors. Nothing here knows about posts.
 *
 * - Every request sends the operator's descriptive User-Agent (`<platform>:<app id>:<version> (by /u/<name>)`):
 *   Reddit throttles or blocks clients that send a generic one.
 * - Redirects are never followed (`redirect: 'manual'`): an API answer that redirects is an answer of its own
 *   (a subreddit that does not exist), and following it would leave the guarded fetch's checks to chance.
 * - API answers carry `X-Ratelimit-Used`, `X-Ratelimit-Remaining` (a float) and `X-Ratelimit-Reset` (seconds
 *   until the window ends; Reddit counts 100 queries a minute per OAuth client, averaged over ten minutes).
 * - Token endpoints answer a refused grant with HTTP 200 and `{"error": "invalid_grant"}`, and refused client
 *   credentials with 401: the first is the account's problem, the second the operator's.
 */
import { FetchRefusedError } from '../../../net/safe-fetch.ts';
import { ChannelRefusedError, RateLimitedError, UnavailableError } from '../../../errors.ts';
import type { ChannelQuota } from '../channel-account.entity.ts';
import type { QuotaObserver } from '../channel-adapter.ts';

export const REDDIT_WWW_URL = 'https://www.reddit.com';
export const REDDIT_API_URL = 'https://oauth.reddit.com';

/** The environment variables an operator sets after registering the platform's Reddit app. */
export const REDDIT_ENV = { clientId: 'REDDIT_CLIENT_ID', clientSecret: 'REDDIT_CLIENT_SECRET' } as const;

/** The User-Agent Reddit asks API clients to send: `<platform>:<app id>:<version> (by /u/<reddit username>)`. */
export function redditUserAgent(parts: { platform: string; appId: string; version: string; operator: string }): string {
  return `${parts.platform}:${parts.appId}:${parts.version} (by /u/${parts.operator.replace(/^\/?u\//, '')})`;
}

/** An access token Reddit refused (expired or revoked): refresh and try once more. */
export class AccessExpiredError extends Error {
  constructor() {
    super('Reddit refused the access token');
    this.name = 'AccessExpiredError';
  }
}

/** A token endpoint's refusal (`invalid_grant`, `unsupported_grant_type`, …), for the caller to word. */
export class TokenRefusedError extends Error {
  readonly error: string;
  constructor(error: string) {
    super(`Reddit refused the token request (${error})`);
    this.name = 'TokenRefusedError';
    this.error = error;
  }
}

/** An API answer the caller asked to see instead of having it thrown (`allow`). */
export interface RedditAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The token endpoint's answer (`expires_in` is in seconds; `refresh_token` only with `duration=permanent`). */
export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** The `X-Ratelimit-*` headers as the account's quota, or null when an answer has none. */
export function quotaOf(headers: Headers, now = new Date()): ChannelQuota | null {
  const raw = ['x-ratelimit-used', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => headers.get(name));
  // An absent header is no figure (Number(null) would read it as 0).
  if (raw.some((value) => value === null || value.trim() === '')) return null;
  const [used, remaining, reset] = raw.map(Number) as [number, number, number];
  if (![used, remaining, reset].every(Number.isFinite)) return null;
  return {
    // Reddit names no policy; the window is what is left of the current one.
    policy: null,
    limit: Math.round(used + remaining),
    remaining: Math.floor(remaining),
    resetAt: new Date(now.getTime() + reset * 1000).toISOString(),
    observedAt: now.toISOString(),
  };
}

/** Seconds until Reddit takes requests again, from a 429's headers. */
export function retryAfterOf(headers: Headers): number {
  for (const name of ['x-ratelimit-reset', 'retry-after']) {
    const seconds = Number(headers.get(name) ?? '');
    if (headers.get(name) !== null && Number.isFinite(seconds) && seconds > 0) return Math.ceil(seconds);
  }
  return 60;
}

/** Reddit's words in an error body (`{"message": "Forbidden", "error": 403, "reason": "private"}` and kin). */
export function errorWords(body: unknown): { code: string | null; text: string } {
  const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const pick = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : null);
  const code = pick('reason') ?? pick('error');
  const text = pick('explanation') ?? pick('message') ?? pick('error_description') ?? code ?? 'no reason given';
  return { code, text: text.slice(0, 300) };
}

/** A guard refusal that waiting cannot fix (an address or port the platform may not reach). */
function isPermanentRefusal(error: FetchRefusedError): boolean {
  return !['timeout', 'connection_failed', 'dns_failure', 'too_large'].includes(error.reason);
}

/** A request that got no answer: the guard's refusal, a timeout, a reset connection. */
function noAnswer(error: unknown, doing: string): never {
  if (error instanceof FetchRefusedError && isPermanentRefusal(error)) {
    throw new ChannelRefusedError(`Reddit cannot be reached to ${doing}: ${error.message}`, {
      network: 'reddit',
      networkError: error.reason,
      status: 0,
    });
  }
  const why = error instanceof Error ? error.message : 'no response';
  throw new UnavailableError(`Reddit did not answer when asked to ${doing} (${why}); try again later`);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export interface RedditHttpOptions {
  authUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  userAgent: string;
  fetch: typeof globalThis.fetch;
}

export type RedditHttp = ReturnType<typeof createRedditHttp>;

export function createRedditHttp(options: RedditHttpOptions) {
  async function send(url: URL, init: RequestInit, doing: string): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('user-agent', options.userAgent);
    try {
      return await options.fetch(url, { ...init, headers, redirect: 'manual' });
    } catch (error) {
      return noAnswer(error, doing);
    }
  }

  /** The answer of a status the caller did not ask to see, as the platform's error. `doing` completes "to …". */
  function refusal(answer: RedditAnswer, doing: string): never {
    const { status, headers, body } = answer;
    if (status === 401) throw new AccessExpiredError();
    if (status === 429) {
      const wait = retryAfterOf(headers);
      throw new RateLimitedError(`Reddit's rate limit is used up; it allows us to ${doing} again in ${wait} s`, wait);
    }
    if (status >= 500) {
      throw new UnavailableError(`Reddit did not answer when asked to ${doing} (HTTP ${status}); try again later`);
    }
    const words = errorWords(body);
    if (status === 403 && /insufficient_scope/.test(headers.get('www-authenticate') ?? '')) {
      throw new ChannelRefusedError(
        `Reddit refused to ${doing}: the account was connected without the permission this needs; reconnect it`,
        { network: 'reddit', networkError: 'insufficient_scope', status },
      );
    }
    throw new ChannelRefusedError(`Reddit refused to ${doing}: ${words.text} (HTTP ${status})`, {
      network: 'reddit',
      networkError: words.code ?? `http_${status}`,
      status,
    });
  }

  /** A form POST to www.reddit.com as the platform's app (token and revoke endpoints). */
  async function appCall(path: string, form: Record<string, string>, doing: string): Promise<RedditAnswer> {
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
    const response = await send(
      new URL(path, options.authUrl),
      {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      },
      doing,
    );
    const answer: RedditAnswer = { status: response.status, headers: response.headers, body: await readBody(response) };
    if (response.status === 401) {
      // The app's own credentials, not the account's: only the operator can fix them.
      throw new ChannelRefusedError(
        `Reddit refused the platform's app credentials when asked to ${doing}: the operator checks ${REDDIT_ENV.clientId} and ${REDDIT_ENV.clientSecret}`,
        { network: 'reddit', networkError: 'invalid_client', status: 401 },
      );
    }
    if (response.status >= 200 && response.status < 300) return answer;
    // Reddit answers refused grants with 200, but a 400 with an OAuth error is read the same way.
    if (response.status === 400 && typeof (answer.body as { error?: unknown })?.error === 'string') return answer;
    return refusal(answer, doing);
  }

  return {
    /**
     * A call of the OAuth API with an account's access token. 2xx answers are returned; so are the statuses in
     * `allow` (a subreddit that is private, say); every other answer is thrown as the platform's error.
     */
    async api(
      accessToken: string,
      request: {
        method: 'GET' | 'POST';
        path: string;
        query?: Record<string, string>;
        form?: Record<string, string>;
        doing: string;
        allow?: readonly number[];
        onQuota?: QuotaObserver;
      },
    ): Promise<RedditAnswer> {
      const url = new URL(request.path, options.apiUrl);
      for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
      const headers: Record<string, string> = { authorization: `bearer ${accessToken}` };
      if (request.form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await send(
        url,
        { method: request.method, headers, body: request.form ? new URLSearchParams(request.form) : undefined },
        request.doing,
      );
      const quota = quotaOf(response.headers);
      if (quota && request.onQuota) request.onQuota(quota);
      const answer: RedditAnswer = {
        status: response.status,
        headers: response.headers,
        body: await readBody(response),
      };
      if ((response.status >= 200 && response.status < 300) || request.allow?.includes(response.status)) return answer;
      return refusal(answer, request.doing);
    },

    /** A POST of a form to another host (the media upload lease's storage bucket). */
    async upload(url: URL, form: FormData, doing: string): Promise<RedditAnswer> {
      const response = await send(url, { method: 'POST', body: form }, doing);
      return { status: response.status, headers: response.headers, body: await readBody(response) };
    },

    /** The token endpoint, authenticated as the platform's app (HTTP Basic with the client id and secret). */
    async token(form: Record<string, string>, doing: string): Promise<TokenAnswer> {
      const answer = await appCall('/api/v1/access_token', form, doing);
      const body = (answer.body ?? {}) as Partial<TokenAnswer> & { error?: unknown };
      if (typeof body.error === 'string' || typeof body.error === 'number')
        throw new TokenRefusedError(String(body.error));
      if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
        throw new UnavailableError(`Reddit answered the request to ${doing} with something that is not a token`);
      }
      return body as TokenAnswer;
    },

    appCall,
  };
}
