/**
 * The server span of each request the Koa app serves (docs/tracing.md), parent of every span the request
 * causes: the tool call, its queries, the workflow start and, through Temporal, the job's activities.
 *
 * Named `METHOD route` with the router's pattern (`POST /api/mcp`), never the path as sent: paths can carry
 * ids and tokens (an invitation link), query strings can carry call codes. An incoming W3C `traceparent`
 * (a traced proxy or client) becomes the parent. While tracing is off this is one null check per request.
 * The brand-document hot path (brand-fast-path.ts) answers before Koa and is not traced.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { activeTracer } from '../../tracing/spans.ts';
import { SAFE_REQUEST_ID } from './request-id.ts';

export function traceRequests(): Middleware {
  return async (ctx, next) => {
    const tracer = activeTracer();
    if (!tracer) return next();
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': ctx.method,
          'url.scheme': ctx.protocol,
          'server.address': ctx.hostname,
        },
      },
      parent,
    );
    let failed = false;
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      failed = true; // past the error boundary: Koa answers 500
      throw error;
    } finally {
      // Read after the app ran: the router has matched, the error boundary has set the final status.
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const site = (ctx.state.site as { kind?: string } | undefined)?.kind;
      const via = (ctx.state.principal as { via?: string } | undefined)?.via;
      const requestId = ctx.state.requestId as string | undefined;
      if (typeof route === 'string' && route.startsWith('/')) span.setAttribute('http.route', route);
      span.updateName(
        `${ctx.method} ${typeof route === 'string' && route.startsWith('/') ? route : `(${site ?? 'unknown'} site)`}`,
      );
      span.setAttribute('http.response.status_code', failed ? 500 : ctx.status);
      if (site) span.setAttribute('campaign.site', site);
      if (via) span.setAttribute('campaign.principal', via);
      if (requestId && SAFE_REQUEST_ID.test(requestId)) span.setAttribute('campaign.request_id', requestId);
      if (failed || ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
