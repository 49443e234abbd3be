import type { Context } from 'koa';

/** A JSON-RPC error object for failures that happen before the MCP layer sees the message. */
export function jsonRpcError(
  ctx: Context,
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = { jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null };
}
