/**
 * The tool server's front door, shared by `/api/mcp` and the benchmarks that measure it: the Origin check
 * (DNS-rebinding protection for browser callers; non-browser clients send no Origin) and authentication into
 * `ctx.state.principal`, answering failures as JSON-RPC errors with the RFC 6750/9728 challenge.
 */
import type { Middleware } from 'koa';
import { AuthenticationFailure, type Authenticator } from '../../auth/authenticate.ts';
import type { Config } from '../../config.ts';
import { jsonRpcError, JSON_RPC_SERVER_ERROR } from '../json-rpc.ts';
import { bearerChallenge } from '../routes/protected-resource.ts';
import { jsonRpcRefusal, type Refusal } from './refusal.ts';

export function toolServerOriginCheck(config: Config): Middleware {
  const allowedOrigins = new Set(config.allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin && !allowedOrigins.has(origin.replace(/\/+$/, ''))) {
      jsonRpcError(
        ctx,
        403,
        JSON_RPC_SERVER_ERROR,
        `Origin ${origin.slice(0, 200)} is not allowed to call this server`,
        {
          code: 'forbidden_origin',
        },
      );
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
      ctx.set(
        'www-authenticate',
        error.credentialsPresented
          ? bearerChallenge(config, { code: 'invalid_token', description: error.message })
          : bearerChallenge(config),
      );
      refuse(ctx, 401, error.message, { code: error.reason });
      return;
    }
    await next();
  };
}
