/**
 * The real MCP endpoint (`createMcpEndpoint`) in a minimal Koa app, for tests of what it answers without a
 * database: listings, protocol errors. `x-test-profile` picks the caller's profile (default
 * `external_default`); the caller is a viewer of a workspace that exists nowhere. There is no database and
 * no services unless a test hands in stand-ins (`orm`, `services`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Principal } from '../../src/auth/principal.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { createMcpEndpoint } from '../../src/mcp/http-handler.ts';
import { CATALOGUE, type CompiledProfile } from '../../src/mcp/registry.ts';
import { testFetch } from './http.ts';

const ENDPOINT_PRINCIPAL: Principal = {
  via: 'api_key',
  workspaceId: 'ws_endpoint_only',
  workspaceName: 'Endpoint Only',
  role: 'viewer',
  userId: null,
  credentialId: 'key:endpoint',
  clientId: null,
  internal: false,
  scopes: [],
};

export interface ServedEndpoint {
  url: string;
  /** How many MCP servers the SDK has built so far (each build looks its profile up once). */
  builds(): number;
  close(): Promise<void>;
}

export async function serveMcpEndpoint(
  options: {
    log?: Logger;
    /** Stand-ins for the database and the services, for a test that wants a failure of its own making. */
    orm?: unknown;
    services?: unknown;
  } = {},
): Promise<ServedEndpoint> {
  let lookups = 0;
  const catalogue = {
    get: (name: string) => {
      lookups += 1;
      return CATALOGUE.get(name);
    },
    [Symbol.iterator]: () => CATALOGUE[Symbol.iterator](),
  } as unknown as ReadonlyMap<string, CompiledProfile>;
  const endpoint = createMcpEndpoint({
    orm: options.orm as never,
    services: options.services as never,
    log: options.log ?? createLogger({ level: 'silent', name: 'test' }),
    catalogue,
  });
  const app = new Koa();
  app.use(bodyParser());
  app.use(async (ctx) => {
    const profile = ctx.get('x-test-profile') || 'external_default';
    await endpoint.handle(ctx, { principal: ENDPOINT_PRINCIPAL, profile, requestId: 'test' }, ctx.request.body);
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`,
    builds: () => lookups,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await endpoint.close();
    },
  };
}

export const MODERN_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
};
/** The per-request envelope a 2026-07-28 client sends in `params._meta`. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const LEGACY_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
};

/** A raw JSON-RPC POST; the answer's headers without the transport's own (date, connection). */
export async function postJsonRpc(url: string, headers: Record<string, string>, body: unknown) {
  const response = await testFetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const answerHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) answerHeaders[name] = value;
  });
  return { status: response.status, headers: answerHeaders, body: await response.text() };
}
