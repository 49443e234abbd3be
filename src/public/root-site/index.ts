/**
 * The root public site's documents (spec H): built once at boot, since they depend only on configuration.
 * Each carries its ETag (a hash of the body) so the route can answer conditional requests without work.
 */
import { createHash } from 'node:crypto';
import { renderAuthMarkdown } from '../well-known/auth-md.ts';
import { renderServerCardJson } from '../well-known/server-card.ts';
import { API_CATALOG_CONTENT_TYPE, buildApiCatalog } from './api-catalog.ts';
import { renderRootLlmsTxt, type RootSiteInput } from './llms-txt.ts';

export interface RootSiteDocument {
  path: string;
  contentType: string;
  body: string;
  /** Strong ETag, quoted. */
  etag: string;
}

export const ROOT_SITE_PATHS = {
  llmsTxt: '/llms.txt',
  authMd: '/auth.md',
  apiCatalog: '/.well-known/api-catalog',
  serverCard: '/.well-known/mcp/server-card.json',
} as const;

/** A document with its ETag: a hash of the exact body. */
export function rootSiteDocument(path: string, contentType: string, body: string): RootSiteDocument {
  const hash = createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 27);
  return { path, contentType, body, etag: `"${hash}"` };
}

export function renderRootSiteDocuments(input: RootSiteInput): RootSiteDocument[] {
  return [
    // `.txt` as plain text: every client displays it inline; its content is markdown by the llms.txt convention.
    rootSiteDocument(ROOT_SITE_PATHS.llmsTxt, 'text/plain; charset=utf-8', renderRootLlmsTxt(input)),
    rootSiteDocument(
      ROOT_SITE_PATHS.authMd,
      'text/markdown; charset=utf-8',
      renderAuthMarkdown(input.links, { kind: 'root' }),
    ),
    rootSiteDocument(
      ROOT_SITE_PATHS.apiCatalog,
      API_CATALOG_CONTENT_TYPE,
      `${JSON.stringify(buildApiCatalog(input.links), null, 2)}\n`,
    ),
    rootSiteDocument(
      ROOT_SITE_PATHS.serverCard,
      'application/json',
      renderServerCardJson(input.links, input.toolServer),
    ),
  ];
}

export { API_CATALOG_CONTENT_TYPE, API_CATALOG_PROFILE, buildApiCatalog, type Linkset } from './api-catalog.ts';
export { renderRootLlmsTxt, type RootSiteInput } from './llms-txt.ts';
