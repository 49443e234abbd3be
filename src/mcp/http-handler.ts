/**
 * Serves `POST /api/mcp` through the SDK's `createMcpHandler`: both protocol eras (2026-07-28 per-request
 * envelopes and 2025-era `initialize`, stateless), always answered as one JSON body, never SSE.
 *
 * Koa has already authenticated the caller and parsed the body; this adapter builds the web `Request` the SDK
 * expects, passes the principal through `authInfo`, and copies the web `Response` back onto Koa.
 */
import type { Context } from 'koa';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import { createMcpServerFactory, type McpCallerInfo, type McpServerFactoryDeps } from './server-factory.ts';

export interface McpEndpoint {
  handle(
    ctx: Context,
    caller: { principal: Principal; profile: string; requestId: string },
    body: unknown,
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * We always answer with JSON, so a client that only accepts `application/json` (a plain curl) is served too;
 * the SDK insists that both media types are acceptable, so we add what it wants.
 */
function normalisedAccept(accept: string | undefined): string {
  const value = accept ?? '';
  const parts = new Set(value.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase()));
  const extra = ['application/json', 'text/event-stream'].filter((type) => !parts.has(type));
  return [value, ...extra].filter(Boolean).join(', ') || 'application/json, text/event-stream';
}

/**
 * The SDK prints a console notice whenever a JSON-only handler is built (mid-call notifications are dropped).
 * Our tools emit none, so the notice is noise on every boot and in every test; drop exactly that line.
 */
function withoutJsonModeNotice<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith("responseMode: 'json' drops")) return;
    warn(...args);
  };
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

export function createMcpEndpoint(deps: McpServerFactoryDeps & { log: Logger }): McpEndpoint {
  const factory = createMcpServerFactory(deps);
  // The modern (2026-07-28) leg: the SDK entry, JSON only.
  const modern: McpHttpHandler = withoutJsonModeNotice(() =>
    createMcpHandler(factory, {
      responseMode: 'json',
      legacy: 'reject',
      onerror: (error) => deps.log.debug({ err: error }, 'MCP exchange reported an error'),
    }),
  );

  /**
   * The 2025-era leg, stateless: a fresh server and transport per request, like the SDK's own fallback, but
   * with `enableJsonResponse` so 2025 clients also get one JSON body instead of an SSE stream.
   */
  async function legacy(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
    const server = factory({ era: 'legacy', authInfo, requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { authInfo, parsedBody });
    } finally {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    }
  }

  return {
    async handle(ctx, caller, body) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(ctx.request.headers)) {
        if (value === undefined || name === 'authorization' || name === 'x-api-key' || name === 'cookie') continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      headers.set('accept', normalisedAccept(ctx.get('accept') || undefined));
      const request = new Request(new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host}`), {
        method: 'POST',
        headers,
      });
      const info: McpCallerInfo = { principal: caller.principal, profile: caller.profile, requestId: caller.requestId };
      const authInfo: AuthInfo = {
        token: caller.principal.credentialId,
        clientId: caller.principal.clientId ?? caller.principal.credentialId,
        scopes: caller.principal.scopes,
        extra: info,
      };
      const response = (await isLegacyRequest(request, body))
        ? await legacy(request, authInfo, body)
        : await modern.fetch(request, { parsedBody: body, authInfo });
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      // The bytes as the SDK encoded them: decoding to a string only for Node to encode it again cost a tenth of
      // a tools/list answer's CPU (the listing is ~60 KB).
      const bytes = Buffer.from(await response.arrayBuffer());
      ctx.body = bytes.length > 0 ? bytes : null;
      if (bytes.length === 0 && response.status === 202) ctx.status = 202;
    },
    close: () => modern.close(),
  };
}
