/**
 * oidc-provider grants `offline_access` (and so a refresh token) only when the authorization request also
 * carries `prompt=consent`. Our consent page is shown for every authorization anyway (each one picks a
 * workspace), so an `offline_access` request gets `prompt=consent` added instead of silently losing it.
 */
import type { Middleware } from 'koa';

export function offlineAccessNeedsConsent(): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/oauth/authorize') {
      const params = new URLSearchParams(ctx.querystring);
      const scopes = (params.get('scope') ?? '').split(' ');
      const prompts = (params.get('prompt') ?? '').split(' ').filter(Boolean);
      if (scopes.includes('offline_access') && !prompts.includes('consent')) {
        params.set('prompt', [...prompts, 'consent'].join(' '));
        ctx.querystring = params.toString();
      }
    }
    await next();
  };
}
