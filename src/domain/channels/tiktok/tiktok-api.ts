/**
 * TikTok's HTTP API as the adapter speaks it: every call through the platform's guarded fetch, every answer
 * read the one way TikTok writes it, every refusal turned into the platform's errors.
 *
 * - The API (open.tiktokapis.com/v2) answers `{ data, error: { code, message, log_id } }`, with `code` `ok`
 *   on success (TikTok API v2 error handling: `access_token_invalid` and `scope_not_authorized` 401,
 *   `invalid_params` 400, `rate_limit_exceeded` 429, `internal_error` 500, and the Content Posting API's own
 *   403s). The OAuth endpoints answer RFC 6749's `{ error, error_description, log_id }` instead.
 * - TikTok sends no rate-limit headers: it documents its budgets (publish init 6 a minute per user token,
 *   status 30, creator info 20) and answers 429 when one is spent. So the account's quota is reported when
 *   TikTok says a documented budget is spent — remaining 0 until the wait is over — and not made up otherwise.
 * - Ids: TikTok documents `publicaly_available_post_id` as int64, beyond what a JavaScript number holds
 *   exactly, so integers past 2^53 are read as their digits (a string), never rounded.
 * - Neither the access token nor the upload URL (it carries an upload token) ever goes into an error message.
 */
import { FetchRefusedError } from '../../../net/safe-fetch.ts';
import { ChannelRefusedError, RateLimitedError, UnavailableError } from '../../../errors.ts';
import type { QuotaObserver } from '../channel-adapter.ts';

/** Seconds to wait after a 429 when TikTok names no wait (it documents one-minute windows). */
export const DEFAULT_RATE_LIMIT_WAIT = 60;

/** An access token TikTok refused (`access_token_invalid`): refresh and try once more. */
export class TikTokAccessExpiredError extends Error {
  constructor() {
    super('TikTok refused the access token');
    this.name = 'TikTokAccessExpiredError';
  }
}

/** TikTok's error object (`code` is `ok` on success). */
export interface TikTokError {
  code: string;
  message: string;
  log_id?: string;
}

/** What a refusal means, said so that a person knows what to do (the completion of "TikTok refused to …: "). */
const REFUSALS: Record<string, string> = {
  privacy_level_option_mismatch:
    "the privacy level is not one the creator's account allows now; validate the post again to see the account's options",
  unaudited_client_can_only_post_to_private_accounts:
    "the platform's TikTok app has not passed TikTok's audit yet, so it can only post privately to the creator (SELF_ONLY)",
  url_ownership_unverified:
    "the platform's media domain is not verified with TikTok, so TikTok will not fetch the video from it: the operator verifies it in the TikTok developer portal, or sets TIKTOK_VIDEO_SOURCE=FILE_UPLOAD",
  spam_risk_too_many_posts:
    'the account reached the number of posts TikTok allows through apps in a day; post again tomorrow',
  spam_risk_too_many_pending_share:
    'the account has too many videos waiting in its TikTok inbox; the creator posts or deletes them in the app first',
  spam_risk_user_banned_from_posting:
    'TikTok does not let this account post at the moment; the creator finds why in the TikTok app',
  reached_active_user_cap:
    "the platform's TikTok app reached the number of creators TikTok lets it post for in a day; try again tomorrow",
  scope_not_authorized:
    'the account did not grant the permission this needs; reconnect it and allow everything TikTok asks for',
  scope_permission_missed:
    'the account did not grant the permission this needs; reconnect it and allow everything TikTok asks for',
  invalid_params: 'TikTok did not accept the request',
};

/** A guard refusal that waiting cannot fix (an address or port the platform may not reach). */
function isPermanentRefusal(error: FetchRefusedError): boolean {
  return !['timeout', 'connection_failed', 'dns_failure', 'too_large'].includes(error.reason);
}

/** A fetch that threw: the guard's refusal, or the connection's failure (waiting may help). */
export function connectionFailure(error: unknown, doing: string): Error {
  if (error instanceof FetchRefusedError && isPermanentRefusal(error)) {
    return new ChannelRefusedError(`TikTok cannot be reached to ${doing}: ${error.message}`, {
      network: 'tiktok',
      networkError: error.reason,
      status: 0,
    });
  }
  const why = error instanceof Error ? error.message : String(error);
  return new UnavailableError(`TikTok did not answer when asked to ${doing} (${why}); try again later`);
}

/** Reads a JSON answer, keeping integers beyond 2^53 as their exact digits. */
export function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
      typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
        ? context!.source
        : value,
    ) as unknown;
  } catch {
    return text;
  }
}

function errorOf(body: unknown): TikTokError | null {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (!error || typeof error !== 'object') return null;
  const { code, message, log_id } = error as Partial<TikTokError>;
  return typeof code === 'string' ? { code, message: message ?? '', log_id } : null;
}

function retryAfter(headers: Headers): number {
  const seconds = Number(headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : DEFAULT_RATE_LIMIT_WAIT;
}

/** A documented per-token budget of an endpoint (TikTok: requests per minute). */
export interface Budget {
  limit: number;
  windowSeconds: number;
}

/**
 * Turns a refused answer into the platform's error. `doing` completes "TikTok refused to …" and "TikTok did
 * not answer when asked to …".
 */
export function refusal(
  status: number,
  headers: Headers,
  body: unknown,
  doing: string,
  report?: { onQuota?: QuotaObserver; budget?: Budget },
): Error {
  const error = errorOf(body);
  const code = error?.code ?? `http_${status}`;
  const said = error?.message
    ? ` (TikTok: “${error.message.slice(0, 300)}”${error.log_id ? `, log id ${error.log_id}` : ''})`
    : '';
  if (status === 429 || code === 'rate_limit_exceeded') {
    const wait = retryAfter(headers);
    if (report?.onQuota && report.budget) {
      const now = new Date();
      report.onQuota({
        policy: `${report.budget.limit};w=${report.budget.windowSeconds}`,
        limit: report.budget.limit,
        remaining: 0,
        resetAt: new Date(now.getTime() + wait * 1000).toISOString(),
        observedAt: now.toISOString(),
      });
    }
    return new RateLimitedError(
      `TikTok's rate limit is used up; it allows asking to ${doing} again in ${wait} s`,
      wait,
    );
  }
  if (code === 'access_token_invalid') return new TikTokAccessExpiredError();
  if (status >= 500 || code === 'internal_error') {
    return new UnavailableError(
      `TikTok did not answer when asked to ${doing} (HTTP ${status} ${code}); try again later`,
    );
  }
  const meaning = REFUSALS[code] ?? 'TikTok refused the request';
  return new ChannelRefusedError(`TikTok refused to ${doing}: ${meaning}${said}`, {
    network: 'tiktok',
    networkError: code,
    status,
  });
}

export interface ApiRequest {
  doing: string;
  method: 'GET' | 'POST';
  /** The path and query under the API's origin (`/v2/user/info/?fields=…`). */
  path: string;
  json?: unknown;
  budget?: Budget;
}

/** A signed-in connection to the v2 API for one access token. */
export interface TikTokApi {
  /** Sends a request and returns its `data`, or throws the platform's error for a refusal. */
  call<T>(request: ApiRequest): Promise<T>;
}

export function createTikTokApi(options: {
  apiUrl: string;
  accessToken: string;
  fetch: typeof globalThis.fetch;
  onQuota?: QuotaObserver;
}): TikTokApi {
  return {
    async call<T>(request: ApiRequest): Promise<T> {
      const headers: Record<string, string> = { authorization: `Bearer ${options.accessToken}` };
      // The Content Posting API's POSTs take `application/json; charset=UTF-8`, with or without a body.
      if (request.method === 'POST') headers['content-type'] = 'application/json; charset=UTF-8';
      let response: Response;
      let text: string;
      try {
        response = await options.fetch(new URL(request.path, options.apiUrl), {
          method: request.method,
          headers,
          ...(request.json !== undefined ? { body: JSON.stringify(request.json) } : {}),
        });
        text = await response.text();
      } catch (error) {
        throw connectionFailure(error, request.doing);
      }
      const body = parseJson(text);
      const error = errorOf(body);
      if (!response.ok || (error && error.code !== 'ok')) {
        throw refusal(response.status, response.headers, body, request.doing, {
          onQuota: options.onQuota,
          budget: request.budget,
        });
      }
      return ((body as { data?: unknown } | undefined)?.data ?? {}) as T;
    },
  };
}

/** The OAuth endpoints' refusal (`{ error, error_description, log_id }`). */
export interface OAuthRefusal {
  status: number;
  error: string;
  description: string;
}

/**
 * A form POST to an OAuth endpoint (`/v2/oauth/token/`, `/v2/oauth/revoke/`). Returns the parsed answer, or
 * the refusal for the caller to judge (a refused code is the person's to retry, a refused refresh token means
 * reconnecting). Outages and rate limits are thrown.
 */
export async function oauthPost(
  options: { apiUrl: string; fetch: typeof globalThis.fetch },
  path: string,
  form: Record<string, string>,
  doing: string,
): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; refusal: OAuthRefusal }> {
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(new URL(path, options.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache' },
      body: new URLSearchParams(form).toString(),
    });
    text = await response.text();
  } catch (error) {
    throw connectionFailure(error, doing);
  }
  const body = (parseJson(text) ?? {}) as Record<string, unknown>;
  const oauthError = typeof body.error === 'string' ? body.error : null;
  if (response.status === 429) throw refusal(429, response.headers, body, doing);
  if (response.status >= 500 || oauthError === 'server_error' || oauthError === 'temporarily_unavailable') {
    throw new UnavailableError(
      `TikTok did not answer when asked to ${doing} (HTTP ${response.status}${oauthError ? ` ${oauthError}` : ''}); try again later`,
    );
  }
  if (!response.ok || oauthError) {
    return {
      ok: false,
      refusal: {
        status: response.status,
        error: oauthError ?? errorOf(body)?.code ?? `http_${response.status}`,
        description: String(body.error_description ?? errorOf(body)?.message ?? '').slice(0, 300),
      },
    };
  }
  return { ok: true, body };
}

/**
 * Sends one chunk of a FILE_UPLOAD to TikTok's upload URL (no bearer token: the URL carries its own). TikTok
 * answers 206 while chunks are missing and 201 once the file is whole.
 */
export async function putChunk(
  fetch: typeof globalThis.fetch,
  chunk: { uploadUrl: string; bytes: Buffer; first: number; last: number; total: number; contentType: string },
): Promise<number> {
  const doing = 'take the video upload';
  let response: Response;
  let text: string;
  try {
    response = await fetch(chunk.uploadUrl, {
      method: 'PUT',
      headers: {
        'content-type': chunk.contentType,
        'content-range': `bytes ${chunk.first}-${chunk.last}/${chunk.total}`,
      },
      // A copy on its own ArrayBuffer (a Buffer may be a view into a shared pool).
      body: new Uint8Array(chunk.bytes),
    });
    text = await response.text();
  } catch (error) {
    throw connectionFailure(error, doing);
  }
  if (response.status === 201 || response.status === 206) return response.status;
  throw refusal(response.status, response.headers, parseJson(text), doing);
}
