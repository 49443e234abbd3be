/**
 * The tool server's front door, shared by `/api/mcp` and the benchmarks that measure it: the Origin check
 * (DNS-rebinding protection for browser callers; non-browser clients send no Origin) and authentication into
 * `ctx.state.principal`, answering failures as JSON-RPC errors with the RFC 6750/9728 challenge.
 */
import type { Middleware } from 'koa';
import { AuthenticationFailure, type Authenticator } from '../../auth/authenticate.ts';
import type { Config } from '../../config.ts';
import { bearerChallenge } from '../routes/protected-resource.ts';
import { jsonRpcRefusal, type Refusal } from './refusal.ts';

/**
 * The Origin rule of every credentialed API route (`/api/mcp`, `/api/v1/conversions`): a request from a
 * browser page whose origin is not the platform's own or listed in `ALLOWED_ORIGINS` is refused with 403
 * before anything else (DNS-rebinding and cross-site protection); non-browser clients send no Origin. Allowed
 * origins get CORS headers.
 */
export function toolServerOriginCheck(config: Config, refuse: Refusal = jsonRpcRefusal): Middleware {
  const allowedOrigins = new Set(config.allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin && !allowedOrigins.has(origin.replace(/\/+$/, ''))) {
      refuse(ctx, 403, `Origin ${origin.slice(0, 200)} is not allowed to call this server`, {
        code: 'forbidden_origin',
      });
      return;
    }
    if (origin) {
      ctx.set('access-control-allow-origin', origin);
      ctx.set(
        'access-control-expose-headers',
        'www-authenticate, mcp-protocol-version, retry-after, ratelimit, ratelimit-policy',
      );
      ctx.set('vary', 'Origin');
    }
    await next();
  };
}

/** The CORS preflight of the same routes: allowed origins only (403 otherwise), POST with the credential headers. */
export function toolServerPreflight(config: Config): Middleware {
  const allowedOrigins = new Set(config.allowedOrigins);
  return (ctx) => {
    const origin = ctx.get('origin');
    if (!origin || !allowedOrigins.has(origin.replace(/\/+$/, ''))) {
      ctx.status = 403;
      return;
    }
    ctx.set('access-control-allow-origin', origin);
    ctx.set('access-control-allow-methods', 'POST, OPTIONS');
    ctx.set(
      'access-control-allow-headers',
      'authorization, x-api-key, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, last-event-id',
    );
    ctx.set('access-control-max-age', '600');
    ctx.set('vary', 'Origin');
    ctx.status = 204;
  };
}

/** Authentication into `ctx.state.principal`; failures get the RFC 6750 challenge and `refuse` (JSON-RPC by default). */
export function toolServerAuthentication(
  config: Config,
  authenticator: Authenticator,
  refuse: Refusal = jsonRpcRefusal,
): Middleware {
  return async (ctx, next) => {
    try {
      ctx.state.principal = await authenticator.authenticate({
        authorization: ctx.get('authorization') || undefined,
        apiKey: ctx.get('x-api-key') || undefined,
        query: ctx.query,
      });
    } catch (error) {
      if (!(error instanceof AuthenticationFailure)) throw error;
      // RFC 6750 §3.1: a malformed request (here, two credentials) is 400 invalid_request; a credential that
      // does not verify is 401 invalid_token; no credential at all gets the bare challenge.
      const malformed = error.reason === 'conflicting_credentials';
      ctx.set(
        'www-authenticate',
        error.credentialsPresented
          ? bearerChallenge(config, {
              code: malformed ? 'invalid_request' : 'invalid_token',
              description: error.message,
            })
          : bearerChallenge(config),
      );
      refuse(ctx, malformed ? 400 : 401, error.message, { code: error.reason });
      return;
    }
    await next();
  };
}
