/**
 * The Graph API (graph.facebook.com, version `GRAPH_VERSION`) as the Meta adapter calls it: plain `fetch`
 * through the platform's guard, the access token in the `Authorization` header (never in a URL, where it would
 * reach logs), JSON or multipart bodies, and Meta's answers turned into the platform's errors.
 *
 * - Errors come as `{error: {message, type, code, error_subcode, fbtrace_id, is_transient}}`. Rate limits are
 *   codes 4 (app), 17 (user), 32 (Page), 613 and the business-use-case codes 80001 (Pages) and 80002
 *   (Instagram), answered with HTTP 400 or 403: `RateLimitedError`, waiting what `X-Business-Use-Case-Usage`'s
 *   `estimated_time_to_regain_access` says. Code 190 is a refused access token (`MetaAccessExpiredError`: the
 *   framework refreshes and tries once more). 5xx, transient errors (`is_transient`, code 2) and timeouts are
 *   `UnavailableError`. Everything else is the network refusing the request (`ChannelRefusedError`).
 * - Every answer's usage headers (`X-App-Usage`, `X-Business-Use-Case-Usage`: percentages of a rolling
 *   one-hour budget) are reported as the account's quota.
 */
import { FetchRefusedError } from '../../../net/safe-fetch.ts';
import { ChannelRefusedError, RateLimitedError, UnavailableError } from '../../../errors.ts';
import type { ChannelQuota } from '../channel-account.entity.ts';
import type { QuotaObserver } from '../channel-adapter.ts';

export const GRAPH_VERSION = 'v24.0';
export const DEFAULT_GRAPH_URL = 'https://graph.facebook.com';
export const DEFAULT_DIALOG_URL = 'https://www.facebook.com';

/** Meta's usage figures are percentages of a rolling one-hour window. */
const USAGE_WINDOW_SECONDS = 3600;
/** Without a figure from Meta, a rate-limited call waits this long (its windows are an hour: hammering prolongs them). */
const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001, 80002]);
/** Instagram's "too many posts in 24 hours" (code 9, subcode 2207042): a rate limit of its own. */
const PUBLISH_LIMIT_SUBCODE = 2207042;

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
  is_transient?: boolean;
}

/** A Graph API answer that was not a success, as Meta sent it (callers may recognise a case before translating). */
export class GraphApiError extends Error {
  readonly status: number;
  readonly error: GraphErrorBody;
  readonly headers: Headers;

  constructor(status: number, error: GraphErrorBody, headers: Headers) {
    super(redactTokens(error.message ?? `HTTP ${status}`));
    this.name = 'GraphApiError';
    this.status = status;
    this.error = error;
    this.headers = headers;
  }

  get code(): number | undefined {
    return this.error.code;
  }

  get subcode(): number | undefined {
    return this.error.error_subcode;
  }
}

/** An access token Meta refused (code 190): refresh and try once more. */
export class MetaAccessExpiredError extends Error {
  constructor() {
    super('Meta refused the access token');
    this.name = 'MetaAccessExpiredError';
  }
}

/** Meta's tokens start with `EAA`; a message that quotes one (Meta's do not, but an echo might) loses it. */
export function redactTokens(text: string): string {
  return text.replace(/\bEAA[A-Za-z0-9_-]{10,}/g, '[token]');
}

interface UsageFigures {
  source: string;
  percent: number;
  regainMinutes: number;
}

function usageFigures(headers: Headers): UsageFigures[] {
  const figures: UsageFigures[] = [];
  const percentOf = (entry: Record<string, unknown>) =>
    Math.max(
      ...['call_count', 'total_cputime', 'total_time'].map((name) => Number(entry[name] ?? 0)).filter(Number.isFinite),
    );
  const read = (name: string): unknown => {
    const raw = headers.get(name);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return null;
    }
  };
  const app = read('x-app-usage');
  if (app && typeof app === 'object') {
    figures.push({ source: 'app', percent: percentOf(app as Record<string, unknown>), regainMinutes: 0 });
  }
  const business = read('x-business-use-case-usage');
  if (business && typeof business === 'object') {
    for (const entries of Object.values(business as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as Record<string, unknown>[]) {
        figures.push({
          source: typeof entry.type === 'string' ? entry.type : 'business',
          percent: percentOf(entry),
          regainMinutes: Number(entry.estimated_time_to_regain_access ?? 0) || 0,
        });
      }
    }
  }
  return figures;
}

/**
 * The tightest of Meta's usage figures as a quota: `limit` 100 (percent), `remaining` what is left of it, and
 * the reset when Meta names one (`estimated_time_to_regain_access`), else the end of the rolling hour.
 */
export function quotaOf(headers: Headers, now = new Date()): ChannelQuota | null {
  const figures = usageFigures(headers);
  if (figures.length === 0) return null;
  // A budget Meta has already cut off (a regain time) binds first; otherwise the most used one.
  const [tightest] = [...figures].sort((a, b) => b.regainMinutes - a.regainMinutes || b.percent - a.percent);
  if (!tightest) return null;
  const resetSeconds = tightest.regainMinutes > 0 ? tightest.regainMinutes * 60 : USAGE_WINDOW_SECONDS;
  return {
    policy: `${tightest.source};percent;w=${USAGE_WINDOW_SECONDS}`,
    limit: 100,
    remaining: Math.max(0, Math.round(100 - tightest.percent)),
    resetAt: new Date(now.getTime() + resetSeconds * 1000).toISOString(),
    observedAt: now.toISOString(),
  };
}

function rateLimitWait(headers: Headers): number {
  const regain = Math.max(0, ...usageFigures(headers).map((figure) => figure.regainMinutes));
  if (regain > 0) return regain * 60;
  const retryAfter = Number(headers.get('retry-after'));
  return Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : DEFAULT_RATE_LIMIT_WAIT_SECONDS;
}

export function isRateLimit(error: GraphApiError): boolean {
  return (
    error.status === 429 ||
    RATE_LIMIT_CODES.has(error.code ?? -1) ||
    (error.code === 9 && error.subcode === PUBLISH_LIMIT_SUBCODE)
  );
}

function describe(error: GraphApiError): string {
  const user = error.error.error_user_msg ? ` (${redactTokens(error.error.error_user_msg)})` : '';
  return `${error.message}${user}`;
}

/**
 * A call that got no answer: a timeout (`AbortSignal.timeout`) or a connection fetch could not make. Told apart
 * by name, as they may come from another realm (a DOMException, undici's TypeError) where `instanceof` fails.
 */
function isNoAnswer(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === 'TimeoutError' || name === 'AbortError' || (name === 'TypeError' && message === 'fetch failed');
}

/**
 * Turns what a Graph call threw into the platform's errors. `doing` completes "Meta refused to …" and "Meta
 * did not answer when asked to …".
 */
export function translate(error: unknown, doing: string): never {
  if (error instanceof FetchRefusedError) {
    if (!['timeout', 'connection_failed', 'dns_failure', 'too_large'].includes(error.reason)) {
      throw new ChannelRefusedError(`Meta cannot be reached to ${doing}: ${error.message}`, {
        network: 'meta',
        networkError: error.reason,
        status: 0,
      });
    }
    throw new UnavailableError(`Meta did not answer when asked to ${doing} (${error.message}); try again later`);
  }
  if (!(error instanceof GraphApiError)) {
    if (isNoAnswer(error)) {
      throw new UnavailableError(
        `Meta did not answer when asked to ${doing} (${(error as Error).message}); try again later`,
      );
    }
    throw error;
  }
  if (isRateLimit(error)) {
    const wait = error.code === 9 ? 3600 : rateLimitWait(error.headers);
    throw new RateLimitedError(
      `Meta's rate limit is used up (${describe(error)}); try to ${doing} again in ${wait} s`,
      wait,
    );
  }
  if (error.code === 190) throw new MetaAccessExpiredError();
  // A success status without a readable answer is the network's trouble too.
  if (error.status >= 500 || error.status < 400 || error.error.is_transient || error.code === 2) {
    throw new UnavailableError(
      `Meta did not answer when asked to ${doing} (HTTP ${error.status}: ${error.message}); try again later`,
    );
  }
  throw new ChannelRefusedError(`Meta refused to ${doing}: ${describe(error)}`, {
    network: 'meta',
    networkError: `${error.code ?? 'unknown'}${error.subcode ? `/${error.subcode}` : ''}`,
    status: error.status,
  });
}

export interface GraphRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  /** The path after the version, e.g. `me/accounts`, `123/feed`. */
  path: string;
  token?: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: Record<string, unknown>;
  form?: FormData;
  timeoutMs?: number;
}

export interface Graph {
  /** The raw call: resolves with the JSON answer, rejects with `GraphApiError` or the fetch's own error. */
  request<T>(request: GraphRequest): Promise<T>;
  /** The call with its failure translated (`translate`). */
  call<T>(doing: string, request: GraphRequest): Promise<T>;
}

export interface GraphOptions {
  graphUrl: string;
  /** `v24.0` unless the operator pins another (`META_GRAPH_VERSION`). */
  version?: string;
  fetch: typeof globalThis.fetch;
  onQuota?: QuotaObserver;
  timeoutMs?: number;
}

export function createGraph(options: GraphOptions): Graph {
  const base = options.graphUrl.replace(/\/+$/, '');
  const version = options.version ?? GRAPH_VERSION;

  async function request<T>(req: GraphRequest): Promise<T> {
    const url = new URL(`${base}/${version}/${req.path.replace(/^\/+/, '')}`);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers = new Headers({ accept: 'application/json' });
    if (req.token) headers.set('authorization', `Bearer ${req.token}`);
    let body: BodyInit | undefined;
    if (req.json) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(req.json);
    } else if (req.form) {
      body = req.form;
    }
    const response = await options.fetch(url, {
      method: req.method ?? 'GET',
      headers,
      body,
      // An upload's own allowance never shortens the client's (tests shorten the client's to seconds).
      signal: AbortSignal.timeout(Math.max(req.timeoutMs ?? 0, options.timeoutMs ?? 60_000)),
    });
    const quota = options.onQuota ? quotaOf(response.headers) : null;
    if (quota) options.onQuota!(quota);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : {};
    } catch {
      // Not JSON (a proxy's error page): reported below as an answer without a Graph API error.
    }
    if (response.ok && parsed !== undefined) return parsed as T;
    const errorBody = (parsed as { error?: GraphErrorBody } | undefined)?.error;
    throw new GraphApiError(
      response.status,
      errorBody ?? { message: `HTTP ${response.status} ${response.statusText || 'without a Graph API error'}` },
      response.headers,
    );
  }

  return {
    request,
    async call<T>(doing: string, req: GraphRequest): Promise<T> {
      try {
        return await request<T>(req);
      } catch (error) {
        translate(error, doing);
      }
    },
  };
}
