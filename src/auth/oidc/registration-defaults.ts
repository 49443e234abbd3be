/**
 * Dynamic registration defaults applied before oidc-provider sees the request.
 *
 * A body of only `client_name` and `redirect_uris` must register a public client. oidc-provider decides
 * whether to mint a client secret from the raw body (before its own defaults), so without this a public
 * client would receive a secret it can never use. We fill `token_endpoint_auth_method: "none"` when the
 * body names none. (Redirect URIs are checked, and on-device registrations become native apps, in the
 * provider's client validator.)
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { RequestRefusedError } from '../../errors.ts';

/** oidc-provider's own body limit: a larger body would be refused there anyway. */
const LIMIT = 56 * 1024;

export function registrationDefaults(): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/oauth/register' || !ctx.is('application/json')) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > LIMIT) {
        throw new RequestRefusedError('payload_too_large', 'registration request too large', { limitBytes: LIMIT });
      }
      chunks.push(chunk as Buffer);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new RequestRefusedError('invalid_client_metadata', 'the registration body is not valid JSON');
    }
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const metadata = body as Record<string, unknown>;
      metadata.token_endpoint_auth_method ??= 'none';
    }
    // Hand oidc-provider a fresh stream with the adjusted body, so it parses it exactly as it would the
    // original request (and does not fall back to a pre-parsed body).
    const bytes = Buffer.from(JSON.stringify(body));
    const replacement = Object.assign(Readable.from([bytes]), {
      headers: { ...ctx.req.headers, 'content-length': String(bytes.length) },
      method: ctx.req.method,
      url: ctx.req.url,
      socket: ctx.req.socket,
      httpVersion: ctx.req.httpVersion,
    });
    const original = ctx.req;
    ctx.req = replacement as unknown as IncomingMessage;
    ctx.request.req = ctx.req;
    try {
      await next();
    } finally {
      ctx.req = original;
      ctx.request.req = original;
    }
  };
}
