/** The IPC messages between `bench/mcp-surface.ts` and its server process `bench/servers/mcp-server.ts`. */
import type { DbWork } from './db-work-counter.ts';
import type { GcSummary } from './gc-profile.ts';

/** Sent once by the server when all its listeners are up. */
export interface McpBenchReady {
  type: 'ready';
  /** Port of the bare Koa JSON route (a reference). */
  bare: number;
  /** Port of a bare Koa route answering the `external_default` tool listing with the request's id. */
  bareListing: number;
  /** Port of the bare route behind request id, error boundary, Origin check, API-key auth and rate limit. */
  guarded: number;
  /** Port of the "same work" route: the edge, then the campaign list answered as the tool's JSON-RPC result. */
  sameWork: number;
  /** Port of the SDK's documented way (createMcpHandler, an McpServer per request, MikroORM entities). */
  peer: number;
  /** Port of the real application. */
  app: number;
  /** The platform's public MCP URL (its host name selects the platform site; connect to 127.0.0.1:`app`). */
  mcpUrl: string;
  workspaceName: string;
  /** API key secrets of the seeded workspace (rotated per request, so the limiter works on many rows). */
  keys: string[];
  /** Ids of the first page of the seeded workspace's campaigns, newest first, read with plain SQL. */
  expectedCampaignIds: string[];
  /** The seeded campaign whose generation is in progress, and its job. */
  generation: { campaignId: string; jobId: string };
}

export type McpBenchCommand =
  | { type: 'heap'; id: number }
  | { type: 'cpu'; id: number }
  | { type: 'dbWork'; id: number }
  | { type: 'gc:start'; id: number }
  | { type: 'gc:stop'; id: number }
  | { type: 'heap-profile:start'; id: number; youngToo: boolean }
  | { type: 'heap-profile:stop'; id: number; path: string }
  | { type: 'profile:start'; id: number }
  | { type: 'profile:stop'; id: number; path: string };

export type McpBenchReply =
  | { type: 'heap'; id: number; memory: NodeJS.MemoryUsage }
  | { type: 'cpu'; id: number; usage: NodeJS.CpuUsage }
  | { type: 'dbWork'; id: number; listeners: Record<string, DbWork>; background: DbWork }
  | { type: 'gc'; id: number; summary: GcSummary }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; message: string };
