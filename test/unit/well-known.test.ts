/**
 * The brand site's agent-facing well-known files, rendered from a publication (no database): the skills
 * index digests match the SKILL.md bytes, the front matter is well formed, the agent card satisfies the A2A
 * SDK's type and round-trips through its parser, the server card lists the default profile exactly as
 * `tools/list` does, auth.md names this deployment's real URLs, and rendering is deterministic.
 */
import { createHash } from 'node:crypto';
import { A2A_PROTOCOL_VERSION, AgentCard } from '@a2a-js/sdk';
import { DEFAULT_BRANDBOOK, DEFAULT_CONCIERGE } from '../../src/domain/brand/brand-defaults.ts';
import { DEFAULT_PROFILE, DEFAULT_TOOLS } from '../../src/mcp/profiles.ts';
import { ALL_TOOLS, CATALOGUE } from '../../src/mcp/registry.ts';
import { TOOL_SERVER_LISTING } from '../../src/mcp/tool-listing.ts';
import {
  BRAND_SKILL_NAMES,
  type PlatformLinks,
  type PublishedSite,
  type RenderedFile,
} from '../../src/public/brand-site/site-model.ts';
import { buildBrandAgentCard, renderBrandAgentFiles, WELL_KNOWN_PATHS } from '../../src/public/well-known/index.ts';
import { API_CATALOG_PROFILE, buildApiCatalog, renderRootLlmsTxt } from '../../src/public/root-site/index.ts';

const links: PlatformLinks = {
  base: 'https://campaigns.example.com',
  platform: 'https://app.campaigns.example.com',
  auth: 'https://auth.campaigns.example.com',
};

function publication(overrides: { displayName?: string; version?: number } = {}): PublishedSite {
  const displayName = overrides.displayName ?? 'Acme Coffee';
  return {
    workspaceId: 'ws_01',
    slug: 'acme',
    version: overrides.version ?? 7,
    publishedAt: '2026-11-22T08:00:00.000Z',
    origin: 'https://acme.brands.example.com',
    snapshot: {
      workspace: { id: 'ws_01', name: 'Acme', slug: 'acme' },
      brand: {
        brandbook: DEFAULT_BRANDBOOK,
        profile: {
          displayName,
          tagline: 'Roasted in small batches',
          description: 'Specialty coffee roaster\nfrom Lisbon.',
          website: 'https://acme.example',
          contactEmail: null,
          sameAs: [],
        },
        concierge: {
          ...DEFAULT_CONCIERGE,
          faq: [{ question: 'Do you ship abroad?', answer: 'Yes, across the EU.' }],
        },
        updatedAt: '2026-11-20T10:00:00.000Z',
      },
      campaigns: [
        {
          id: 'cmp_01',
          name: 'Autumn roast launch',
          summary: null,
          slug: 'autumn-roast',
          startsAt: null,
          endsAt: null,
          publishedAt: '2026-11-21T09:00:00.000Z',
          updatedAt: '2026-11-21T09:00:00.000Z',
          variants: [],
          products: [],
        },
      ],
      surfaces: [],
    },
  };
}

function fileAt(files: RenderedFile[], path: string): RenderedFile {
  const file = files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`no file rendered at ${path}; rendered: ${files.map((f) => f.path).join(', ')}`);
  return file;
}

/**
 * The front matter as key → value. Values are YAML double-quoted scalars written as JSON strings (or plain
 * names), so JSON.parse reads them; anything else fails the test.
 */
function parseFrontMatter(body: string): { fields: Record<string, string>; metadata: Record<string, string> } {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(body);
  if (!match) throw new Error('SKILL.md does not start with a front-matter block');
  const fields: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  let inMetadata = false;
  for (const line of match[1]!.split('\n')) {
    if (line === 'metadata:') {
      inMetadata = true;
      continue;
    }
    const entry = /^( {2})?([a-z-]+): (.+)$/.exec(line);
    if (!entry) throw new Error(`unexpected front-matter line: ${line}`);
    const [, indent, key, raw] = entry;
    const value = raw!.startsWith('"') ? (JSON.parse(raw!) as string) : raw!;
    if (indent) {
      expect(inMetadata).toBe(true);
      metadata[key!] = value;
    } else {
      inMetadata = false;
      fields[key!] = value;
    }
  }
  return { fields, metadata };
}

const site = publication();
const files = renderBrandAgentFiles(site, links, TOOL_SERVER_LISTING);

describe('the agent skills', () => {
  const index = JSON.parse(fileAt(files, WELL_KNOWN_PATHS.skillsIndex).body) as {
    $schema: string;
    skills: { name: string; type: string; description: string; url: string; digest: string }[];
  };

  it('lists exactly the three skills, in the discovery v0.2.0 format', () => {
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.map((skill) => skill.name)).toEqual([...BRAND_SKILL_NAMES]);
    for (const skill of index.skills) {
      expect(skill.type).toBe('skill-md');
      expect(skill.url).toBe(`/.well-known/agent-skills/${skill.name}/SKILL.md`);
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.description.length).toBeGreaterThan(0);
      expect(skill.description.length).toBeLessThanOrEqual(1024);
    }
  });

  it('gives each skill the sha256 of the exact bytes served', () => {
    for (const skill of index.skills) {
      const served = fileAt(files, skill.url);
      const expected = createHash('sha256').update(Buffer.from(served.body, 'utf8')).digest('hex');
      expect(skill.digest).toBe(`sha256:${expected}`);
      expect(skill.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('serves every SKILL.md as markdown with front matter naming its directory and repeating the description', () => {
    for (const skill of index.skills) {
      const served = fileAt(files, skill.url);
      expect(served.contentType).toBe('text/markdown; charset=utf-8');
      const { fields, metadata } = parseFrontMatter(served.body);
      expect(fields.name).toBe(skill.url.split('/').at(-2));
      expect(fields.description).toBe(skill.description);
      expect(metadata).toEqual({ brand: 'Acme Coffee', site: site.origin });
    }
  });

  it("uses the brand's own URLs and the concierge's real request and response fields", () => {
    const ask = fileAt(files, '/.well-known/agent-skills/ask-venue/SKILL.md').body;
    expect(ask).toContain(`POST ${site.origin}/ask`);
    expect(ask).toContain(`${site.origin}/a2a`);
    for (const field of [
      '`query`',
      '`conversationId`',
      '`prev`',
      '`answer`',
      '`answered`',
      '`sources`',
      '`suggestions`',
    ]) {
      expect(ask).toContain(field);
    }
    const fetch = fileAt(files, '/.well-known/agent-skills/fetch-campaign-content/SKILL.md').body;
    expect(fetch).toContain(`GET ${site.origin}/campaigns/autumn-roast`);
    expect(fetch).toContain('Accept: text/markdown');
    const discover = fileAt(files, '/.well-known/agent-skills/discover-campaigns/SKILL.md').body;
    for (const url of ['/llms.txt', '/sitemap.xml', '/campaigns']) expect(discover).toContain(`${site.origin}${url}`);
  });

  it('keeps the YAML valid whatever the brand is called', () => {
    const odd = renderBrandAgentFiles(
      publication({ displayName: 'Joe\'s "Beans": #1\nCafé' }),
      links,
      TOOL_SERVER_LISTING,
    );
    const skill = fileAt(odd, '/.well-known/agent-skills/ask-venue/SKILL.md');
    const { metadata, fields } = parseFrontMatter(skill.body);
    expect(metadata.brand).toBe('Joe\'s "Beans": #1 Café');
    expect(fields.description).toContain('Joe\'s "Beans": #1 Café');
  });
});

describe('the agent card', () => {
  it('is an A2A card of the SDK type, pointing at the JSON-RPC binding on /a2a, with no security', () => {
    const card: AgentCard = buildBrandAgentCard(site);
    expect(card.supportedInterfaces).toEqual([
      { url: `${site.origin}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${site.origin}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(A2A_PROTOCOL_VERSION).toBe('1.0');
    expect(card.securitySchemes).toEqual({});
    expect(card.securityRequirements).toEqual([]);
  });

  it('serves the JSON that the SDK parses back into the same card', () => {
    const file = fileAt(files, WELL_KNOWN_PATHS.agentCard);
    expect(file.contentType).toBe('application/json');
    const json = JSON.parse(file.body) as Record<string, unknown>;
    expect(AgentCard.fromJSON(json)).toEqual(buildBrandAgentCard(site));
    expect(json).toMatchObject({
      name: 'Acme Coffee concierge',
      provider: { organization: 'Acme Coffee', url: 'https://acme.example' },
      documentationUrl: `${site.origin}/llms.txt`,
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'text/markdown'],
    });
    expect(json.description).toContain('Specialty coffee roaster from Lisbon.');
    expect(json).not.toHaveProperty('securitySchemes');
    const skills = json.skills as { id: string; tags: string[]; examples: string[] }[];
    expect(skills.length).toBeGreaterThanOrEqual(1);
    expect(skills.length).toBeLessThanOrEqual(2);
    for (const skill of skills) expect(skill.tags.length).toBeGreaterThan(0);
    expect(skills[0]!.examples).toContain('Do you ship abroad?');
  });
});

describe('the server card', () => {
  const card = JSON.parse(fileAt(files, WELL_KNOWN_PATHS.serverCard).body) as {
    $schema: string;
    name: string;
    description: string;
    remotes: { type: string; url: string }[];
    _meta: Record<string, unknown>;
  };
  const defaultTools = (card._meta['com.example.campaigns/default-tools'] as {
    profile: string;
    tools: { name: string; title: string; description: string; annotations: { readOnlyHint: boolean } }[];
  })!;

  it('has the draft shape, with the tool server as a streamable-http remote', () => {
    expect(card.$schema).toBe('https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(card.name.startsWith('com.example.campaigns/')).toBe(true);
    expect(card.description.length).toBeLessThanOrEqual(100);
    expect(card.remotes).toEqual([
      expect.objectContaining({ type: 'streamable-http', url: 'https://app.campaigns.example.com/api/mcp' }),
    ]);
  });

  it('lists the default profile exactly as tools/list gives it, in the spec order', () => {
    const listing = CATALOGUE.get(DEFAULT_PROFILE)!.listing;
    const implemented = DEFAULT_TOOLS.filter((name) => ALL_TOOLS.some((tool) => tool.name === name));
    expect(defaultTools.profile).toBe('external_default');
    expect(defaultTools.tools.map((tool) => tool.name)).toEqual(implemented);
    expect(defaultTools.tools).toHaveLength(15);
    expect(defaultTools.tools).toEqual(
      listing.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        annotations: tool.annotations,
      })),
    );
    for (const tool of defaultTools.tools) {
      const readOnly = tool.name.startsWith('query_') || tool.name === 'get_platform_info';
      expect(tool.annotations.readOnlyHint).toBe(readOnly);
    }
  });

  it('carries the OAuth metadata under the namespaced key', () => {
    expect(card._meta['com.example.campaigns/oauth']).toMatchObject({
      authorization_server: links.auth,
      authorization_server_metadata: `${links.auth}/.well-known/oauth-authorization-server`,
      protected_resource_metadata: `${links.platform}/.well-known/oauth-protected-resource/mcp`,
      scopes_supported: ['mcp:read', 'mcp:write'],
      code_challenge_methods_supported: ['S256'],
    });
  });
});

describe('auth.md', () => {
  const auth = fileAt(files, WELL_KNOWN_PATHS.authMd);

  it("names this deployment's real endpoints", () => {
    expect(auth.contentType).toBe('text/markdown; charset=utf-8');
    for (const url of [
      `${links.platform}/api/mcp`,
      `${links.platform}/.well-known/oauth-protected-resource/mcp`,
      `${links.auth}/.well-known/oauth-authorization-server`,
      `${links.auth}/oauth/register`,
      `${links.auth}/oauth/authorize`,
      `${links.auth}/oauth/token`,
      `${links.auth}/oauth/token/revoke`,
    ]) {
      expect(auth.body).toContain(url);
    }
    for (const text of [
      'S256',
      'mcp:read mcp:write',
      'offline_access',
      'x-api-key',
      'API keys',
      '429',
      'Retry-After',
    ]) {
      expect(auth.body).toContain(text);
    }
    expect(auth.body).toContain(`resource_metadata="${links.platform}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('says that reading the brand needs none of it', () => {
    expect(auth.body).toContain('Reading Acme Coffee needs none of this');
    expect(auth.body).toContain(site.origin);
  });
});

describe('rendering', () => {
  it('is deterministic and stamps every file with the publication time', () => {
    expect(renderBrandAgentFiles(publication(), links, TOOL_SERVER_LISTING)).toEqual(files);
    for (const file of files) expect(file.lastModified).toBe(site.publishedAt);
    expect(new Set(files.map((file) => file.path)).size).toBe(files.length);
    expect(files.map((file) => file.path).sort()).toEqual(
      [
        '/.well-known/agent-card.json',
        '/auth.md',
        '/.well-known/agent-skills/index.json',
        '/.well-known/agent-skills/ask-venue/SKILL.md',
        '/.well-known/agent-skills/fetch-campaign-content/SKILL.md',
        '/.well-known/agent-skills/discover-campaigns/SKILL.md',
        '/.well-known/mcp/server-card.json',
      ].sort(),
    );
  });

  it('keeps skill digests across republishes of the same content, and changes them when the content changes', () => {
    const digests = (rendered: RenderedFile[]) =>
      (JSON.parse(fileAt(rendered, WELL_KNOWN_PATHS.skillsIndex).body) as { skills: { digest: string }[] }).skills.map(
        (skill) => skill.digest,
      );
    // A client that cached a verified skill need not fetch it again after every unrelated republish.
    expect(digests(renderBrandAgentFiles(publication({ version: 8 }), links, TOOL_SERVER_LISTING))).toEqual(
      digests(files),
    );
    expect(
      digests(renderBrandAgentFiles(publication({ displayName: 'Other Roasters' }), links, TOOL_SERVER_LISTING)),
    ).not.toEqual(digests(files));
  });
});

describe('the root documents', () => {
  it('anchor the API catalog at the MCP endpoint with absolute links', () => {
    const catalog = buildApiCatalog(links);
    expect(API_CATALOG_PROFILE).toBe('https://www.rfc-editor.org/info/rfc9727');
    expect(catalog.linkset[0]!.anchor).toBe(`${links.platform}/api/mcp`);
  });

  it('write llms.txt with the brand-site pattern', () => {
    const text = renderRootLlmsTxt({
      links,
      brandSitePattern: 'https://<slug>.brands.example.com',
      toolServer: TOOL_SERVER_LISTING,
    });
    expect(text.startsWith('# ')).toBe(true);
    expect(text).toContain('https://<slug>.brands.example.com');
  });
});
