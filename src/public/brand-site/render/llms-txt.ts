/**
 * The brand's `/llms.txt` (llmstxt.org, reference §7.1): H1 with the brand's name, a one-paragraph summary
 * in a blockquote (which also tells agents that every page has a markdown twin), details, then link lists:
 * campaigns, products, pages, agent resources, and `## Optional` last. Every link is absolute. Brand text is
 * escaped like any markdown twin; the platform's own notes are written as markdown.
 */
import { BRAND_PATHS, BRAND_SKILL_NAMES, sitePaths } from '../site-model.ts';
import { SKILLS_INDEX_PATH, skillPath } from '../../well-known/agent-skills.ts';
import { markdownLine, markdownLink, markdownParagraphs } from './markdown.ts';
import { campaignLink, productLink } from './pages.ts';
import { surfaceSummary, type SiteIndex } from './site-index.ts';
import type { LinkItem } from './content.ts';
import { oneLine } from './text.ts';

export const LLMS_TXT_PATH = '/llms.txt';
/** `.txt` as plain text: every client shows it inline; its content is markdown by the llms.txt convention. */
export const LLMS_TXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** The well-known files rendered by `src/public/well-known` (its `WELL_KNOWN_PATHS`; a unit test keeps them equal). */
export const AGENT_FILE_PATHS = {
  agentCard: '/.well-known/agent-card.json',
  authMd: '/auth.md',
  skillsIndex: SKILLS_INDEX_PATH,
  serverCard: '/.well-known/mcp/server-card.json',
} as const;

function item(index: SiteIndex, link: LinkItem): string {
  const note = link.note ? `: ${markdownLine(link.note)}` : '';
  return `- ${markdownLink(link.text, link.href, index.origin)}${note}`;
}

/** A link with a note written by the platform (markdown kept as is). */
function resource(index: SiteIndex, text: string, path: string, note: string): string {
  return `- ${markdownLink(text, path, index.origin)}: ${note}`;
}

export function renderBrandLlmsTxt(index: SiteIndex, sitemapPath: string): string {
  const { profile } = index.site.snapshot.brand;
  const url = (path: string) => `${index.origin}${path}`;
  const about = profile.tagline ?? profile.description;
  const sentence = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`);
  const summary = [
    sentence(about ? markdownLine(oneLine(about, 400)) : `The public site of ${markdownLine(index.brandName)}`),
    'This site lists its live campaigns and products; any page returns a markdown twin when fetched with',
    '`Accept: text/markdown`.',
  ].join(' ');
  const lines = [`# ${markdownLine(index.brandName)}`, '', `> ${summary}`, ''];
  // The tagline is the summary; the longer description follows as the details.
  if (profile.tagline && profile.description)
    lines.push(...markdownParagraphs(profile.description).flatMap((p) => [p, '']));
  lines.push(
    `To ask a question, send \`POST ${url(BRAND_PATHS.ask)}\` with the JSON body \`{"query": "..."}\`: the concierge`,
    'answers from this site only, with links to its sources. Nothing listed here needs an account or a credential.',
    '',
  );
  if (index.campaigns.length === 0) lines.push('No campaign is running right now.', '');
  else
    lines.push(
      '## Campaigns',
      '',
      ...index.campaigns.map((campaign) => item(index, campaignLink(index, campaign))),
      '',
    );
  if (index.products.length > 0) {
    lines.push('## Products', '', ...index.products.map((product) => item(index, productLink(product))), '');
  }
  lines.push(
    '## Pages',
    '',
    resource(
      index,
      'Home',
      sitePaths.home,
      `${markdownLine(index.brandName)} at a glance: campaigns, products, contact`,
    ),
    resource(index, 'Campaigns', sitePaths.campaigns, 'every live campaign'),
    resource(index, 'Products', sitePaths.products, 'every product in a live campaign'),
    ...index.surfacePages.map((page) =>
      item(index, { text: page.title, href: sitePaths.surface(page.path), note: surfaceSummary(page) }),
    ),
    '',
    '## Agent resources',
    '',
    resource(
      index,
      'Concierge',
      BRAND_PATHS.ask,
      '`POST` JSON `{"query": "..."}`; answers questions about this brand with source links',
    ),
    resource(
      index,
      'Agent skills index',
      AGENT_FILE_PATHS.skillsIndex,
      `the skills ${BRAND_SKILL_NAMES.map((name) => `\`${name}\``).join(', ')} with their sha256 digests`,
    ),
    ...BRAND_SKILL_NAMES.map((name) => resource(index, `Skill ${name}`, skillPath(name), 'SKILL.md')),
    resource(index, 'Agent card', AGENT_FILE_PATHS.agentCard, "the concierge's A2A agent card"),
    resource(
      index,
      'Authorization guide',
      AGENT_FILE_PATHS.authMd,
      "how to operate this brand's campaigns through the platform's tool server (needs an account)",
    ),
    resource(
      index,
      'MCP server card',
      AGENT_FILE_PATHS.serverCard,
      "the platform tool server's default tools and OAuth metadata",
    ),
    '',
    '## Optional',
    '',
    resource(index, 'Sitemap', sitemapPath, 'every page with its last modification time'),
    '',
  );
  return lines.join('\n');
}
