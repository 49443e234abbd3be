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
import { LRUCache } from 'lru-cache';
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

/**
 * Methods whose answer is fixed at boot for a profile: the listings are compiled once, so the SDK's answer to
 * the same request (same headers that reach it, same params) differs only in the JSON-RPC id. Serialising a
 * ~60 KB tools listing through the SDK's web `Response` cost ~3.5 ms of CPU per `tools/list`; a remembered
 * answer costs a string splice. `resources/list` is not here: it reads the workspace.
 */
const FIXED_ANSWER_METHODS = new Set(['tools/list', 'prompts/list', 'resources/templates/list']);
/** Request headers that never change an answer (per-request noise that would only split the memo). */
const HEADERS_NOT_IN_MEMO_KEY = new Set(['x-request-id', 'content-length', 'connection', 'user-agent', 'host']);

/**
 * An SDK answer kept for replay: its headers and its JSON bytes split around the JSON-RPC id. Kept encoded:
 * a replay copies bytes instead of encoding a ~60 KB string again.
 */
interface FixedAnswer {
  status: number;
  headers: [string, string][];
  beforeId: Buffer;
  afterId: Buffer;
}

/**
 * The answer as the SDK wrote it, ready to take another id, or null when it is not a plain JSON-RPC result
 * to this request. Rebuilt key by key with `JSON.stringify`, as the SDK wrote it, and kept only when the
 * rebuild equals the SDK's bytes, so a replay is what the SDK would send (mcp-fixed-answers.test.ts also
 * compares replays with a fresh endpoint's answers).
 */
function fixedAnswerFrom(response: Response, bytes: Buffer, id: unknown): FixedAnswer | null {
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const message = parsed as Record<string, unknown>;
  if (!('result' in message) || 'error' in message || message.id !== id) return null;
  const entries = Object.entries(message);
  const idAt = entries.findIndex(([key]) => key === 'id');
  const encode = ([key, value]: [string, unknown]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  const beforeId = `{${entries
    .slice(0, idAt)
    .map((entry) => `${encode(entry)},`)
    .join('')}"id":`;
  const afterId = `${entries
    .slice(idAt + 1)
    .map((entry) => `,${encode(entry)}`)
    .join('')}}`;
  // Only an answer the rebuild reproduces byte for byte is kept (a serialiser that writes JSON differently
  // simply goes unremembered).
  const rebuilt = Buffer.from(`${beforeId}${JSON.stringify(id)}${afterId}`);
  if (!rebuilt.equals(bytes)) return null;
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers.push([name, value]);
  });
  return { status: response.status, headers, beforeId: Buffer.from(beforeId), afterId: Buffer.from(afterId) };
}

/** The per-request envelope's claim (SEP-2663): a message whose `params._meta` names it is a 2026-era message. */
const ENVELOPE_CLAIM = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether the SDK certainly routes this body to the modern path, decided without classifying it again.
 * `isLegacyRequest` classifies the whole request through the SDK's zod schemas (~25 µs, and `modern.fetch`
 * then classifies it once more). By the SDK's documented rules (v2.4, `isLegacyRequest`), a single message
 * whose params carry the envelope claim is modern or a modern-path refusal — never legacy — unless it is an
 * `initialize` (legacy unless the claim is a valid modern one) or a posted response (`result` or `error`).
 * Those, batches and claim-less messages are left to `isLegacyRequest`.
 */
export function carriesEnvelopeClaim(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  if (typeof message.method !== 'string' || message.method === 'initialize') return false;
  if ('result' in message || 'error' in message) return false;
  const params = message.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const meta = (params as Record<string, unknown>)._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) && ENVELOPE_CLAIM in meta;
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

  // Bounded: a key holds the request's params, which a client may vary at will.
  const fixedAnswers = new LRUCache<string, FixedAnswer>({ max: 500 });

  /** The memo key of a request whose answer is fixed for its profile, or null for any other request. */
  function fixedAnswerKey(profile: string, headers: Headers, body: unknown): string | null {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const message = body as Record<string, unknown>;
    if (typeof message.method !== 'string' || !FIXED_ANSWER_METHODS.has(message.method)) return null;
    if (typeof message.id !== 'string' && typeof message.id !== 'number') return null;
    let key = `${profile}\n`;
    headers.forEach((value, name) => {
      if (!HEADERS_NOT_IN_MEMO_KEY.has(name)) key += `${name}:${value}\n`;
    });
    return key + JSON.stringify({ ...message, id: null });
  }

  return {
    async handle(ctx, caller, body) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(ctx.request.headers)) {
        if (value === undefined || name === 'authorization' || name === 'x-api-key' || name === 'cookie') continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      headers.set('accept', normalisedAccept(ctx.get('accept') || undefined));
      const memoKey = fixedAnswerKey(caller.profile, headers, body);
      const remembered = memoKey === null ? undefined : fixedAnswers.get(memoKey);
      if (remembered) {
        ctx.status = remembered.status;
        for (const [name, value] of remembered.headers) ctx.set(name, value);
        const id = Buffer.from(JSON.stringify((body as { id: string | number }).id));
        ctx.body = Buffer.concat([remembered.beforeId, id, remembered.afterId]);
        return;
      }
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
      const response =
        !carriesEnvelopeClaim(body) && (await isLegacyRequest(request, body))
          ? await legacy(request, authInfo, body)
          : await modern.fetch(request, { parsedBody: body, authInfo });
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      // The bytes as the SDK encoded them: decoding to a string only for Node to encode it again cost a tenth of
      // a tools/list answer's CPU (the listing is ~60 KB).
      const bytes = Buffer.from(await response.arrayBuffer());
      if (memoKey !== null) {
        const answer = fixedAnswerFrom(response, bytes, (body as { id: unknown }).id);
        if (answer) fixedAnswers.set(memoKey, answer);
      }
      ctx.body = bytes.length > 0 ? bytes : null;
      if (bytes.length === 0 && response.status === 202) ctx.status = 202;
    },
    close: () => modern.close(),
  };
}
