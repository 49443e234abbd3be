/**
 * The brand host's concierge: `POST /ask` (NLWeb-style JSON in, `{ answer, answered, sources, suggestions,
 * conversationId }` out, or markdown with `Accept: text/markdown`) and `POST /a2a` (the same concierge as an
 * A2A JSON-RPC agent). `POST /ask` with a form body (`application/x-www-form-urlencoded`, what the ask box on
 * every page sends without JavaScript) is a person's question: the answer, and every refusal, is an HTML page
 * of the site. Which one is decided by the request body's Content-Type, so the agents' JSON API is unchanged. Anonymous and cross-origin: no cookie is set or read here, an `Authorization` header is
 * ignored, every answer allows any origin, and preflights are answered.
 *
 * The brand host resolves the publication and the visitor before these routes run (`ctx.state.brandSite`,
 * `ctx.state.visitor`). Each question is rate limited per visitor address and brand through the shared
 * limiter, answered from published content only, and recorded as an anonymous `concierge_question` event
 * without waiting, in small batches (a lost event never fails an answer).
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Logger } from '../../logger.ts';
import type { SiteEventSink } from '../../domain/analytics/site-events.ts';
import { createConciergeA2aBinding, type ConciergeCall } from '../../domain/concierge/a2a-binding.ts';
import { MAX_PREVIOUS_TURNS, parseAskRequest } from '../../domain/concierge/ask-request.ts';
import {
  answerMarkdown,
  askResponseBody,
  ConciergeDisabledError,
  conciergeQuestionEvent,
  isConciergeEnabled,
  type ConciergeService,
} from '../../domain/concierge/concierge.service.ts';
import { rateLimitHeaders, type RateLimiter, type RateLimitPolicy } from '../../domain/rate-limits/rate-limiter.ts';
import { BRAND_PATHS, type PublishedSite } from '../../public/brand-site/site-model.ts';
import { renderAskPage, type AskProblem } from '../../public/brand-site/render/index.ts';
import type { AskContext } from '../../public/brand-site/render/content.ts';
import { type AppError, RateLimitedError, RequestRefusedError } from '../../errors.ts';
import { renderErrorsWith, renderJsonRpc, type ErrorRenderer } from '../middleware/error-boundary.ts';

/** The anonymous visitor the brand host identified (first-party session id, client address). */
export interface ConciergeVisitor {
  /** '' when the visitor has no session cookie (agents usually do not). */
  sessionId: string;
  address: string;
}

export interface ConciergeRouteDeps {
  concierge: ConciergeService;
  limiter: Pick<RateLimiter, 'consume'>;
  /**
   * Where question events go. Recording is fire-and-forget (an answer never waits for it, a failed write never
   * fails an answer), so the brand host passes its batching sink, which writes many questions per statement.
   */
  events: SiteEventSink;
  log: Logger;
  /** Questions per minute per visitor address and brand. */
  perVisitorPerMinute: number;
}

/** Request bodies above this are refused: a question is at most 500 characters, earlier turns fit with room. */
export const CONCIERGE_BODY_LIMIT = '64kb';

/** The publication and visitor the brand host put on the context; a missing one is a wiring bug. */
export function brandRequestOf(ctx: Koa.Context): { site: PublishedSite; visitor: ConciergeVisitor } {
  const site = ctx.state.brandSite as PublishedSite | undefined;
  const visitor = ctx.state.visitor as ConciergeVisitor | undefined;
  if (!site || !visitor) throw new Error('concierge routes need ctx.state.brandSite and ctx.state.visitor');
  return { site, visitor };
}

function allowAnyOrigin(ctx: Koa.Context) {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', 'Retry-After, RateLimit, RateLimit-Policy');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** Preflight and method checks shared by both endpoints; true when the request was answered here. */
function answeredByPreamble(ctx: Koa.Context): boolean {
  allowAnyOrigin(ctx);
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    // Authorization is allowed so browser clients that always send one are not blocked; it is ignored.
    ctx.set(
      'Access-Control-Allow-Headers',
      'Content-Type, Accept, Authorization, A2A-Version, A2A-Extensions, X-A2A-Extensions',
    );
    ctx.set('Access-Control-Max-Age', '86400');
    return true;
  }
  if (ctx.method !== 'POST') {
    ctx.set('Allow', 'POST, OPTIONS');
    throw new RequestRefusedError(
      'method_not_allowed',
      `${ctx.method} is not allowed here; send the question with POST`,
    );
  }
  return false;
}

/**
 * What the body parsers throw when a body cannot be read: 413 over the limit, 400 for anything else the client
 * sent wrong (the error boundary renders both); a failure of ours stays what it is.
 */
function unreadableBody(error: Error & { status?: number }): never {
  if (error.status === 413) {
    throw new RequestRefusedError('body_too_large', `The request body is larger than ${CONCIERGE_BODY_LIMIT}`);
  }
  if (error.status && error.status >= 400 && error.status < 500) {
    throw new RequestRefusedError('invalid_json', 'The request body is not valid JSON');
  }
  throw error;
}

/** What the visitor is told when a form question is refused, from the refusal's code. */
function askProblem(error: AppError): AskProblem {
  switch (error.code) {
    case 'query_missing':
    case 'query_empty':
      return { kind: 'empty' };
    case 'rate_limited':
      return { kind: 'rate_limited', retryAfterSeconds: Number(error.details?.retryAfterSeconds ?? 60) };
    case 'concierge_disabled':
      return { kind: 'disabled' };
    default:
      return { kind: 'invalid', message: error.message };
  }
}

/**
 * Refusals of a form question as the site's page (the status stays the refusal's): a person who pressed Ask
 * with an empty box, or too often, reads what to do next, with the box to try again.
 */
const renderAskPageError: ErrorRenderer = (ctx, error, status) => {
  const site = ctx.state.brandSite as PublishedSite;
  const context = (ctx.state.askContext as AskContext | undefined) ?? { previous: [], conversationId: null };
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = renderAskPage(site, { question: '', reply: null, problem: askProblem(error), context });
};

/** A form field's values as strings (a repeated field is an array; anything nested is not ours and is dropped). */
function formValues(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((item): item is string => typeof item === 'string');
}

export function conciergeRoutes(deps: ConciergeRouteDeps): Router {
  const router = new Router();
  const policy: RateLimitPolicy = { name: 'concierge', limit: deps.perVisitorPerMinute, windowSeconds: 60 };
  const a2a = createConciergeA2aBinding({ concierge: deps.concierge, log: deps.log });
  const parseAsk = bodyParser({
    enableTypes: ['json', 'text'],
    jsonLimit: CONCIERGE_BODY_LIMIT,
    textLimit: CONCIERGE_BODY_LIMIT,
    encoding: 'utf-8',
    onError: unreadableBody,
  });
  const parseForm = bodyParser({
    enableTypes: ['form'],
    formLimit: CONCIERGE_BODY_LIMIT,
    encoding: 'utf-8',
    onError: (error: Error & { status?: number }) => {
      if (error.status === 413) unreadableBody(error);
      if (error.status && error.status >= 400 && error.status < 500) {
        throw new RequestRefusedError('bad_request', 'The form could not be read');
      }
      throw error;
    },
  });
  // JSON-RPC bodies are read as text (any other type is left unread and refused by the binding).
  const parseA2a = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json'] },
    textLimit: CONCIERGE_BODY_LIMIT,
    encoding: 'utf-8',
    onError: unreadableBody,
  });

  function recordQuestion(site: PublishedSite, visitor: ConciergeVisitor, question: string, answered: boolean) {
    const event = conciergeQuestionEvent({
      site,
      sessionId: visitor.sessionId,
      query: question,
      answered,
      at: new Date(),
    });
    deps.events.record([event]).catch((error: unknown) => {
      deps.log.warn({ err: error, workspaceId: site.workspaceId }, 'concierge question not recorded');
    });
  }

  /** Availability and the per-visitor limit: a refusal is thrown, for the error boundary to answer. */
  async function admit(ctx: Koa.Context, site: PublishedSite, visitor: ConciergeVisitor) {
    if (!isConciergeEnabled(site)) throw new ConciergeDisabledError();
    const decision = await deps.limiter.consume(policy, `${visitor.address}|${site.workspaceId}`);
    for (const [name, value] of Object.entries(rateLimitHeaders(policy, decision))) ctx.set(name, value);
    if (decision.allowed) return;
    ctx.set('Retry-After', String(decision.retryAfterSeconds));
    throw new RateLimitedError(
      `Too many questions: at most ${policy.limit} per minute. Retry in ${decision.retryAfterSeconds} second(s).`,
      decision.retryAfterSeconds,
    );
  }

  /**
   * The ask box's form, posted by a browser: the same concierge, limit, validation and question event as the
   * JSON API, answered as a page. There is no CSRF token, on purpose: the form is anonymous and asks a
   * question that changes nothing (the one write is the anonymous analytics event any agent's JSON question
   * makes too), no credential is read, and `/ask` answers any origin already (CORS `*`).
   */
  async function askFromForm(ctx: Koa.Context, site: PublishedSite, visitor: ConciergeVisitor) {
    ctx.state.renderError = renderAskPageError;
    await admit(ctx, site, visitor);
    await parseForm(ctx, async () => undefined);
    const fields = (ctx.request.body ?? {}) as Record<string, unknown>;
    const [query = ''] = formValues(fields.query);
    const previous = formValues(fields.prev).slice(-MAX_PREVIOUS_TURNS);
    const [conversationId] = formValues(fields.conversationId);
    ctx.state.askContext = { previous, conversationId: conversationId ?? null } satisfies AskContext;
    // The JSON body's rules, so a question is valid or not the same way whichever way it is asked.
    const request = parseAskRequest({ query, prev: previous, ...(conversationId ? { conversationId } : {}) });
    const reply = await deps.concierge.ask(site, request);
    recordQuestion(site, visitor, request.query, reply.answered);
    ctx.status = 200;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderAskPage(site, {
      question: request.query,
      reply,
      problem: null,
      // The follow-up form carries this question on, so "and to Norway?" is read as part of the conversation.
      context: {
        previous: [...request.previous, request.query].slice(-MAX_PREVIOUS_TURNS),
        conversationId: reply.conversationId,
      },
    });
  }

  router.all(BRAND_PATHS.ask, async (ctx) => {
    ctx.vary('Accept');
    if (answeredByPreamble(ctx)) return;
    const { site, visitor } = brandRequestOf(ctx);
    if (ctx.is('urlencoded')) return askFromForm(ctx, site, visitor);
    await admit(ctx, site, visitor);

    if (ctx.get('Content-Type') && !ctx.is('json', 'text')) {
      throw new RequestRefusedError('unsupported_media_type', 'Send the question as application/json');
    }
    await parseAsk(ctx, async () => undefined);
    let body = ctx.request.body;
    if (typeof body === 'string') {
      // text/plain (a CORS "simple" request that needs no preflight) carrying JSON.
      try {
        body = JSON.parse(body);
      } catch {
        throw new RequestRefusedError('invalid_json', 'The request body is not valid JSON');
      }
    }

    // A malformed question (`AskRequestError`) and a switched-off concierge are thrown to the error boundary.
    const request = parseAskRequest(body);
    const reply = await deps.concierge.ask(site, request);
    recordQuestion(site, visitor, request.query, reply.answered);
    ctx.status = 200;
    if (ctx.accepts('application/json', 'text/markdown') === 'text/markdown') {
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.body = answerMarkdown(reply);
    } else {
      ctx.body = askResponseBody(reply);
    }
  });

  // A2A clients parse JSON-RPC: every refusal of this endpoint is a JSON-RPC error object, as the binding's are.
  router.all(BRAND_PATHS.a2a, renderErrorsWith(renderJsonRpc), async (ctx) => {
    if (answeredByPreamble(ctx)) return;
    const { site, visitor } = brandRequestOf(ctx);
    await admit(ctx, site, visitor);

    await parseA2a(ctx, async () => undefined);
    // Read as text: the binding decodes it, so malformed JSON gets the JSON-RPC parse error.
    const rawBody = typeof ctx.request.body === 'string' ? ctx.request.body : '';
    const call: ConciergeCall = {
      site,
      onReply: (question, reply) => recordQuestion(site, visitor, question, reply.answered),
    };
    const result = await a2a.handle(rawBody, ctx.headers, ctx.get('Content-Type') || null, call);
    ctx.status = result.status;
    ctx.body = result.body;
  });

  return router;
}

/**
 * The routes as one middleware, for the brand host's `concierge` slot (`brandSiteRoutes`). The cast is the
 * one `@koa/router` needs everywhere (see `compose` in app.ts): its context type adds `params` and `router`.
 */
export function conciergeMiddleware(deps: ConciergeRouteDeps): Koa.Middleware {
  return conciergeRoutes(deps).routes() as unknown as Koa.Middleware;
}
