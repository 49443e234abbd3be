/**
 * CSRF protection for every HTML form.
 *
 * - Signed-in forms carry the session's synchronizer token (stored with the session).
 * - Anonymous forms (sign-up, sign-in, the authorization server's sign-in and consent) use a signed double
 *   submit: an HttpOnly, SameSite=Strict cookie holds a random nonce and the form carries HMAC(key, nonce),
 *   which an attacker who can plant a cookie still cannot compute.
 * In both cases a present `Origin` header must be the site's own origin.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

const COOKIE = 'cp_csrf';

function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function createCsrf(options: { keys: readonly string[]; secure: boolean }) {
  const sign = (nonce: string, key: string) => createHmac('sha256', key).update(`csrf:${nonce}`).digest('base64url');

  return {
    /** The token to put in an anonymous form (sets the nonce cookie when missing). */
    anonymousToken(ctx: Context): string {
      let nonce = ctx.cookies.get(COOKIE);
      if (!nonce || !/^[A-Za-z0-9_-]{43}$/.test(nonce)) {
        nonce = randomBytes(32).toString('base64url');
        ctx.cookies.set(COOKIE, nonce, {
          httpOnly: true,
          sameSite: 'strict',
          secure: options.secure,
          path: '/',
          overwrite: true,
        });
      }
      return sign(nonce, options.keys[0]!);
    },

    /** Verifies an anonymous form submission. */
    verifyAnonymous(ctx: Context, submitted: unknown): boolean {
      const nonce = ctx.cookies.get(COOKIE);
      if (!nonce || typeof submitted !== 'string' || !originAllowed(ctx)) return false;
      return options.keys.some((key) => sameString(sign(nonce, key), submitted));
    },

    /** Verifies a signed-in form submission against the session's token. */
    verifySession(ctx: Context, sessionToken: string, submitted: unknown): boolean {
      return typeof submitted === 'string' && originAllowed(ctx) && sameString(sessionToken, submitted);
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;

/**
 * A present Origin must be this site's origin (browsers send it on every POST). Note: in Koa 3 `ctx.origin`
 * is the request's Origin *header*, not the site's origin, so the site's origin is built from protocol+host.
 */
export function originAllowed(ctx: Context): boolean {
  const origin = ctx.get('origin');
  return !origin || origin === `${ctx.protocol}://${ctx.host}`;
}
