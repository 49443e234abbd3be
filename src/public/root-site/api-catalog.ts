/**
 * `/.well-known/api-catalog` (RFC 9727): a JSON linkset (RFC 9264) with one link context per API, anchored
 * at the API's endpoint. The relations follow reference §6: `service-desc` is the machine description (the
 * MCP server card), `service-doc` the documentation, `service-meta` the authorization metadata.
 */
import type { PlatformLinks } from '../brand-site/site-model.ts';
import { toolServerUrls } from '../well-known/tool-server.ts';

export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const API_CATALOG_CONTENT_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}

export type LinkContext = { anchor: string } & Record<string, string | LinkTarget[]>;

export interface Linkset {
  linkset: LinkContext[];
}

export function buildApiCatalog(links: PlatformLinks): Linkset {
  const urls = toolServerUrls(links);
  return {
    linkset: [
      {
        anchor: urls.mcp,
        'service-desc': [
          {
            href: urls.serverCard,
            type: 'application/json',
            title: 'MCP server card: default tools and OAuth metadata',
          },
        ],
        'service-doc': [
          // Served as text/plain (a `.txt` file); its content is markdown by the llms.txt convention.
          { href: urls.llmsTxt, type: 'text/plain', title: 'Platform overview for agents' },
          { href: urls.authMd, type: 'text/markdown', title: 'How to authorize an agent' },
        ],
        'service-meta': [
          {
            href: urls.protectedResourceMetadata,
            type: 'application/json',
            title: 'OAuth protected-resource metadata (RFC 9728)',
          },
          {
            href: urls.authorizationServerMetadata,
            type: 'application/json',
            title: 'OAuth authorization-server metadata (RFC 8414)',
          },
        ],
      },
    ],
  };
}
