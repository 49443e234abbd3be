/**
 * The MCP edge of the error model for tool calls, and the shape of every tool result. (Protocol-level errors —
 * unknown tool, task methods, resources — are the other half of the MCP edge: `safeProtocolError`.)
 *
 * DO NOT return raw exception text from here: any error that is not an `AppError` becomes `internal_error`
 * with a reference id (the full error is logged under that id). Agents read `structuredContent.error.code`,
 * which is stable, and a message that is safe to show.
 */
import type { QuoteView } from '../domain/credits/quotes.service.ts';
import { randomUUID } from 'node:crypto';
import { AppError, type ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ToolOutput } from './define-tool.ts';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export function toToolResult(output: ToolOutput): ToolResult {
  return {
    content: [{ type: 'text', text: output.text ?? JSON.stringify(output.structured) }],
    structuredContent: output.structured,
  };
}

/** Where error results carry their machine-readable error (see `toolError`). */
/**
 * The text of a quote answer (quote, then commit): what it costs and covers, whether the balance suffices,
 * and exactly how to commit. `what` names the call, e.g. "This render".
 */
export function quoteText(what: string, quote: QuoteView): string {
  const lines = quote.covers.map((line) => `${line.step} ${line.credits}`).join(', ');
  return (
    `${what} costs ${quote.credits} credits (${lines}); the workspace has ${quote.available}` +
    `${quote.sufficient ? '' : ' — not enough'}. Nothing was spent. Ask the user to confirm, then repeat the same ` +
    `call with quoteId "${quote.id}" (valid until ${quote.expiresAt}).`
  );
}

export const ERROR_META_KEY = 'io.campaign-platform/error';

/**
 * An error result with a stable code; `details` must only hold facts safe to show.
 *
 * The code leads the text (`not_found: Campaign cmp_… was not found`), which every client shows the model,
 * and the full error sits in `_meta["io.campaign-platform/error"]`. Error results carry no
 * `structuredContent`: clients validate it against the tool's output schema even on errors (the v1 SDK
 * client does), and an error object would fail that.
 */
export function toolError(code: ErrorCode, message: string, details?: Record<string, unknown>): ToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    _meta: { [ERROR_META_KEY]: { code, message, ...(details ? { details } : {}) } },
  };
}

export function toToolError(error: unknown, log: Logger, context: Record<string, unknown>): ToolResult {
  if (error instanceof AppError) return toolError(error.code, error.message, error.details);
  const reference = randomUUID();
  log.error({ err: error, reference, ...context }, 'tool call failed with an internal error');
  return toolError('internal_error', `Something went wrong on our side. Reference: ${reference}`, { reference });
}
