/**
 * Generated media at `{platform_url}/media/<key>`: campaign images, stills, videos and film cuts. Public by
 * design (published campaigns embed them); keys contain random job ids, so they cannot be enumerated.
 * Content is immutable per key, hence the long cache lifetime; `nosniff` and a sandboxing CSP keep a stored
 * file from ever acting as a page.
 */
import type Koa from 'koa';
import type { MediaStore } from '../../domain/media/media-store.ts';
import { RequestRefusedError } from '../../errors.ts';

const PREFIX = '/media/';

export function mediaRoutes(media: MediaStore): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const stored = await media.get(ctx.path.slice(PREFIX.length));
    if (!stored) throw new RequestRefusedError('not_found', 'No such media file');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.type = stored.contentType;
    ctx.body = stored.bytes;
  };
}
