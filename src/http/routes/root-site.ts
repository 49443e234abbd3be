/**
 * The root public site (`BASE_URL`): anonymous. It sets no cookie and accepts no credential; a request that
 * carries one is served exactly like one that does not.
 */
import Router from '@koa/router';
import type { Config } from '../../config.ts';

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

export function rootSiteRoutes(config: Config): Router {
  const router = new Router();
  const metadata = JSON.stringify(rootProtectedResourceMetadata(config));
  router.get('/.well-known/oauth-protected-resource', (ctx) => {
    ctx.set('access-control-allow-origin', '*');
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.type = 'application/json';
    ctx.body = metadata;
  });
  return router;
}
