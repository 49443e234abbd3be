/**
 * `{platform_url}/api/mcp`: the tool server's HTTP edge.
 *
 * Order matters: method check (GET/DELETE → 405, we never offer SSE) → Origin check (403; DNS-rebinding
 * protection for browser callers) → authenticate (401 with the resource-metadata challenge) → rate limit (one
 * unit per request, before the body is read) → body parsing (this route only) → batch check (a JSON-RPC array
 * only where its protocol version allows one; its other messages counted) → profile resolution → the MCP
 * handler. Refusals are thrown, and the error boundary answers them as JSON-RPC error objects (MCP clients parse
 * those): this router registers that form first.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import type { Authenticator } from '../../auth/authenticate.ts';
import { toolServerAuthentication, toolServerOriginCheck, toolServerPreflight } from '../middleware/authenticate.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Config } from '../../config.ts';
import type { McpEndpoint } from '../../mcp/http-handler.ts';
import type { RateLimiter, RateLimitPolicy } from '../../domain/rate-limits/rate-limiter.ts';
import { RequestRefusedError } from '../../errors.ts';
import { renderErrorsWith, renderJsonRpc } from '../middleware/error-boundary.ts';
import { toolServerRateLimit } from '../middleware/rate-limit.ts';

export interface ProfileResolver {
  /** Maps `?profile=`/`?call_code=` to a profile name for this workspace (see `mcp/profiles.ts`). */
  resolve(principal: Principal, code: string | undefined): Promise<string>;
}

export interface McpRouteDeps {
  config: Config;
  authenticator: Authenticator;
  endpoint: McpEndpoint;
  profiles: ProfileResolver;
  /** The per-token rate limit (the benchmarks' edge-only cases leave it out). */
  rateLimit?: { limiter: RateLimiter; policy: RateLimitPolicy };
}

/** The MCP body limit; a larger body is refused with 413 before it is parsed. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON-RPC batches: MCP 2025-03-26 allowed an array of messages in one POST; 2025-06-18 removed batching, and
 * the 2026-07-28 revision has none. A request without `MCP-Protocol-Version` is taken to be 2025-03-26, as the
 * transport specification says servers should assume.
 */
const VERSIONS_WITH_BATCHES = new Set(['2025-03-26']);
const VERSION_ASSUMED_WITHOUT_HEADER = '2025-03-26';

function singleQueryValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

export function mcpRoutes(deps: McpRouteDeps): Router {
  const router = new Router();

  const jsonRpcErrors = renderErrorsWith(renderJsonRpc);
  const methodNotAllowed: Middleware = (ctx) => {
    ctx.set('allow', 'POST');
    throw new RequestRefusedError(
      'method_not_allowed',
      'Method not allowed: this server answers POST only (no SSE stream is offered)',
    );
  };
  router.get('/api/mcp', jsonRpcErrors, methodNotAllowed);
  router.delete('/api/mcp', jsonRpcErrors, methodNotAllowed);

  const originCheck = toolServerOriginCheck(deps.config);
  const authenticate = toolServerAuthentication(deps.config, deps.authenticator);

  const parseBody = bodyParser({
    enableTypes: ['json'],
    jsonLimit: BODY_LIMIT_BYTES,
    encoding: 'utf-8',
    onError: (error) => {
      // The JSON parser refuses prototype-poisoning keys (`__proto__`, `constructor.prototype`): say so instead
      // of calling valid JSON invalid.
      if ((error as { status?: number }).status === 413) {
        throw new RequestRefusedError(
          'payload_too_large',
          `Request body too large: the limit is ${BODY_LIMIT_BYTES} bytes (1 MiB) per request`,
          { limitBytes: BODY_LIMIT_BYTES },
        );
      }
      if (/prototype/i.test(error.message)) {
        throw new RequestRefusedError(
          'forbidden_key',
          'Invalid request: the JSON keys __proto__ and constructor.prototype are not accepted',
        );
      }
      throw new RequestRefusedError('parse_error', 'Parse error: the body is not valid JSON');
    },
  });

  const jsonBody: Middleware = async (ctx, next) => {
    if (!ctx.is('application/json')) {
      throw new RequestRefusedError('unsupported_media_type', 'Content-Type must be application/json');
    }
    await parseBody(ctx, next);
  };

  /** Refuses an array body unless the request's protocol version allows batches, and says why. */
  const batchCheck: Middleware = async (ctx, next) => {
    const body: unknown = ctx.request.body;
    if (!Array.isArray(body)) return next();
    const version = ctx.get('mcp-protocol-version') || VERSION_ASSUMED_WITHOUT_HEADER;
    if (!VERSIONS_WITH_BATCHES.has(version)) {
      throw new RequestRefusedError(
        'batch_not_supported',
        `Invalid request: JSON-RPC batching is not supported in MCP protocol version ${version.slice(0, 40)} (it was removed in 2025-06-18); send one JSON-RPC message per request`,
      );
    }
    if (body.length === 0) throw new RequestRefusedError('empty_batch', 'Invalid request: an empty JSON-RPC batch');
    const limit = deps.rateLimit?.policy.limit;
    if (limit !== undefined && body.length > limit) {
      throw new RequestRefusedError(
        'batch_too_large',
        `Invalid request: a batch of ${body.length} messages can never pass the rate limit of ${limit} requests per minute per token (every message counts); send at most ${limit} per batch`,
        { limit },
      );
    }
    await next();
  };

  const serve: Middleware = async (ctx) => {
    const principal = ctx.state.principal as Principal;
    const code = singleQueryValue(ctx.query.profile) ?? singleQueryValue(ctx.query.call_code);
    const profile = await deps.profiles.resolve(principal, code);
    await deps.endpoint.handle(ctx, { principal, profile, requestId: ctx.state.requestId as string }, ctx.request.body);
  };

  const chain: Middleware[] = [jsonRpcErrors, originCheck, authenticate];
  const limit = deps.rateLimit;
  // The request was counted once before its body was read (malformed bodies count too); a batch's other
  // messages are counted after it, all or none: a batch that does not fit is refused whole.
  if (limit) chain.push(toolServerRateLimit(limit.limiter, limit.policy));
  chain.push(jsonBody, batchCheck);
  if (limit) {
    chain.push(
      toolServerRateLimit(limit.limiter, limit.policy, (ctx) => {
        const body: unknown = ctx.request.body;
        return Array.isArray(body) ? body.length - 1 : 0;
      }),
    );
  }
  chain.push(serve);
  router.post('/api/mcp', ...chain);

  router.options('/api/mcp', jsonRpcErrors, toolServerPreflight(deps.config));

  return router;
}
