/**
 * Every public URL of the tool server and its authorization server, derived from the deployment's three
 * configured origins. The well-known files, auth.md and the root site all take their URLs from here, so a
 * document can never name a route the platform does not serve.
 */
import { MCP_SCOPES } from '../../auth/scopes.ts';
import type { PlatformLinks } from '../brand-site/site-model.ts';

export interface ToolServerUrls {
  /** The MCP endpoint (Streamable HTTP), also the RFC 8707 resource and token audience. */
  mcp: string;
  /** RFC 9728 metadata, at the URL our 401 challenge names. */
  protectedResourceMetadata: string;
  /** RFC 9728 metadata at its path-derived location (clients that got no challenge probe this one). */
  protectedResourceMetadataPathDerived: string;
  issuer: string;
  /** RFC 8414 metadata. */
  authorizationServerMetadata: string;
  registration: string;
  authorization: string;
  token: string;
  revocation: string;
  /** The dashboard, where a human signs up, creates workspaces and API keys. */
  dashboard: string;
  /** The root site's documents. */
  llmsTxt: string;
  authMd: string;
  serverCard: string;
  apiCatalog: string;
}

export function toolServerUrls(links: PlatformLinks): ToolServerUrls {
  return {
    mcp: `${links.platform}/api/mcp`,
    protectedResourceMetadata: `${links.platform}/.well-known/oauth-protected-resource/mcp`,
    protectedResourceMetadataPathDerived: `${links.platform}/.well-known/oauth-protected-resource/api/mcp`,
    issuer: links.auth,
    authorizationServerMetadata: `${links.auth}/.well-known/oauth-authorization-server`,
    registration: `${links.auth}/oauth/register`,
    authorization: `${links.auth}/oauth/authorize`,
    token: `${links.auth}/oauth/token`,
    revocation: `${links.auth}/oauth/token/revoke`,
    dashboard: links.platform,
    llmsTxt: `${links.base}/llms.txt`,
    authMd: `${links.base}/auth.md`,
    serverCard: `${links.base}/.well-known/mcp/server-card.json`,
    apiCatalog: `${links.base}/.well-known/api-catalog`,
  };
}

/** The scopes a client asks for: what the tool server's metadata lists (authorization is by workspace role). */
export const TOOL_SERVER_SCOPES: readonly string[] = MCP_SCOPES;
/** Asked for in addition when the client wants a refresh token (never listed as a resource scope, SEP-2207). */
export const REFRESH_SCOPE = 'offline_access';
