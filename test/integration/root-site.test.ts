/**
 * The root public site over real HTTP on the real platform: llms.txt, auth.md, the RFC 9727 API catalog
 * (GET and HEAD), the MCP server card and the protected-resource metadata. Every answer is public (CORS `*`),
 * cacheable with an ETag, sets no cookie, and is the same whether or not the request carries a credential.
 */
import { TOOL_SERVER_LISTING } from '../../src/mcp/tool-listing.ts';
import { buildServerCard } from '../../src/public/well-known/server-card.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let base: string;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'rootsite' });
  base = platform.urls.base;
});

afterAll(async () => {
  await closeTestFetch();
  await platform?.close();
});

const DOCUMENTS = [
  { path: '/llms.txt', contentType: 'text/plain; charset=utf-8' },
  { path: '/auth.md', contentType: 'text/markdown; charset=utf-8' },
  {
    path: '/.well-known/api-catalog',
    contentType: 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  },
  { path: '/.well-known/mcp/server-card.json', contentType: 'application/json' },
  { path: '/.well-known/oauth-protected-resource', contentType: 'application/json' },
] as const;

async function fetchText(url: string, init: RequestInit = {}) {
  const response = await testFetch(url, init);
  return { response, body: await response.text() };
}

describe('every root document', () => {
  it.each(DOCUMENTS)('is served at $path, public and cacheable', async ({ path, contentType }) => {
    const { response, body } = await fetchText(`${base}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers.get('link')).toBe(`<${base}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(body.length).toBeGreaterThan(0);
  });

  it.each(DOCUMENTS)(
    'answers $path the same with or without credentials, and never sets a cookie',
    async ({ path }) => {
      const anonymous = await fetchText(`${base}${path}`);
      const credentialHeaders: Record<string, string>[] = [
        { authorization: 'Bearer x' },
        { cookie: 'a=b' },
        { 'x-api-key': 'cpk_not_a_real_key' },
        { authorization: 'Basic dXNlcjpwYXNz', cookie: 'session=abc; other=1', 'x-api-key': 'k' },
      ];
      for (const headers of credentialHeaders) {
        const withCredential = await fetchText(`${base}${path}`, { headers });
        expect(withCredential.response.status).toBe(anonymous.response.status);
        expect(withCredential.body).toBe(anonymous.body);
        expect(withCredential.response.headers.get('content-type')).toBe(
          anonymous.response.headers.get('content-type'),
        );
        expect(withCredential.response.headers.get('etag')).toBe(anonymous.response.headers.get('etag'));
        expect(withCredential.response.headers.get('set-cookie')).toBeNull();
        expect(withCredential.response.headers.get('www-authenticate')).toBeNull();
      }
    },
  );

  it.each(DOCUMENTS)('answers a matching If-None-Match on $path with 304', async ({ path }) => {
    const first = await testFetch(`${base}${path}`);
    const etag = first.headers.get('etag')!;
    const again = await testFetch(`${base}${path}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it.each(DOCUMENTS)('allows any origin to preflight $path', async ({ path }) => {
    const response = await testFetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('answers an unknown path with 404 and no cookie', async () => {
    const response = await testFetch(`${base}/.well-known/nothing-here`, { headers: { cookie: 'a=b' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('set-cookie')).toBeNull();
  });
});

describe('/.well-known/api-catalog', () => {
  type Target = { href: string; type?: string; title?: string };
  type Context = { anchor: string } & Record<string, unknown>;

  async function catalog(): Promise<Context[]> {
    const response = await testFetch(`${base}/.well-known/api-catalog`, {
      headers: { accept: 'application/linkset+json' },
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { linkset: Context[] };
    expect(Object.keys(json)).toEqual(['linkset']);
    expect(Array.isArray(json.linkset)).toBe(true);
    return json.linkset;
  }

  it('is a linkset anchored at the MCP endpoint, with absolute targets for every relation', async () => {
    const linkset = await catalog();
    expect(linkset).toHaveLength(1);
    const context = linkset[0]!;
    expect(context.anchor).toBe(platform.urls.mcp);
    const relations = Object.keys(context).filter((key) => key !== 'anchor');
    expect(relations.sort()).toEqual(['service-desc', 'service-doc', 'service-meta']);
    for (const relation of relations) {
      const targets = context[relation] as Target[];
      expect(Array.isArray(targets)).toBe(true);
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) {
        expect(new URL(target.href).href).toBe(target.href);
        expect(typeof target.type).toBe('string');
      }
    }
    expect((context['service-desc'] as Target[]).map((t) => t.href)).toEqual([
      `${base}/.well-known/mcp/server-card.json`,
    ]);
    expect((context['service-doc'] as Target[]).map((t) => t.href)).toContain(`${base}/llms.txt`);
    expect((context['service-meta'] as Target[]).map((t) => t.href)).toEqual([
      `${platform.urls.platform}/.well-known/oauth-protected-resource/mcp`,
      `${platform.urls.auth}/.well-known/oauth-authorization-server`,
    ]);
  });

  it('links only to documents that are served, with the media type they are served as', async () => {
    const context = (await catalog())[0]!;
    for (const relation of ['service-desc', 'service-doc', 'service-meta']) {
      for (const target of context[relation] as Target[]) {
        const response = await testFetch(target.href);
        expect({ href: target.href, status: response.status }).toEqual({ href: target.href, status: 200 });
        expect(response.headers.get('content-type')?.split(';')[0]).toBe(target.type);
        await response.arrayBuffer();
      }
    }
  });

  it('answers HEAD with 200, no body and the api-catalog Link header', async () => {
    const response = await testFetch(`${base}/.well-known/api-catalog`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBe(`<${base}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(response.headers.get('content-type')).toContain('application/linkset+json');
    expect(await response.text()).toBe('');
  });
});

describe('/llms.txt', () => {
  it('follows the llms.txt structure: H1, summary, details, then sections of links', async () => {
    const { body } = await fetchText(`${base}/llms.txt`);
    const lines = body.split('\n');
    expect(lines[0]).toBe('# Campaign platform');
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(1);
    expect(lines[2]!.startsWith('> ')).toBe(true);

    const firstSection = lines.findIndex((line) => line.startsWith('## '));
    expect(firstSection).toBeGreaterThan(3);
    const sections: { title: string; items: string[] }[] = [];
    for (const line of lines.slice(firstSection)) {
      if (line.startsWith('## ')) sections.push({ title: line.slice(3), items: [] });
      else if (line.trim() !== '') sections.at(-1)!.items.push(line);
    }
    expect(sections.map((section) => section.title)).toEqual([
      'Tool server',
      'Authorization metadata',
      'For humans',
      'Optional',
    ]);
    const links: string[] = [];
    for (const section of sections) {
      expect(section.items.length).toBeGreaterThan(0);
      for (const item of section.items) {
        const match = /^- \[([^\]]+)\]\(([^)\s]+)\)(: .+)?$/.exec(item);
        expect({ item, matches: Boolean(match) }).toEqual({ item, matches: true });
        links.push(match![2]!);
      }
    }
    for (const link of links) expect(new URL(link).origin).toMatch(/^https?:\/\/[^/]+$/);
    expect(links).toEqual(
      expect.arrayContaining([
        platform.urls.mcp,
        `${base}/auth.md`,
        `${base}/.well-known/mcp/server-card.json`,
        `${base}/.well-known/api-catalog`,
        `${platform.urls.platform}/.well-known/oauth-protected-resource/mcp`,
        platform.urls.platform,
      ]),
    );
  });

  it('says where brand sites live and that they have their own llms.txt', async () => {
    const { body } = await fetchText(`${base}/llms.txt`);
    const port = new URL(base).port;
    expect(body).toContain(`http://<slug>.${platform.config.urls.brandRootDomain}:${port}`);
    expect(body).toContain('`/llms.txt`');
    expect(body).toContain('x-api-key');
  });

  it('links to documents that are all served (except the MCP endpoint, which only takes POST)', async () => {
    const { body } = await fetchText(`${base}/llms.txt`);
    const links = [...body.matchAll(/\]\((http[^)\s]+)\)/g)].map((match) => match[1]!);
    for (const link of links.filter((href) => href !== platform.urls.mcp)) {
      const response = await testFetch(link, { redirect: 'manual' });
      expect({ link, ok: response.status === 200 || response.status === 302 }).toEqual({ link, ok: true });
      await response.arrayBuffer();
    }
  });
});

describe('/.well-known/mcp/server-card.json and /auth.md', () => {
  it('serves the card built from this deployment and the live tool catalogue', async () => {
    const response = await testFetch(`${base}/.well-known/mcp/server-card.json`);
    const card = (await response.json()) as ReturnType<typeof buildServerCard>;
    expect(card).toEqual(
      buildServerCard(
        { base, platform: platform.urls.platform, auth: platform.urls.auth },
        TOOL_SERVER_LISTING,
      ) as unknown as Record<string, unknown>,
    );
    expect(card.remotes[0]!.url).toBe(platform.urls.mcp);
  });

  it('gives the real authorization endpoints, which the authorization server really serves', async () => {
    const { body } = await fetchText(`${base}/auth.md`);
    const metadata = (await (
      await testFetch(`${platform.urls.auth}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    for (const key of ['registration_endpoint', 'authorization_endpoint', 'token_endpoint', 'revocation_endpoint']) {
      expect(body).toContain(metadata[key] as string);
    }
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write', 'offline_access']));
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });
});
