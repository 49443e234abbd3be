/**
 * Brand hosts: `<slug>.<BRAND_ROOT_DOMAIN>` and verified custom domains. Everything here is anonymous: no
 * credential is read, and a request carrying one is served like any other.
 *
 * Pages and files come from the rendered-site store (never the live tables). A page is served as HTML or as
 * its markdown twin by content negotiation (`Accept: text/markdown`, or a `.md` suffix), always with
 * `Vary: Accept`; the visitor's sticky variant is spliced into each slot. Validators (ETag, Last-Modified)
 * make repeat fetches cheap. The only cookie is the first-party anonymous visitor id, set by pages with slots.
 */
import { randomBytes } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import type { Logger } from '../../logger.ts';
import { NO_METRICS, type Metrics } from '../../observability/metrics.ts';
import { publishedIds, readBeacon, type PublishedIds } from '../../domain/analytics/beacon-ingest.ts';
import type { SiteEventSink } from '../../domain/analytics/site-events.ts';
import type { SiteHead, SiteReader } from '../../domain/publishing/site-store.ts';
import { ASK_SCRIPT, ASK_SCRIPT_ETAG } from '../../public/brand-site/ask-script.ts';
import { BEACON_SCRIPT, BEACON_SCRIPT_ETAG } from '../../public/brand-site/beacon-script.ts';
import type { ChannelClickRecorder } from '../../domain/channels/channel-clicks.ts';
import { channelHandOffTarget, handOffUrl } from '../../public/brand-site/hand-off.ts';
import { BRAND_PATHS, type PublishedSite } from '../../public/brand-site/site-model.ts';
import { renderGonePage, renderNotFoundPage } from '../../public/brand-site/render/index.ts';
import { RequestRefusedError } from '../../errors.ts';
import { notModified } from '../conditional.ts';
import type { Site } from '../hosts.ts';
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
} from './brand-documents.ts';

const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;

export interface BrandVisitor {
  sessionId: string;
  address: string;
}

export interface BrandSiteDeps {
  reader: SiteReader;
  /** Durable sink: beacons are acknowledged only after their events are written. */
  events: SiteEventSink;
  /** Buffered sink for events emitted while serving (markdown impressions): never delays a response. */
  servedEvents: SiteEventSink;
  log: Logger;
  /** Counts the beacons' invalid events (the recorder counts the ones written). */
  metrics?: Pick<Metrics, 'analyticsRejected'>;
  /** The concierge (`POST /ask`, `POST /a2a`); it finds the publication in `ctx.state.brandSite`. */
  concierge?: Koa.Middleware;
  /** Visits through a social post's attributed link (`/_cp/go?…&p=<post>`). */
  channelClicks?: ChannelClickRecorder;
}

/** 404 for the error boundary to answer; never cached, since the page or site may be published any moment. */
function notFound(ctx: Koa.Context, description: string): never {
  ctx.set('Cache-Control', 'no-store');
  throw new RequestRefusedError('not_found', description);
}

/** 405 with the methods the path answers (`Allow`, RFC 9110 §15.5.6). */
function methodNotAllowed(ctx: Koa.Context, allow: string): never {
  ctx.set('Allow', allow);
  throw new RequestRefusedError('method_not_allowed', `${ctx.method} is not allowed here`);
}

/** The visitor's anonymous id from the cookie, minting (and setting) one when `mint` and there is none. */
function visitorId(ctx: Koa.Context, mint: boolean): string | null {
  const existing = ctx.cookies.get(VISITOR_COOKIE);
  if (isVisitorId(existing)) return existing;
  if (!mint) return null;
  const fresh = newVisitorId();
  giveVisitorId(ctx, fresh);
  return fresh;
}

function newVisitorId(): string {
  return randomBytes(16).toString('base64url');
}

/** Sets the visitor's id cookie (first-party, a year). */
function giveVisitorId(ctx: Koa.Context, id: string): void {
  ctx.cookies.set(VISITOR_COOKIE, id, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    maxAge: ONE_YEAR_MS,
    overwrite: true,
  });
}

/** Whether the request names `text/html` in its Accept header: browsers do; a client accepting anything does not. */
function acceptsHtmlByName(ctx: Koa.Context): boolean {
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(ctx.get('accept')) && !wantsMarkdown(ctx);
}

function wantsMarkdown(ctx: Koa.Context): boolean {
  // Full negotiation (q-values) only when the plain cases do not decide.
  return plainMarkdownChoice(ctx.get('accept')) ?? ctx.accepts('text/html', 'text/markdown') === 'text/markdown';
}

/** One of the platform's own scripts (beacon, ask box), cached for an hour and revalidated by its ETag. */
function serveScript(ctx: Koa.Context, body: string, etag: string): void {
  ctx.status = 200;
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.etag = etag;
  if (notModified(ctx, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.body = body;
}

/** Answers `response` on `ctx`, or 304 when the request's validators match (headers set either way). */
function respond(ctx: Koa.Context, response: DocumentResponse): boolean {
  ctx.status = 200;
  ctx.set(response.headers);
  if (notModified(ctx, response.etag, response.lastModified)) {
    ctx.status = 304;
    return false;
  }
  ctx.set('Content-Type', response.contentType);
  ctx.body = response.body;
  return true;
}

export function brandSiteRoutes(deps: BrandSiteDeps): (ctx: Koa.Context, site: Site) => Promise<void> {
  const parseBeacon = bodyParser({
    enableTypes: ['text', 'json'],
    textLimit: '32kb',
    jsonLimit: '32kb',
    encoding: 'utf-8',
  });
  const idsCache = new WeakMap<PublishedSite, PublishedIds>();
  const metrics = deps.metrics ?? NO_METRICS;

  async function resolve(ctx: Koa.Context, site: Site): Promise<SiteHead | null> {
    if (site.kind === 'brand') return deps.reader.bySlug(site.slug);
    return deps.reader.byCustomDomain(ctx.hostname.toLowerCase());
  }

  async function loadSite(ctx: Koa.Context, head: SiteHead): Promise<PublishedSite> {
    return (await deps.reader.publishedSite(head)) ?? notFound(ctx, 'This brand site has not been published yet');
  }

  async function ingestBeacon(ctx: Koa.Context, head: SiteHead) {
    const published = await loadSite(ctx, head);
    await parseBeacon(ctx, async () => undefined);
    const raw = ctx.request.body;
    const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? null);
    let ids = idsCache.get(published);
    if (!ids) {
      ids = publishedIds(published);
      idsCache.set(published, ids);
    }
    // A body that is not a beacon throws `BeaconFormatError` (400 invalid_beacon) to the error boundary.
    const result = readBeacon(text, { site: published, ids, sessionId: visitorId(ctx, false) });
    metrics.analyticsRejected('beacon', result.rejected.length);
    // Awaited: the 202 means the events are durable (a lost response makes the browser retry, and the
    // retry is deduplicated by event id).
    await deps.events.record(result.events);
    ctx.status = 202;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { accepted: result.events.length, rejected: result.rejected };
  }

  /**
   * A visit through a social post's link (`p`): the visitor gets an id (so a later conversion attributes to the
   * post), the visit is recorded for the post, and the visitor goes on to the variant's call to action or the
   * campaign's page. A `p` that names no published post of this workspace's campaign and variant records
   * nothing and is treated as absent.
   */
  async function channelHandOff(
    ctx: Koa.Context,
    head: SiteHead,
    published: PublishedSite,
    ids: { campaignId: string; variantId: string; postId: string },
  ): Promise<boolean> {
    if (!deps.channelClicks) return false;
    // The visitor keeps the id they have; a new one is given only once the visit is known to be a post's.
    const known = visitorId(ctx, false);
    const sessionId = known ?? newVisitorId();
    const target = channelHandOffTarget(published, ids.campaignId, ids.variantId, sessionId);
    if (!target) return false;
    const recorded = await deps.channelClicks.record({
      workspaceId: head.workspaceId,
      ...ids,
      sessionId,
      occurredAt: new Date(),
    });
    if (!recorded) return false;
    if (!known) giveVisitorId(ctx, sessionId);
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(target);
    return true;
  }

  /** `GET /_cp/go?c=&v=[&p=]`: on to the variant's call-to-action URL, with the visitor's id (hand-off.ts). */
  async function handOff(ctx: Koa.Context, head: SiteHead) {
    const published = await loadSite(ctx, head);
    const campaignId = typeof ctx.query.c === 'string' ? ctx.query.c : '';
    const variantId = typeof ctx.query.v === 'string' ? ctx.query.v : '';
    const postId = typeof ctx.query.p === 'string' ? ctx.query.p : '';
    if (
      postId &&
      postId.length <= 64 &&
      (await channelHandOff(ctx, head, published, { campaignId, variantId, postId }))
    ) {
      return;
    }
    const target = handOffUrl(published, campaignId, variantId, visitorId(ctx, false));
    if (!target) notFound(ctx, 'No published call to action leads off this site for that campaign and variant');
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(target);
  }

  return async (ctx, site) => {
    const head = await resolve(ctx, site);
    if (!head) notFound(ctx, `No site is served at ${ctx.hostname || 'this host'}`);
    if (head.version === null) notFound(ctx, 'This brand site has not been published yet');

    if (ctx.path === BRAND_PATHS.ask || ctx.path === BRAND_PATHS.a2a) {
      if (!deps.concierge) notFound(ctx, 'The concierge is not available');
      ctx.state.brandSite = await loadSite(ctx, head);
      ctx.state.visitor = { sessionId: visitorId(ctx, false) ?? '', address: ctx.ip } satisfies BrandVisitor;
      await deps.concierge(ctx, async () => notFound(ctx, `No such endpoint: ${ctx.method} ${ctx.path}`));
      return;
    }
    if (ctx.path === BRAND_PATHS.events) {
      if (ctx.method !== 'POST') methodNotAllowed(ctx, 'POST');
      return ingestBeacon(ctx, head);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') methodNotAllowed(ctx, 'GET, HEAD');
    if (ctx.path === BRAND_PATHS.handOff) return handOff(ctx, head);
    if (ctx.path === BRAND_PATHS.beaconScript) return serveScript(ctx, BEACON_SCRIPT, BEACON_SCRIPT_ETAG);
    if (ctx.path === BRAND_PATHS.askScript) return serveScript(ctx, ASK_SCRIPT, ASK_SCRIPT_ETAG);

    const requested = documentPath(ctx.path);
    const document = await deps.reader.document(head, requested.path);
    if (!document) {
      // A browser (it asks for text/html by name) gets a page of the site to find its way on; any other client
      // the boundary's error body.
      // A campaign whose run has ended is gone for good (410) and says so; anything else is not found (404).
      if (!requested.markdown && acceptsHtmlByName(ctx)) {
        const published = await loadSite(ctx, head);
        const gone = renderGonePage(published, requested.path);
        ctx.status = gone ? 410 : 404;
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = gone ?? renderNotFoundPage(published, ctx.path);
        return;
      }
      notFound(ctx, `No page at ${ctx.path}`);
    }
    if (document.kind === 'file') {
      respond(ctx, fileResponse(document));
      return;
    }
    const markdown = requested.markdown || wantsMarkdown(ctx);
    const sessionId = isPersonal(document) ? visitorId(ctx, true) : null;
    const response = pageResponse(document, ctx.path, markdown, sessionId);
    if (respond(ctx, response) && markdown && ctx.method === 'GET') {
      recordMarkdownImpressions(deps.servedEvents, deps.log, head, sessionId, response.choices);
    }
  };
}
