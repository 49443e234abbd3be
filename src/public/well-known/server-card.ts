/**
 * The MCP server card (`/.well-known/mcp/server-card.json`), in the shape of the experimental server-card
 * extension's `schema.ts` (SEP-2127 draft; reference §3). The draft has no field for tools or authorization,
 * which spec G asks the card to carry, so those go under `_meta`, namespaced by the deployment's reverse-DNS
 * name, the only extension point the draft has.
 *
 * The tool list is the default profile's live `tools/list` (names, titles, descriptions, annotations), handed
 * in by the caller as a `ToolServerListing` built from the compiled catalogue (`mcp/tool-listing.ts`), so the
 * card can never drift from what a connection sees, and rendering it never loads the tools. Input schemas
 * are left out on purpose: the card is for discovery, and `tools/list` is one request away.
 */
import { PLATFORM_NAME, PLATFORM_VERSION } from '../../version.ts';
import type { PlatformLinks } from '../brand-site/site-model.ts';
import { REFRESH_SCOPE, TOOL_SERVER_SCOPES, toolServerUrls } from './tool-server.ts';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

export interface ServerCardTool {
  name: string;
  title: string | undefined;
  description: string | undefined;
  annotations: Record<string, unknown> | undefined;
}

/** What the tool server says about itself to anonymous readers: data, built by the MCP edge. */
export interface ToolServerListing {
  /** The profile a connection without a call code sees. */
  profile: string;
  /** That profile's tools exactly as `tools/list` gives them, minus the schemas. */
  tools: readonly ServerCardTool[];
  /** Every protocol revision the endpoint serves, newest first. */
  protocolVersions: readonly string[];
}

export interface ServerCard {
  $schema: typeof SERVER_CARD_SCHEMA;
  name: string;
  version: string;
  description: string;
  title: string;
  websiteUrl: string;
  remotes: {
    type: 'streamable-http';
    url: string;
    headers: { name: string; description: string; isRequired: boolean; isSecret: boolean }[];
    supportedProtocolVersions: string[];
  }[];
  _meta: Record<string, unknown>;
}

/**
 * Reverse-DNS namespace of the deployment (`https://campaigns.example.com` → `com.example.campaigns`), used
 * for the card's `name` and its `_meta` keys. A single-label host (`localhost`) stays as it is.
 */
export function reverseDnsNamespace(baseUrl: string): string {
  return new URL(baseUrl).hostname.toLowerCase().split('.').filter(Boolean).reverse().join('.');
}

export function buildServerCard(links: PlatformLinks, toolServer: ToolServerListing): ServerCard {
  const urls = toolServerUrls(links);
  const namespace = reverseDnsNamespace(links.base);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${namespace}/${PLATFORM_NAME}`,
    version: PLATFORM_VERSION,
    // The draft caps this at 100 characters.
    description: 'Manage marketing campaigns, products, surfaces, brand, video and analytics for one workspace.',
    title: 'Campaign platform',
    websiteUrl: links.base,
    remotes: [
      {
        type: 'streamable-http',
        url: urls.mcp,
        headers: [
          {
            name: 'x-api-key',
            description: `Workspace API key, the headless alternative to OAuth (see ${urls.authMd}).`,
            isRequired: false,
            isSecret: true,
          },
        ],
        supportedProtocolVersions: [...toolServer.protocolVersions],
      },
    ],
    _meta: {
      [`${namespace}/default-tools`]: {
        profile: toolServer.profile,
        tools: toolServer.tools,
      },
      [`${namespace}/oauth`]: {
        authorization_server: urls.issuer,
        authorization_server_metadata: urls.authorizationServerMetadata,
        protected_resource_metadata: urls.protectedResourceMetadata,
        resource: urls.mcp,
        scopes_supported: [...TOOL_SERVER_SCOPES],
        refresh_token_scope: REFRESH_SCOPE,
        code_challenge_methods_supported: ['S256'],
        registration_endpoint: urls.registration,
        authorization_endpoint: urls.authorization,
        token_endpoint: urls.token,
        revocation_endpoint: urls.revocation,
        documentation: urls.authMd,
      },
      [`${namespace}/api-key`]: {
        header: 'x-api-key',
        issued_at: urls.dashboard,
        instructions: 'A workspace admin creates keys in the dashboard under Settings → API keys.',
      },
      [`${namespace}/documentation`]: urls.llmsTxt,
    },
  };
}

export function renderServerCardJson(links: PlatformLinks, toolServer: ToolServerListing): string {
  return `${JSON.stringify(buildServerCard(links, toolServer), null, 2)}\n`;
}
