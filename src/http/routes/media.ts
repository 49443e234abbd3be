/**
 * Generated media at `{platform_url}/media/<key>`: campaign images, stills, videos and film cuts. Public by
 * design (published campaigns embed them); keys contain random job ids, so they cannot be enumerated.
 * The same files at `{platform_url}/media-links/<token>.<ext>` for a limited time (`media-links.ts`): what
 * networks that fetch a post's media themselves (Instagram, TikTok) are given.
 * Content is immutable per key, hence the long cache lifetime; `nosniff` and a sandboxing CSP keep a stored
 * file from ever acting as a page.
 */
import type Koa from 'koa';
import type { MediaStore } from '../../domain/media/media-store.ts';
import { MEDIA_LINK_PREFIX, type MediaLinks } from '../../domain/media/media-links.ts';
import { RequestRefusedError } from '../../errors.ts';

const PREFIX = '/media/';

export function mediaRoutes(media: MediaStore, links: MediaLinks): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    let key: string | null;
    let cacheControl: string;
    if (ctx.path.startsWith(PREFIX)) {
      key = ctx.path.slice(PREFIX.length);
      cacheControl = 'public, max-age=31536000, immutable';
    } else if (ctx.path.startsWith(MEDIA_LINK_PREFIX)) {
      key = links.resolve(ctx.path.slice(MEDIA_LINK_PREFIX.length));
      if (!key) throw new RequestRefusedError('not_found', 'This media link is not valid or has expired');
      // The link expires: caches may not keep the file past it.
      cacheControl = 'private, max-age=300';
    } else {
      return next();
    }
    const stored = await media.get(key);
    if (!stored) throw new RequestRefusedError('not_found', 'No such media file');
    ctx.set('Cache-Control', cacheControl);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.type = stored.contentType;
    ctx.body = stored.bytes;
  };
}
