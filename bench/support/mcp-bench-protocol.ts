/** The IPC messages between `bench/mcp-surface.ts` and its server process `bench/servers/mcp-server.ts`. */

/** Sent once by the server when all three listeners are up. */
export interface McpBenchReady {
  type: 'ready';
  /** Port of the bare Koa JSON route (the baseline). */
  bare: number;
  /** Port of a bare Koa route answering the `external_default` tool listing with the request's id. */
  bareListing: number;
  /** Port of the same route behind request id, error boundary, Origin check, API-key auth and rate limit. */
  guarded: number;
  /** Port of the real application. */
  app: number;
  /** The platform's public MCP URL (its host name selects the platform site; connect to 127.0.0.1:`app`). */
  mcpUrl: string;
  workspaceName: string;
  /** API key secrets of the seeded workspace (rotated per request, so the limiter works on many rows). */
  keys: string[];
}

export type McpBenchCommand =
  | { type: 'heap'; id: number }
  | { type: 'cpu'; id: number }
  | { type: 'profile:start'; id: number }
  | { type: 'profile:stop'; id: number; path: string };

export type McpBenchReply =
  | { type: 'heap'; id: number; memory: NodeJS.MemoryUsage }
  | { type: 'cpu'; id: number; usage: NodeJS.CpuUsage }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; message: string };
