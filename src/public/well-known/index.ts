/**
 * The agent-facing well-known files of a brand site (spec G): agent card, auth.md, the skills index with its
 * three SKILL.md files, and the MCP server card. Rendered once per publication by the republish activity and
 * stored with the rest of the site; the brand host serves them byte for byte (the skill digests depend on it).
 * Pure and deterministic: the same publication and links give the same bytes.
 */
import type { PlatformLinks, PublishedSite, RenderedFile } from '../brand-site/site-model.ts';
import type { ToolServerListing } from './server-card.ts';
import { brandIdentity, renderBrandAgentCardJson } from './agent-card.ts';
import { buildSkillsIndex, renderBrandSkills, SKILLS_INDEX_PATH } from './agent-skills.ts';
import { renderAuthMarkdown } from './auth-md.ts';
import { renderServerCardJson } from './server-card.ts';

export const JSON_CONTENT_TYPE = 'application/json';
export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';

export const WELL_KNOWN_PATHS = {
  agentCard: '/.well-known/agent-card.json',
  authMd: '/auth.md',
  skillsIndex: SKILLS_INDEX_PATH,
  serverCard: '/.well-known/mcp/server-card.json',
} as const;

/** `toolServer` is the MCP edge's listing of the default tools (`mcp/tool-listing.ts`), handed in as data. */
export function renderBrandAgentFiles(
  site: PublishedSite,
  links: PlatformLinks,
  toolServer: ToolServerListing,
): RenderedFile[] {
  const lastModified = site.publishedAt;
  const skills = renderBrandSkills(site);
  const json = (path: string, body: string): RenderedFile => ({
    path,
    contentType: JSON_CONTENT_TYPE,
    body,
    lastModified,
  });
  const markdown = (path: string, body: string): RenderedFile => ({
    path,
    contentType: MARKDOWN_CONTENT_TYPE,
    body,
    lastModified,
  });
  return [
    json(WELL_KNOWN_PATHS.agentCard, renderBrandAgentCardJson(site)),
    markdown(
      WELL_KNOWN_PATHS.authMd,
      renderAuthMarkdown(links, { kind: 'brand', brandName: brandIdentity(site).name, origin: site.origin }),
    ),
    json(WELL_KNOWN_PATHS.skillsIndex, `${JSON.stringify(buildSkillsIndex(skills), null, 2)}\n`),
    ...skills.map((skill) => markdown(skill.path, skill.body)),
    json(WELL_KNOWN_PATHS.serverCard, renderServerCardJson(links, toolServer)),
  ];
}

export { buildBrandAgentCard, brandIdentity } from './agent-card.ts';
export { buildSkillsIndex, renderBrandSkills, sha256Digest, skillPath, type SkillsIndex } from './agent-skills.ts';
export { renderAuthMarkdown, type AuthMarkdownAudience } from './auth-md.ts';
export {
  buildServerCard,
  renderServerCardJson,
  reverseDnsNamespace,
  type ServerCard,
  type ServerCardTool,
  type ToolServerListing,
} from './server-card.ts';
export { toolServerUrls, type ToolServerUrls } from './tool-server.ts';
