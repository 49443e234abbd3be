import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

/** A caller's `x-request-id` is echoed only in this shape; otherwise the request gets a fresh UUID. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the caller's `x-request-id` if it is sane), echoed in the response. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const id = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set('x-request-id', id);
    await next();
  };
}
