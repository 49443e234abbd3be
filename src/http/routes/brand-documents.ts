/**
 * How a stored brand document becomes a response: the path and format a request asks for, the visitor's
 * anonymous id, and the exact headers and body of a page or file. Pure functions, shared by the Koa route
 * (brand-site.ts) and the raw-Node hot path (../brand-fast-path.ts), so both answer with the same bytes.
 */
import { newEventId } from '../../domain/analytics/event-ids.ts';
import { VISITOR_ID, type SiteEvent, type SiteEventSink } from '../../domain/analytics/site-events.ts';
import type { SiteHead, StoredDocument } from '../../domain/publishing/site-store.ts';
import type { Logger } from '../../logger.ts';
import { assemblePage, hasSlots, type SlotChoice } from '../../public/brand-site/assemble.ts';

export const VISITOR_COOKIE = 'cp_vid';

export type PageDocument = Extract<StoredDocument, { kind: 'page' }>;
export type FileDocument = Extract<StoredDocument, { kind: 'file' }>;

/** A response to a document request: headers (minus Content-Type), the Content-Type and the body. */
export interface DocumentResponse {
  headers: Record<string, string>;
  etag: string;
  lastModified: Date;
  contentType: string;
  body: string;
}

/** `/campaigns/x/` → `/campaigns/x`; `/campaigns/x.md` and `/index.md` ask for markdown explicitly. */
export function documentPath(path: string): { path: string; markdown: boolean } {
  let markdown = false;
  let normalized = path;
  if (normalized.endsWith('.md') && normalized !== '/auth.md' && !normalized.endsWith('/SKILL.md')) {
    markdown = true;
    normalized = normalized.slice(0, -3);
    if (normalized === '/index' || normalized === '') normalized = '/';
  }
  if (normalized.length > 1 && normalized.endsWith('/')) normalized = normalized.replace(/\/+$/, '') || '/';
  return { path: normalized, markdown };
}

/**
 * Whether an Accept header asks for the markdown twin, when that is plain: false when markdown is not
 * mentioned (the browser case), true for exactly `text/markdown` (the agent case), null when markdown is
 * mentioned among other types and q-values must decide (Koa's negotiation does that).
 */
export function plainMarkdownChoice(accept: string): boolean | null {
  if (!accept.includes('text/markdown')) return false;
  return accept === 'text/markdown' ? true : null;
}

/** A cookie value is a visitor id only in this exact shape (anything else is ignored and replaced). */
export function isVisitorId(value: string | undefined | null): value is string {
  return typeof value === 'string' && VISITOR_ID.test(value);
}

/** True when a page's bytes depend on the visitor (it has slots), so it needs the visitor's id. */
export function isPersonal(document: PageDocument): boolean {
  return hasSlots(document.page);
}

export function fileResponse(document: FileDocument): DocumentResponse {
  const etag = `"${document.etag}"`;
  return {
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=60, must-revalidate',
      'X-Content-Type-Options': 'nosniff',
      ETag: etag,
      'Last-Modified': document.lastModifiedHttp,
    },
    etag,
    lastModified: document.lastModified,
    contentType: document.file.contentType,
    body: document.file.body,
  };
}

/**
 * A page for one visitor (`sessionId` null when the page is not personal): the visitor's variant in each
 * slot, validators that change with that choice, and a `Link` to the other format.
 */
export function pageResponse(
  document: PageDocument,
  path: string,
  markdown: boolean,
  sessionId: string | null,
): DocumentResponse & { choices: SlotChoice[] } {
  const { body, choices } = assemblePage(document.page, markdown ? 'markdown' : 'html', sessionId ?? '');
  const variantKey = choices.map((choice) => choice.variantId).join('.');
  const etag = `"${document.etag}-${markdown ? 'md' : 'html'}${variantKey ? `-${variantKey}` : ''}"`;
  return {
    headers: {
      Vary: 'Accept',
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': sessionId !== null ? 'private, no-cache' : 'public, max-age=60, must-revalidate',
      Link: `<${path}>; rel="alternate"; type="${markdown ? 'text/html' : 'text/markdown'}"`,
      ETag: etag,
      'Last-Modified': document.lastModifiedHttp,
    },
    etag,
    lastModified: document.lastModified,
    contentType: markdown ? 'text/markdown; charset=utf-8' : 'text/html; charset=utf-8',
    body,
    choices,
  };
}

/**
 * Markdown twins have no script, so their impressions are recorded by the server, into a buffered sink:
 * never awaited, so recording never delays (or fails) the response.
 */
export function recordMarkdownImpressions(
  sink: SiteEventSink,
  log: Logger,
  head: SiteHead,
  sessionId: string | null,
  choices: SlotChoice[],
): void {
  if (choices.length === 0 || head.version === null) return;
  const now = new Date();
  const events: SiteEvent[] = choices.map((choice) => ({
    eventId: newEventId(),
    workspaceId: head.workspaceId,
    type: 'impression',
    occurredAt: now,
    sessionId,
    campaignId: choice.campaignId,
    variantId: choice.variantId,
    zoneId: choice.zoneId,
    surfaceId: choice.surfaceId,
    properties: { source: 'markdown' },
  }));
  sink.record(events).catch((error: unknown) => {
    log.warn({ err: error, workspaceId: head.workspaceId }, 'markdown impressions not recorded');
  });
}
