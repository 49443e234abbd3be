/**
 * Real MCP clients over HTTP: the SDK v2 client (`@modelcontextprotocol/client`, which negotiates the
 * 2026-07-28 era when asked) and the v1 client (`@modelcontextprotocol/sdk`, a 2025-era client).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testFetch } from './http.ts';

export type Era = 'modern' | 'legacy';

export interface ConnectedClient {
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  listTools(): Promise<
    { name: string; annotations?: Record<string, unknown>; inputSchema: unknown; outputSchema?: unknown }[]
  >;
  listResources(): Promise<{ uri: string; name: string; mimeType?: string }[]>;
  listResourceTemplates(): Promise<{ uriTemplate: string; name: string }[]>;
  readResource(uri: string): Promise<{ contents: { uri: string; mimeType?: string; text?: string }[] }>;
  listPrompts(): Promise<{ name: string; arguments?: { name: string; required?: boolean }[] }[]>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
  ): Promise<{ messages: { role: string; content: { type: string; text?: string } }[] }>;
  /** What the server advertised: the 2025 `initialize` result's capabilities, or 2026 `server/discover`'s. */
  serverCapabilities(): { extensions?: Record<string, unknown>; [key: string]: unknown } | undefined;
  era: Era;
  close(): Promise<void>;
}

/** The methods both SDK clients share for resources and prompts. */
interface ResourcePromptClient {
  listResources(): Promise<{ resources: unknown[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(params: { uri: string }): Promise<unknown>;
  listPrompts(): Promise<{ prompts: unknown[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
}

function resourcesAndPrompts(client: ResourcePromptClient) {
  return {
    listResources: async () => (await client.listResources()).resources as never,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates as never,
    readResource: async (uri: string) => (await client.readResource({ uri })) as never,
    listPrompts: async () => (await client.listPrompts()).prompts as never,
    getPrompt: async (name: string, args?: Record<string, string>) =>
      (await client.getPrompt({ name, arguments: args })) as never,
  };
}

export interface ToolCallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
}

export async function connectV2(
  url: string,
  headers: Record<string, string>,
  era: Era = 'modern',
): Promise<ConnectedClient> {
  const client = new ClientV2(
    { name: 'test-client-v2', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new TransportV2(new URL(url), { fetch: testFetch, requestInit: { headers } }));
  return {
    era: client.getProtocolEra() as Era,
    serverCapabilities: () => client.getServerCapabilities() as never,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
    listTools: async () => (await client.listTools()).tools as never,
    ...resourcesAndPrompts(client as unknown as ResourcePromptClient),
    close: () => client.close(),
  };
}

export async function connectV1(url: string, headers: Record<string, string>): Promise<ConnectedClient> {
  const client = new ClientV1({ name: 'test-client-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { fetch: testFetch, requestInit: { headers } }));
  return {
    era: 'legacy',
    serverCapabilities: () => client.getServerCapabilities() as never,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
    listTools: async () => (await client.listTools()).tools as never,
    ...resourcesAndPrompts(client as unknown as ResourcePromptClient),
    close: () => client.close(),
  };
}

/**
 * One 2026-07-28 request over plain HTTP, for what the v2 client cannot send yet: a `tools/call` that
 * negotiates the tasks extension (the client refuses the `resultType: "task"` answer). It sends exactly what
 * SEP-2663 and SEP-2243 define — the per-request `_meta` envelope naming the extension, and the standard
 * `Mcp-Method` / `Mcp-Name` headers.
 */
export async function modernRpc(
  url: string,
  apiKey: string,
  method: string,
  name: string,
  params: Record<string, unknown>,
  withTasks = true,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const response = await testFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
      'x-api-key': apiKey,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': withTasks
            ? { extensions: { 'io.modelcontextprotocol/tasks': {} } }
            : {},
        },
      },
    }),
  });
  const text = await response.text();
  return JSON.parse(
    text.startsWith('event:') || text.startsWith('data:') ? text.split('data: ')[1]!.split('\n')[0]! : text,
  ) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}
