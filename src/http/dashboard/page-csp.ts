/**
 * A page that shows something from another origin widens the dashboard's Content-Security-Policy (kit.ts:
 * `default-src 'none'`) for itself only, by one named directive, with the reason next to the call. Every other
 * page keeps the strict policy.
 */
import type { Context } from 'koa';

/** Adds `directive` (e.g. `img-src 'self'`) to the policy `sendHtml` set on this response. */
export function allowOnThisPage(ctx: Context, directive: string): void {
  const policy = ctx.response.get('content-security-policy');
  ctx.set('content-security-policy', policy ? `${policy}; ${directive}` : directive);
}
