/**
 * The `/ask` request, NLWeb-style: `{ "query": "…" | { "text": "…" }, "prev"?: [...], "site"?: "…",
 * "conversationId"?: "…" }`. `prev` carries earlier turns, each a question string or `{ query, answer? }`;
 * only the questions are used (to resolve follow-ups). Unknown fields are ignored, so richer NLWeb or UCP
 * bodies that carry a `query` work too.
 *
 * Bad input is a 400 with a stable `error` code: `query_missing`, `query_empty`, `query_too_long` or
 * `invalid_request` (wrong types, too many turns), plus a readable description.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../errors.ts';

export const MAX_QUERY_CHARS = 500;
export const MAX_PREVIOUS_TURNS = 20;
/** A conversation id we echo: opaque, URL-safe, short. Anything else is replaced by a fresh id. */
const CONVERSATION_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export type AskErrorCode = 'query_missing' | 'query_empty' | 'query_too_long' | 'invalid_request';

/** A 400 whose code is the stable machine-readable reason, rendered by the HTTP edge as `{ error: reason, … }`. */
export class AskRequestError extends AppError {
  constructor(reason: AskErrorCode, message: string, details?: Record<string, unknown>) {
    super(reason, message, details);
  }

  get reason(): AskErrorCode {
    return this.code as AskErrorCode;
  }
}

export interface AskRequest {
  /** The question, trimmed, 1–500 characters. */
  query: string;
  /** Earlier questions of the conversation, oldest first (trimmed, empty ones dropped). */
  previous: string[];
  /** The NLWeb `site` the caller named, if any (informational: the host decides the site). */
  site: string | null;
  /** The caller's conversation id when well-formed; null means "mint one". */
  conversationId: string | null;
}

const Text = z.string({ error: 'must be a string' });
const Turn = z.union([Text.max(5000), z.object({ query: Text.max(5000), answer: Text.max(20_000).optional() })], {
  error: 'must be a question string or an object { query, answer? }',
});

const AskBody = z.object({
  query: z.union([Text, z.object({ text: Text })], { error: 'must be a string or an object { text }' }).optional(),
  prev: z
    .array(Turn, { error: 'must be an array' })
    .max(MAX_PREVIOUS_TURNS, `at most ${MAX_PREVIOUS_TURNS} earlier turns`)
    .optional(),
  site: Text.max(300).optional(),
  conversationId: z.unknown().optional(),
});

/** Parses and validates an `/ask` body (already JSON-decoded). Throws `AskRequestError`. */
export function parseAskRequest(body: unknown): AskRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AskRequestError('invalid_request', 'The request body must be a JSON object with a "query"');
  }
  const parsed = AskBody.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      field: issue.path.map(String).join('.') || 'body',
      message: issue.message,
    }));
    throw new AskRequestError(
      'invalid_request',
      `Invalid request: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
      { issues },
    );
  }
  const { query, prev, site, conversationId } = parsed.data;
  if (query === undefined) {
    throw new AskRequestError('query_missing', 'Send the question as "query": a string or { "text": string }');
  }
  const text = (typeof query === 'string' ? query : query.text).trim();
  if (text === '') throw new AskRequestError('query_empty', 'The question is empty');
  if (text.length > MAX_QUERY_CHARS) {
    throw new AskRequestError(
      'query_too_long',
      `The question is ${text.length} characters long; at most ${MAX_QUERY_CHARS} are accepted`,
    );
  }
  return {
    query: text,
    previous: (prev ?? [])
      .map((turn) => (typeof turn === 'string' ? turn : turn.query).trim().slice(0, MAX_QUERY_CHARS))
      .filter(Boolean),
    site: site?.trim() || null,
    conversationId: typeof conversationId === 'string' && CONVERSATION_ID.test(conversationId) ? conversationId : null,
  };
}

export function newConversationId(): string {
  return randomUUID();
}
