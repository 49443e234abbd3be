/**
 * The tool server's per-token rate limit (default 120 requests per minute per OAuth grant or API key),
 * shared by every API instance through PostgreSQL. Every answer carries `RateLimit-Policy` and `RateLimit`;
 * a refused request gets 429, `Retry-After` and a thrown `RateLimitedError` that says when to retry (the error
 * boundary renders it: JSON-RPC on the tool server, `{error, error_description}` on REST routes).
 */
import type { Middleware, ParameterizedContext } from 'koa';
import type { Principal } from '../../auth/principal.ts';
import { rateLimitHeaders, type RateLimiter, type RateLimitPolicy } from '../../domain/rate-limits/rate-limiter.ts';
import { RateLimitedError } from '../../errors.ts';

export function toolServerRateLimit(
  limiter: RateLimiter,
  policy: RateLimitPolicy,
  /**
   * Units this request costs beyond what an earlier step counted (default 1; 0 lets it pass uncounted). The
   * tool server counts every request once before reading its body, then the rest of a JSON-RPC batch's
   * messages (routes/mcp.ts).
   */
  cost: (ctx: ParameterizedContext) => number = () => 1,
): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as Principal;
    const units = cost(ctx);
    if (units === 0) return next();
    const decision = await limiter.consume(policy, principal.credentialId, units);
    for (const [name, value] of Object.entries(rateLimitHeaders(policy, decision))) ctx.set(name, value);
    if (!decision.allowed) {
      ctx.set('retry-after', String(decision.retryAfterSeconds));
      throw new RateLimitedError(
        `Rate limit exceeded: ${policy.limit} requests per ${policy.windowSeconds} seconds per token. Retry in ${decision.retryAfterSeconds} second(s).`,
        decision.retryAfterSeconds,
      );
    }
    await next();
  };
}

/**
 * A simple per-client-address limit for anonymous endpoints (registration, sign-up): 429, `Retry-After` and a
 * thrown `RateLimitedError`, like the per-token limit.
 */
export function addressRateLimit(
  limiter: RateLimiter,
  policy: RateLimitPolicy,
  applies: (path: string, method: string) => boolean,
): Middleware {
  return async (ctx, next) => {
    if (applies(ctx.path, ctx.method)) {
      const decision = await limiter.consume(policy, ctx.ip);
      if (!decision.allowed) {
        ctx.set('retry-after', String(decision.retryAfterSeconds));
        throw new RateLimitedError(
          `Too many requests; retry in ${decision.retryAfterSeconds} second(s)`,
          decision.retryAfterSeconds,
        );
      }
    }
    await next();
  };
}
