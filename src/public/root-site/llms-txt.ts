/**
 * The root site's `/llms.txt` (llmstxt.org, reference §7.1): H1, summary blockquote, detail blocks, then H2
 * sections that are lists of links, with `## Optional` last. It is the entry map for an agent that knows
 * only the platform's domain: what the platform does, how to reach and authorize the tool server, and where
 * brand sites live.
 */
import type { PlatformLinks } from '../brand-site/site-model.ts';
import type { ToolServerListing } from '../well-known/server-card.ts';
import { toolServerUrls } from '../well-known/tool-server.ts';

export interface RootSiteInput {
  links: PlatformLinks;
  /** A brand site's URL with `<slug>` in place of the workspace slug, e.g. `https://<slug>.brands.example.com`. */
  brandSitePattern: string;
  /** The default tools and protocol revisions, from the MCP catalogue (`mcp/tool-listing.ts`). */
  toolServer: ToolServerListing;
}

/** The first sentence of a tool's description (its listing adds one line per action after a blank line). */
function firstSentence(description: string | undefined): string {
  const paragraph = (description ?? '').split('\n\n')[0] ?? '';
  const match = /^(.+?[.!?])(\s|$)/.exec(paragraph);
  return (match?.[1] ?? paragraph).trim();
}

export function renderRootLlmsTxt({ links, brandSitePattern, toolServer }: RootSiteInput): string {
  const urls = toolServerUrls(links);
  const tools = toolServer.tools;
  const toolLines = tools.map((tool) => {
    const readOnly = tool.annotations?.readOnlyHint === true;
    return `- \`${tool.name}\`${readOnly ? ' (read-only)' : ''}: ${firstSentence(tool.description)}`;
  });
  const lines = [
    '# Campaign platform',
    '',
    '> A marketing-campaign platform. Workspaces manage campaigns and their variants, products, surfaces and',
    '> zones, brand material, analytics, AI-generated campaigns, video renders and commissioned films. Agents',
    '> operate a workspace through an MCP tool server; every published brand site is public and agent-readable.',
    '',
    'This site is anonymous: it sets no cookie and accepts no credential.',
    '',
    '- To **operate** a workspace, use the tool server (MCP, Streamable HTTP) at',
    `  \`${urls.mcp}\`. Every connection is bound to one workspace and needs a credential: OAuth 2.1 with PKCE`,
    '  (any spec-compliant MCP client bootstraps it from the endpoint URL alone) or a workspace API key in the',
    `  \`x-api-key\` header. A human must first create the account and workspace in the dashboard at`,
    `  ${urls.dashboard}; there is no agent sign-up. Step-by-step instructions: ${urls.authMd}.`,
    "- To **read** a brand's public content, no credential is needed. Each published brand lives at",
    `  \`${brandSitePattern}\` (or its verified custom domain) and serves its own \`/llms.txt\`,`,
    '  markdown twins of every page (`Accept: text/markdown`), a concierge at `POST /ask`,',
    '  `/.well-known/agent-card.json`, `/.well-known/agent-skills/index.json`, `/auth.md`, `/sitemap.xml`',
    '  and `/robots.txt`.',
    '',
    `Ground rules: query before managing; confirm with the user before any change and before any credit spend;`,
    'poll long jobs instead of restarting them. `query_*` tools and `get_platform_info` are read-only.',
    '',
    `Default tools (profile \`${toolServer.profile}\`, what a connection without a call code sees):`,
    '',
    ...toolLines,
    '',
    '## Tool server',
    '',
    `- [MCP endpoint](${urls.mcp}): POST MCP messages (Streamable HTTP, JSON responses); 401 with a \`WWW-Authenticate\` challenge until authorized`,
    `- [Authorization guide](${urls.authMd}): OAuth 2.1 + PKCE step by step, or a workspace API key`,
    `- [MCP server card](${urls.serverCard}): the default tool set and the OAuth metadata`,
    `- [API catalog](${urls.apiCatalog}): RFC 9727 linkset of the platform's APIs`,
    '',
    '## Authorization metadata',
    '',
    `- [Protected-resource metadata](${urls.protectedResourceMetadata}): RFC 9728, for the tool server`,
    `- [Authorization-server metadata](${urls.authorizationServerMetadata}): RFC 8414: registration, authorize, token and revocation endpoints`,
    '',
    '## For humans',
    '',
    `- [Dashboard](${urls.dashboard}): sign up, create workspaces, invite members, create API keys (Settings → API keys), review connected apps and credits`,
    '',
    '## Optional',
    '',
    `- [Root-site protected-resource metadata](${links.base}/.well-known/oauth-protected-resource): this site accepts no credential, so no scopes apply`,
    '',
  ];
  return lines.join('\n');
}
