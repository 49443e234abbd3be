/**
 * The brand's three agent skills (spec G rule 1) and their discovery index, in the formats of reference §5:
 * each skill is one SKILL.md (agentskills.io: YAML front matter with `name` and `description`, then
 * instructions), listed by `/.well-known/agent-skills/index.json` (Agent Skills Discovery v0.2.0) with a
 * `sha256:` digest of the exact bytes served. The skills are about consuming this brand's public surface, so
 * every URL in them is this brand's own.
 *
 * Front-matter values are written as JSON strings, which are valid YAML double-quoted scalars: brand names
 * with colons, quotes or `#` cannot break the YAML.
 */
import { createHash } from 'node:crypto';
import { BRAND_PATHS, BRAND_SKILL_NAMES, sitePaths, type PublishedSite } from '../brand-site/site-model.ts';
import { brandIdentity, oneLine } from './agent-card.ts';

export type BrandSkillName = (typeof BRAND_SKILL_NAMES)[number];

export const SKILLS_INDEX_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const SKILLS_INDEX_PATH = '/.well-known/agent-skills/index.json';

export function skillPath(name: string): string {
  return `/.well-known/agent-skills/${name}/SKILL.md`;
}

/** `sha256:` + 64 lowercase hex over the UTF-8 bytes of `body` (what the brand host serves, byte for byte). */
export function sha256Digest(body: string): string {
  return `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`;
}

export interface SkillDocument {
  name: BrandSkillName;
  description: string;
  path: string;
  body: string;
}

export interface SkillsIndex {
  $schema: typeof SKILLS_INDEX_SCHEMA;
  skills: { name: string; type: 'skill-md'; description: string; url: string; digest: string }[];
}

function frontMatter(name: string, description: string, site: PublishedSite, brandName: string): string[] {
  return [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(description)}`,
    'metadata:',
    `  brand: ${JSON.stringify(brandName)}`,
    `  site: ${JSON.stringify(site.origin)}`,
    '---',
    '',
  ];
}

function askVenue(site: PublishedSite, brand: string): { description: string; lines: string[] } {
  const ask = `${site.origin}${BRAND_PATHS.ask}`;
  const a2a = `${site.origin}${BRAND_PATHS.a2a}`;
  const sample = site.snapshot.brand.concierge.faq[0]?.question;
  const question = sample ? oneLine(sample, 200) : `Which campaigns is ${brand} running right now?`;
  const description = oneLine(
    `Ask ${brand}'s concierge a question and get an answer grounded in ${brand}'s published campaigns, ` +
      `products and FAQ, with source links. Use when someone asks what ${brand} offers, sells or is promoting.`,
    1024,
  );
  const lines = [
    `# Ask ${brand}'s concierge`,
    '',
    `The concierge at \`${ask}\` answers from ${brand}'s published site only. It is anonymous: send no`,
    'account, token, API key or cookie. It only reads; asking never changes anything.',
    '',
    '## 1. Ask',
    '',
    '```http',
    `POST ${ask}`,
    'Content-Type: application/json',
    '',
    JSON.stringify({ query: question }),
    '```',
    '',
    'Request fields:',
    '',
    '- `query` (required): the question, as a string or as `{"text": "..."}`.',
    '- `conversationId` (optional): the `conversationId` of an earlier answer, to continue that conversation.',
    '- `prev` (optional): the earlier turns, either as the earlier questions (`["...", "..."]`) or as',
    '  `[{"query": "...", "answer": "..."}]`, oldest first.',
    `- \`site\` (optional): accepted for NLWeb-style clients; this host only ever answers about ${brand}.`,
    '',
    '## 2. Read the answer',
    '',
    'A `200` answer is `application/json`:',
    '',
    '```json',
    JSON.stringify(
      {
        answer: '…',
        answered: true,
        sources: [{ url: `${site.origin}${sitePaths.campaigns}`, title: 'Campaigns' }],
        suggestions: ['…'],
        conversationId: '…',
      },
      null,
      2,
    ),
    '```',
    '',
    '- `answer`: the reply, to show or quote.',
    `- \`answered\`: \`false\` when ${brand}'s published content does not cover the question; then say so and`,
    '  do not make up an answer (`answer` explains, and may say where to ask instead).',
    '- `sources`: the pages the answer used (`url`, `title`). Cite them; fetch them for details.',
    '- `suggestions`: follow-up questions the concierge can answer.',
    '- `conversationId`: send it back with the next question.',
    '',
    '## 3. Follow up',
    '',
    '```json',
    JSON.stringify({ query: 'And how long does it run?', conversationId: '<conversationId>', prev: [question] }),
    '```',
    '',
    '## A2A',
    '',
    `The same concierge speaks A2A 1.0 over JSON-RPC at \`${a2a}\`, as declared by`,
    `\`${site.origin}/.well-known/agent-card.json\`. Send the header \`A2A-Version: 1.0\` and:`,
    '',
    '```json',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: '<unique id>', role: 'ROLE_USER', parts: [{ text: question }] } },
    }),
    '```',
    '',
    '## Errors',
    '',
    '- `429` with `Retry-After`: too many questions from you; wait that many seconds before asking again.',
    '- Another `4xx` with a JSON `error` and `error_description`: fix the request as described.',
    `- If the concierge is unavailable, read the pages instead (skill \`fetch-campaign-content\`).`,
    '',
  ];
  return { description, lines };
}

function fetchCampaignContent(site: PublishedSite, brand: string): { description: string; lines: string[] } {
  const first = site.snapshot.campaigns[0];
  const example = `${site.origin}${first ? sitePaths.campaign(first.slug) : sitePaths.campaign('<campaign-slug>')}`;
  const description = oneLine(
    `Retrieve ${brand}'s published campaign and product pages as clean markdown. Use when you need the ` +
      `exact wording, offer, dates or products of one of ${brand}'s campaigns.`,
    1024,
  );
  const lines = [
    `# Fetch ${brand}'s campaign content`,
    '',
    'Every page of this site has a markdown twin at the same URL. No credentials are needed.',
    '',
    `1. Find the page. Campaigns are at \`${site.origin}${sitePaths.campaigns}/<campaign-slug>\`${first ? ` (for example \`${example}\`)` : ''},`,
    `   products at \`${site.origin}${sitePaths.products}/<product-id>\`. The index pages`,
    `   \`${site.origin}${sitePaths.campaigns}\` and \`${site.origin}${sitePaths.products}\` and`,
    `   \`${site.origin}/llms.txt\` link to every one (skill \`discover-campaigns\`).`,
    '2. Fetch it as markdown:',
    '',
    '   ```http',
    `   GET ${example}`,
    '   Accept: text/markdown',
    '   ```',
    '',
    '   The answer is `Content-Type: text/markdown; charset=utf-8`. Appending `.md` to the path',
    `   (\`${example}.md\`) does the same without the header. Without either you get HTML, which also`,
    '   carries schema.org JSON-LD.',
    '3. Cache: answers carry `ETag` and `Last-Modified`. Send `If-None-Match` on the next fetch; `304` means',
    '   nothing changed.',
    '',
    'A campaign can have several variants; a page shows one of them. Quote what you fetched, and link to the',
    'page rather than copying it whole.',
    '',
    `For a direct question rather than a page, use skill \`ask-venue\` (\`POST ${site.origin}${BRAND_PATHS.ask}\`).`,
    '',
  ];
  return { description, lines };
}

function discoverCampaigns(site: PublishedSite, brand: string): { description: string; lines: string[] } {
  const description = oneLine(
    `List ${brand}'s public campaigns and products from its llms.txt, sitemap and campaign index. ` +
      `Use when asked what ${brand} is currently promoting or what changed on its site.`,
    1024,
  );
  const lines = [
    `# Discover ${brand}'s campaigns`,
    '',
    'Everything here is public: send no credentials.',
    '',
    `1. \`GET ${site.origin}/llms.txt\`: the map of the site. It lists every live campaign with a link and a`,
    '   one-line summary, the products, and the agent resources (agent card, skills, concierge).',
    `2. \`GET ${site.origin}${sitePaths.campaigns}\` with \`Accept: text/markdown\`: the campaign index, with each`,
    `   campaign's page under \`${site.origin}${sitePaths.campaigns}/<campaign-slug>\`.`,
    `3. \`GET ${site.origin}/sitemap.xml\`: every page with its \`<lastmod>\`; compare with your last visit to`,
    '   find what changed, and refetch only those pages.',
    `4. \`GET ${site.origin}/robots.txt\` before crawling more than a few pages, and follow it.`,
    '',
    'Then read a campaign with skill `fetch-campaign-content`, or ask about it with skill `ask-venue`.',
    '',
  ];
  return { description, lines };
}

const BUILDERS: Record<
  BrandSkillName,
  (site: PublishedSite, brand: string) => { description: string; lines: string[] }
> = {
  'ask-venue': askVenue,
  'fetch-campaign-content': fetchCampaignContent,
  'discover-campaigns': discoverCampaigns,
};

export function renderBrandSkills(site: PublishedSite): SkillDocument[] {
  const { name: brand } = brandIdentity(site);
  return BRAND_SKILL_NAMES.map((name) => {
    const { description, lines } = BUILDERS[name](site, brand);
    return {
      name,
      description,
      path: skillPath(name),
      body: [...frontMatter(name, description, site, brand), ...lines].join('\n'),
    };
  });
}

/** The discovery index; `url`s are path-absolute so they resolve on whichever host (subdomain or custom domain) served it. */
export function buildSkillsIndex(skills: readonly SkillDocument[]): SkillsIndex {
  return {
    $schema: SKILLS_INDEX_SCHEMA,
    skills: skills.map((skill) => ({
      name: skill.name,
      type: 'skill-md',
      description: skill.description,
      url: skill.path,
      digest: sha256Digest(skill.body),
    })),
  };
}
