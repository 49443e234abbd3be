/**
 * Conditional GET for the public sites (RFC 9110 §13). Koa's `ctx.fresh` is a cache's view: it answers
 * "not fresh" whenever the request says `Cache-Control: no-cache`, which Node's fetch (undici) and many agents
 * send on every conditional request — so an origin server must evaluate the validators itself.
 */
import type Koa from 'koa';

/** True when `header` (an If-None-Match value) matches `etag` under the weak comparison of §8.8.3.2. */
export function matchesIfNoneMatch(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/**
 * True when a GET/HEAD may be answered 304: If-None-Match decides when present; otherwise If-Modified-Since
 * against `lastModified` (second precision, as HTTP dates have).
 */
export function notModified(ctx: Koa.Context, etag: string, lastModified?: Date): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch) return matchesIfNoneMatch(ifNoneMatch, etag);
  const ifModifiedSince = ctx.get('if-modified-since');
  if (!ifModifiedSince || !lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
