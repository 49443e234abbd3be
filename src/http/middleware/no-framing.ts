/**
 * Pages of the platform host (dashboard) and the auth host (sign-in, consent) must never render inside
 * another site's frame: a framing page could overlay them and trick a signed-in person into clicking
 * "Allow" or "Revoke" (clickjacking). Every response of such a host says so twice — CSP `frame-ancestors
 * 'none'` for current browsers, `X-Frame-Options: DENY` for older ones — whichever route or library
 * (oidc-provider's own pages included) produced it. Applied per host in app.ts, not per route, so a new page
 * cannot forget it.
 */
import type { Middleware } from 'koa';

const FRAME_ANCESTORS = "frame-ancestors 'none'";

export function noFraming(): Middleware {
  return async (ctx, next) => {
    // Set first, so a response that ends in an exception (answered by the error boundary) carries them too.
    ctx.set('x-frame-options', 'DENY');
    ctx.set('content-security-policy', FRAME_ANCESTORS);
    try {
      await next();
    } finally {
      // A route may send its own, stricter policy; it keeps it, with frame-ancestors added if it lacks one.
      const policy = ctx.response.get('content-security-policy');
      if (!/(^|;)\s*frame-ancestors\s/i.test(policy)) {
        ctx.set('content-security-policy', policy ? `${policy}; ${FRAME_ANCESTORS}` : FRAME_ANCESTORS);
      }
      ctx.set('x-frame-options', 'DENY');
    }
  };
}
