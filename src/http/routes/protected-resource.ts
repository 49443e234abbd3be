/**
 * RFC 9728 protected-resource metadata for the tool server. Served byte-identical at the URL our 401
 * challenge names (`/.well-known/oauth-protected-resource/mcp`), at the RFC 9728 path-derived URL
 * (`/.well-known/oauth-protected-resource/api/mcp`, which clients probe without a challenge) and at the root,
 * so every client's discovery order finds it. Query strings are ignored (clients copy `?profile=` onto it).
 */
import Router from '@koa/router';
import type { Config } from '../../config.ts';

export function protectedResourceMetadata(config: Config) {
  return {
    resource: config.urls.mcp,
    authorization_servers: [config.urls.auth],
    scopes_supported: ['mcp:read', 'mcp:write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Campaign platform MCP server',
    resource_documentation: `${config.urls.base}/llms.txt`,
  };
}

export const PROTECTED_RESOURCE_PATHS = [
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource/api/mcp',
  '/.well-known/oauth-protected-resource',
] as const;

export function protectedResourceRoutes(config: Config): Router {
  const router = new Router();
  const body = JSON.stringify(protectedResourceMetadata(config));
  for (const path of PROTECTED_RESOURCE_PATHS) {
    router.get(path, (ctx) => {
      ctx.set('access-control-allow-origin', '*');
      ctx.set('cache-control', 'public, max-age=3600');
      ctx.type = 'application/json';
      ctx.body = body;
    });
    router.options(path, (ctx) => {
      ctx.set('access-control-allow-origin', '*');
      ctx.set('access-control-allow-methods', 'GET, OPTIONS');
      ctx.set('access-control-allow-headers', 'mcp-protocol-version, content-type');
      ctx.status = 204;
    });
  }
  return router;
}

/** The `WWW-Authenticate` challenge of the tool server (RFC 6750 §3 with the RFC 9728 parameter). */
export function bearerChallenge(config: Config, error?: { code: string; description: string }): string {
  const metadata = `resource_metadata="${config.urls.platform}/.well-known/oauth-protected-resource/mcp"`;
  if (!error) return `Bearer ${metadata}`;
  // RFC 6750 allows only printable ASCII without quotes and backslashes in error_description.
  const description = error.description.replace(/[^\x20-\x7e]/g, '-').replace(/["\\]/g, "'");
  return `Bearer error="${error.code}", error_description="${description}", ${metadata}`;
}
