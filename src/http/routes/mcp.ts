/**
 * `{platform_url}/api/mcp`: the tool server's HTTP edge.
 *
 * Order matters: method check (GET/DELETE → 405, we never offer SSE) → Origin check (403; DNS-rebinding
 * protection for browser callers) → authenticate (401 with the resource-metadata challenge) → rate limit →
 * body parsing (this route only) → profile resolution → the MCP handler. Errors here are answered as JSON-RPC
 * error objects, since MCP clients parse those.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import type { Authenticator } from '../../auth/authenticate.ts';
import { toolServerAuthentication, toolServerOriginCheck } from '../middleware/authenticate.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Config } from '../../config.ts';
import type { McpEndpoint } from '../../mcp/http-handler.ts';
import { jsonRpcError, JSON_RPC_SERVER_ERROR } from '../json-rpc.ts';

export interface ProfileResolver {
  /** Maps `?profile=`/`?call_code=` to a profile name for this workspace (see `mcp/profiles.ts`). */
  resolve(principal: Principal, code: string | undefined): Promise<string>;
}

export interface McpRouteDeps {
  config: Config;
  authenticator: Authenticator;
  endpoint: McpEndpoint;
  profiles: ProfileResolver;
  /** Runs after authentication (the per-token rate limit); may answer the request itself. */
  afterAuthenticate?: Middleware;
}

const SERVER_ERROR = JSON_RPC_SERVER_ERROR;

function singleQueryValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

export function mcpRoutes(deps: McpRouteDeps): Router {
  const router = new Router();
  const allowedOrigins = new Set(deps.config.allowedOrigins);

  const methodNotAllowed: Middleware = (ctx) => {
    ctx.set('allow', 'POST');
    jsonRpcError(
      ctx,
      405,
      SERVER_ERROR,
      'Method not allowed: this server answers POST only (no SSE stream is offered)',
    );
  };
  router.get('/api/mcp', methodNotAllowed);
  router.delete('/api/mcp', methodNotAllowed);

  const originCheck = toolServerOriginCheck(deps.config);
  const authenticate = toolServerAuthentication(deps.config, deps.authenticator);

  const parseBody = bodyParser({
    enableTypes: ['json'],
    jsonLimit: '1mb',
    encoding: 'utf-8',
    onError: (error, ctx) => {
      // The JSON parser refuses prototype-poisoning keys (`__proto__`, `constructor.prototype`): say so
      // instead of calling valid JSON invalid.
      ctx.throw(400, /prototype/i.test(error.message) ? 'forbidden_key' : 'parse_error');
    },
  });

  const jsonBody: Middleware = async (ctx, next) => {
    if (!ctx.is('application/json')) {
      jsonRpcError(ctx, 415, -32600, 'Content-Type must be application/json');
      return;
    }
    try {
      await parseBody(ctx, async () => undefined);
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) {
        jsonRpcError(ctx, 413, -32600, 'Request body too large (limit 1 MB)');
        return;
      }
      if ((error as { message?: string }).message === 'forbidden_key') {
        jsonRpcError(
          ctx,
          400,
          -32600,
          'Invalid request: the JSON keys __proto__ and constructor.prototype are not accepted',
        );
        return;
      }
      jsonRpcError(ctx, 400, -32700, 'Parse error: the body is not valid JSON');
      return;
    }
    await next();
  };

  const serve: Middleware = async (ctx) => {
    const principal = ctx.state.principal as Principal;
    const code = singleQueryValue(ctx.query.profile) ?? singleQueryValue(ctx.query.call_code);
    const profile = await deps.profiles.resolve(principal, code);
    await deps.endpoint.handle(ctx, { principal, profile, requestId: ctx.state.requestId as string }, ctx.request.body);
  };

  const chain: Middleware[] = [originCheck, authenticate];
  if (deps.afterAuthenticate) chain.push(deps.afterAuthenticate);
  chain.push(jsonBody, serve);
  router.post('/api/mcp', ...chain);

  router.options('/api/mcp', (ctx) => {
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
  });

  return router;
}
