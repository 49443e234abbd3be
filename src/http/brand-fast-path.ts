/**
 * The hot path for brand documents, on Node's own request and response objects.
 *
 * At serving rates a Koa context (its request and response objects, delegates, middleware composition,
 * on-finished) costs about as much as everything else in serving a page, so a plain GET for a brand page or
 * file whose host and document are already in the site reader's caches is answered here, with the headers
 * and bytes the Koa route answers (brand-documents.ts builds both; test/integration/brand-fast-path.test.ts
 * compares them request by request). Everything else returns `false` untouched and goes to Koa: a cache miss,
 * a conditional request, HEAD and other methods, a visitor without an id cookie (Koa mints one), an Accept
 * header that needs real negotiation, forwarded or unusual hosts, paths outside a plain character set, the
 * brand host's own endpoints, and every other site.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { SiteEventSink } from '../domain/analytics/site-events.ts';
import type { SiteReader } from '../domain/publishing/site-store.ts';
import { fixedFieldLogger, type Logger } from '../logger.ts';
import { NO_METRICS, type Metrics } from '../observability/metrics.ts';
import type { SlotChoice } from '../public/brand-site/assemble.ts';
import { BRAND_PATHS } from '../public/brand-site/site-model.ts';
import type { Site } from './hosts.ts';
import { SAFE_REQUEST_ID } from './middleware/request-id.ts';
import { recordRequest } from './middleware/access-log.ts';
import {
  documentPath,
  fileResponse,
  isPersonal,
  isVisitorId,
  pageResponse,
  plainMarkdownChoice,
  recordMarkdownImpressions,
  VISITOR_COOKIE,
  type DocumentResponse,
} from './routes/brand-documents.ts';

export interface BrandFastPathDeps {
  resolveSite(hostname: string): Site;
  reader: SiteReader;
  servedEvents: SiteEventSink;
  log: Logger;
  /** Requests answered here are counted and logged like Koa's (access-log.ts). */
  metrics?: Metrics;
  /** Koa's `proxy` setting: when set, `X-Forwarded-Host` names the host, which is left to Koa. */
  trustProxy: boolean;
}

/** Paths Koa's `ctx.path` reports verbatim (no percent-encoding, no fragments, nothing to normalise). */
const PLAIN_PATH = /^\/[A-Za-z0-9._~/-]*$/;
const OWN_PATHS = new Set<string>(Object.values(BRAND_PATHS));
/** The visitor cookie exactly as the `cookies` package finds it (Koa's `ctx.cookies.get`). */
const VISITOR_COOKIE_PATTERN = new RegExp(`(?:^|;) *${VISITOR_COOKIE}=([^;]*)`);

function visitorFromCookie(header: string | undefined): string | null {
  if (!header) return null;
  const match = VISITOR_COOKIE_PATTERN.exec(header);
  let value = match?.[1];
  if (value?.startsWith('"')) value = value.slice(1, -1);
  return isVisitorId(value) ? value : null;
}

/** Returns a listener step: true when it answered the request, false when Koa should. */
export function createBrandFastPath(
  deps: BrandFastPathDeps,
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const { reader } = deps;
  const metrics = deps.metrics ?? NO_METRICS;
  const accessLog = fixedFieldLogger(deps.log);
  const answer = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const started = performance.now();
    const headers = req.headers;
    if (req.method !== 'GET' || req.httpVersionMajor >= 2) return false;
    if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return false;
    if (deps.trustProxy && headers['x-forwarded-host'] !== undefined) return false;
    const host = headers.host;
    if (!host || host.startsWith('[') || host.includes(',')) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (!PLAIN_PATH.test(path) || OWN_PATHS.has(path)) return false;

    const hostname = host.split(':', 1)[0]!.toLowerCase();
    const site = deps.resolveSite(hostname);
    const head =
      site.kind === 'brand'
        ? reader.cached.bySlug(site.slug)
        : site.kind === 'unknown'
          ? reader.cached.byCustomDomain(hostname)
          : undefined;
    if (!head || head.version === null) return false;
    const requested = documentPath(path);
    const document = reader.cached.document(head, requested.path);
    if (!document) return false;

    let response: DocumentResponse;
    let impressions: { sessionId: string | null; choices: SlotChoice[] } | null = null;
    if (document.kind === 'file') {
      response = fileResponse(document);
    } else {
      // `text/markdown` among other types is negotiated by Koa (q-values).
      const markdownByAccept = plainMarkdownChoice(headers.accept ?? '');
      if (markdownByAccept === null) return false;
      const markdown = requested.markdown || markdownByAccept;
      const personal = isPersonal(document);
      const sessionId = personal ? visitorFromCookie(headers.cookie) : null;
      if (personal && sessionId === null) return false; // Koa mints the visitor's id
      const page = pageResponse(document, path, markdown, sessionId);
      response = page;
      if (markdown) impressions = { sessionId, choices: page.choices };
    }

    const incomingId = headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && SAFE_REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    res.writeHead(200, {
      'x-request-id': requestId,
      ...response.headers,
      'Content-Type': response.contentType,
      'Content-Length': Buffer.byteLength(response.body),
    });
    res.end(response.body);
    recordRequest(accessLog, metrics, {
      requestId,
      host: 'brand',
      route: 'document',
      method: 'GET',
      status: 200,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      principal: 'anonymous',
    });
    if (impressions)
      recordMarkdownImpressions(deps.servedEvents, deps.log, head, impressions.sessionId, impressions.choices);
    return true;
  };
  return (req, res) => {
    try {
      return answer(req, res);
    } catch (error) {
      // Nothing escapes into Node's request event (that would end the process). Before the answer was
      // written, Koa's route takes the request and its error boundary answers; after it, only the log is left.
      deps.log.warn({ err: error, path: req.url }, 'brand hot path failed');
      if (res.headersSent) return true;
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      return false;
    }
  };
}
