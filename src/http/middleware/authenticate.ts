/**
 * The tool server's front door, shared by `/api/mcp` and the benchmarks that measure it: the Origin check
 * (DNS-rebinding protection for browser callers; non-browser clients send no Origin) and authentication into
 * `ctx.state.principal`. Refusals are thrown: the error boundary answers them in the router's form (JSON-RPC on
 * the tool server, `{error, error_description}` on REST routes), with the RFC 6750/9728 challenge.
 */
import type { Middleware } from 'koa';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { Config } from '../../config.ts';
import { RequestRefusedError, UnauthenticatedError } from '../../errors.ts';
import { bearerChallenge } from '../routes/protected-resource.ts';

/**
 * The Origin rule of every credentialed API route (`/api/mcp`, `/api/v1/conversions`): a request from a
 * browser page whose origin is not the platform's own or listed in `ALLOWED_ORIGINS` is refused with 403
 * before anything else (DNS-rebinding and cross-site protection); non-browser clients send no Origin. Allowed
 * origins get CORS headers.
 */
export function toolServerOriginCheck(config: Config): Middleware {
  const allowedOrigins = new Set(config.allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin && !allowedOrigins.has(origin.replace(/\/+$/, ''))) throw foreignOrigin(origin);
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

function foreignOrigin(origin: string): RequestRefusedError {
  return new RequestRefusedError(
    'forbidden_origin',
    `Origin ${origin.slice(0, 200)} is not allowed to call this server`,
  );
}

/**
 * The CORS preflight of the same routes: allowed origins only (403 `forbidden_origin` otherwise, as for the
 * request itself), POST with the credential headers.
 */
export function toolServerPreflight(config: Config): Middleware {
  const allowedOrigins = new Set(config.allowedOrigins);
  return (ctx) => {
    const origin = ctx.get('origin');
    if (!origin) throw new RequestRefusedError('forbidden_origin', 'A CORS preflight must name its Origin');
    if (!allowedOrigins.has(origin.replace(/\/+$/, ''))) throw foreignOrigin(origin);
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

/** Authentication into `ctx.state.principal`; a refusal carries the RFC 6750 challenge for the error boundary. */
export function toolServerAuthentication(config: Config, authenticator: Authenticator): Middleware {
  return async (ctx, next) => {
    try {
      ctx.state.principal = await authenticator.authenticate({
        authorization: ctx.get('authorization') || undefined,
        apiKey: ctx.get('x-api-key') || undefined,
        query: ctx.query,
      });
    } catch (error) {
      // Not a translation (the boundary renders it): only the challenge, which needs this resource's metadata.
      // RFC 6750 §3.1: a malformed request (here, two credentials) is 400 invalid_request; a credential that
      // does not verify is 401 invalid_token; no credential at all gets the bare challenge.
      if (error instanceof UnauthenticatedError) {
        const malformed = error.code === 'conflicting_credentials';
        error.headers['www-authenticate'] = error.credentialsPresented
          ? bearerChallenge(config, {
              code: malformed ? 'invalid_request' : 'invalid_token',
              description: error.message,
            })
          : bearerChallenge(config);
      }
      throw error;
    }
    await next();
  };
}
