/**
 * One access-log line and one request count per request, written when the handler (and the error boundary
 * inside this middleware) has finished. The line holds what an operator needs to follow a request — its id,
 * the kind of site, the route pattern, method, status, duration and how the caller authenticated — and
 * nothing a credential, a person or a query string could leak through: no URL, no host name, no headers, no
 * token, cookie or email. The brand-document hot path (brand-fast-path.ts) writes the same line for what it
 * answers.
 */
import type { Context, Middleware } from 'koa';
import type { Principal } from '../../auth/principal.ts';
import { fixedFieldLogger, type Logger } from '../../logger.ts';
import { methodLabel, type HostKind, type Metrics, type PrincipalKind } from '../../observability/metrics.ts';
import { BRAND_PATHS } from '../../public/brand-site/site-model.ts';
import type { Site } from '../hosts.ts';

/** The brand host's own endpoints keep their path as the route; every other brand path is a published document. */
const BRAND_ROUTES: ReadonlySet<string> = new Set(Object.values(BRAND_PATHS));

/** The site kind as a label: a custom domain (an `unknown` host the brand handler looks up) is a brand site. */
export function hostKindOf(site: Site): HostKind {
  return site.kind === 'unknown' ? 'brand' : site.kind;
}

/**
 * The route as a label: the pattern @koa/router matched (`/w/:workspaceId/keys`, oidc-provider's own routes
 * too), the brand host's fixed endpoints, `document` for a brand page or file, else `unmatched`. Never the
 * request's path, which a client chooses.
 */
export function routeLabel(ctx: Context, host: HostKind): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (host === 'brand') return BRAND_ROUTES.has(ctx.path) ? ctx.path : 'document';
  return 'unmatched';
}

function principalKindOf(ctx: Context): PrincipalKind {
  const principal = ctx.state.principal as Principal | undefined;
  if (principal) return principal.via;
  if ((ctx.state.dashboard as { session?: unknown } | undefined)?.session) return 'session';
  return 'anonymous';
}

export interface AccessLogLine {
  requestId: string;
  host: HostKind;
  route: string;
  method: string;
  status: number;
  durationMs: number;
  principal: PrincipalKind;
}

/**
 * Writes the line and counts the request: the one format shared by Koa and the hot path. `log` is a
 * `fixedFieldLogger`: every field of the line is one of the code's, so it skips the redaction pass.
 */
export function recordRequest(log: Logger, metrics: Metrics, line: AccessLogLine): void {
  log.info(line, 'request');
  metrics.httpRequest({
    host: line.host,
    route: line.route,
    method: line.method,
    status: line.status,
    seconds: line.durationMs / 1000,
  });
}

export function accessLog(deps: { log: Logger; metrics: Metrics; resolveSite(hostname: string): Site }): Middleware {
  const log = fixedFieldLogger(deps.log);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The dispatcher stored the site; a request that failed before it is resolved here.
      const host = hostKindOf((ctx.state.site as Site | undefined) ?? deps.resolveSite(ctx.hostname));
      recordRequest(log, deps.metrics, {
        requestId: ctx.state.requestId as string,
        host,
        route: routeLabel(ctx, host),
        method: methodLabel(ctx.method),
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        principal: principalKindOf(ctx),
      });
    }
  };
}
