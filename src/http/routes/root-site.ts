/**
 * The root public site (`BASE_URL`): anonymous. It sets no cookie and accepts no credential; a request that
 * carries one is served exactly like one that does not (nothing here reads `Authorization`, `Cookie` or
 * `x-api-key`).
 *
 * Every document is built once at boot from configuration. All of them are public to any origin (CORS `*`),
 * cacheable, and carry a strong ETag; every answer also points at the API catalog with a `Link` header
 * (RFC 9727 §3 asks for it on HEAD of the catalog; elsewhere it is site-wide discovery).
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { Config } from '../../config.ts';
import {
  renderRootSiteDocuments,
  ROOT_SITE_PATHS,
  rootSiteDocument,
  type RootSiteDocument,
} from '../../public/root-site/index.ts';
import type { ToolServerListing } from '../../public/well-known/server-card.ts';
import { brandSiteUrl } from '../hosts.ts';
import { matchesIfNoneMatch } from '../conditional.ts';

/**
 * The root site's protected-resource metadata (spec H). The root site itself accepts no credential, so no
 * scope applies: `scopes_supported` would be empty, and RFC 9728 §3.2 says an empty member is omitted.
 */
export function rootProtectedResourceMetadata(config: Config) {
  return {
    resource: config.urls.base,
    authorization_servers: [config.urls.auth],
    resource_name: 'Campaign platform (public site)',
    resource_documentation: `${config.urls.base}/llms.txt`,
  };
}

/** The root site's documents for this configuration and tool catalogue (also what the tests compare against). */
export function rootSiteDocuments(config: Config, toolServer: ToolServerListing): RootSiteDocument[] {
  const documents = renderRootSiteDocuments({
    links: { base: config.urls.base, platform: config.urls.platform, auth: config.urls.auth },
    brandSitePattern: brandSiteUrl(config, '<slug>'),
    toolServer,
  });
  const metadata = rootSiteDocument(
    '/.well-known/oauth-protected-resource',
    'application/json',
    JSON.stringify(rootProtectedResourceMetadata(config)),
  );
  return [...documents, metadata];
}

export function rootSiteRoutes(config: Config, toolServer: ToolServerListing): Router {
  const router = new Router();
  const catalogLink = `<${config.urls.base}${ROOT_SITE_PATHS.apiCatalog}>; rel="api-catalog"`;

  const publicHeaders = (ctx: Koa.Context) => {
    ctx.set('access-control-allow-origin', '*');
    ctx.set('access-control-expose-headers', 'etag, link');
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('link', catalogLink);
  };

  for (const document of rootSiteDocuments(config, toolServer)) {
    // `get` also answers HEAD (same headers, no body), which RFC 9727 requires of the catalog.
    router.get(document.path, (ctx) => {
      publicHeaders(ctx);
      ctx.status = 200;
      ctx.etag = document.etag;
      if (matchesIfNoneMatch(ctx.get('if-none-match'), document.etag)) {
        ctx.status = 304;
        return;
      }
      // Set as given: Koa's `type` setter would append its own charset guesses.
      ctx.set('content-type', document.contentType);
      ctx.body = document.body;
    });
    router.options(document.path, (ctx) => {
      ctx.set('access-control-allow-origin', '*');
      ctx.set('access-control-allow-methods', 'GET, HEAD, OPTIONS');
      ctx.set('access-control-allow-headers', 'content-type, if-none-match, mcp-protocol-version');
      ctx.set('access-control-max-age', '86400');
      ctx.status = 204;
    });
  }
  return router;
}
