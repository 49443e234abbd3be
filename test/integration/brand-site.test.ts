/**
 * Brand hosts end to end: publishing through the real republish workflow and worker, then serving pages,
 * markdown twins, files and beacons from the rendered-site store over HTTP.
 */
import { createHash } from 'node:crypto';
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { v7 as uuidv7 } from 'uuid';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { eventually as pollEventually } from '../support/poll.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let site: string;
let campaignPath: string;

const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000) =>
  pollEventually(probe, what, { timeoutMs, intervalMs: 200 });

async function get(path: string, headers: Record<string, string> = {}) {
  return testFetch(`${site}${path}`, { headers });
}

async function countEvents(where: string, params: unknown[] = []): Promise<number> {
  const rows = await platform.container.orm.em
    .getConnection()
    .execute<{ n: string }[]>(`select count(*) as n from analytics_events where workspace_id = ? and ${where}`, [
      tenant.workspaceId,
      ...params,
    ]);
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'brandsite', env: { BRAND_SITE_CACHE_TTL_MS: '100' } });
  tenant = await createTenant(platform.container, { name: 'Linen House' });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  const workspace = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Workspace, {
    id: tenant.workspaceId,
  });
  site = brandSiteUrl(platform.config, workspace.slug);
  const campaign = await platform.container.services.campaigns.get(
    scopeOf(platform.container, tenant),
    seeded.campaignId,
  );
  campaignPath = `/campaigns/${campaign.slug}`;
  // publish and deploy signalled the republish workflow; the worker renders the site.
  await eventually(async () => ((await get(campaignPath)).status === 200 ? true : undefined), 'the first publication');
});

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
});

describe('hosts', () => {
  test('an unknown brand host and an unpublished workspace answer 404', async () => {
    const unknown = await testFetch(brandSiteUrl(platform.config, 'no-such-brand-here'));
    expect(unknown.status).toBe(404);
    const other = await createTenant(platform.container, { name: 'Quiet Brand' });
    const workspace = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Workspace, {
      id: other.workspaceId,
    });
    const quiet = await testFetch(`${brandSiteUrl(platform.config, workspace.slug)}/`);
    expect(quiet.status).toBe(404);
    expect(((await quiet.json()) as { error_description: string }).error_description).toMatch(/not been published/);
  });
});

describe('pages and markdown twins', () => {
  test('a campaign page is HTML by default and markdown on request, with Vary and validators', async () => {
    const page = await get(campaignPath);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/Accept/);
    const html = await page.text();
    expect(html).toMatch(/Stay cool|Feel light/);
    expect(html).toContain('data-cp-campaign');
    expect(html).toContain('/_cp/beacon.js');

    const markdown = await get(campaignPath, { accept: 'text/markdown' });
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('vary')).toMatch(/Accept/);
    const text = await markdown.text();
    expect(text).toMatch(/Stay cool|Feel light/);
    expect(text).not.toContain('<html');

    const suffixed = await get(`${campaignPath}.md`);
    expect(suffixed.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  });

  test('the variant is sticky per visitor and both variants are served across visitors', async () => {
    const headlineFor = async (visitor: string) => {
      const text = await (await get(campaignPath, { accept: 'text/markdown', cookie: `cp_vid=${visitor}` })).text();
      return text.includes('Stay cool') ? 'Stay cool' : text.includes('Feel light') ? 'Feel light' : 'none';
    };
    const visitor = 'AAAAAAAAAAAAAAAAAAAAAA';
    const first = await headlineFor(visitor);
    for (let i = 0; i < 4; i += 1) expect(await headlineFor(visitor)).toBe(first);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i += 1) seen.add(await headlineFor(`visitor${String(i).padStart(15, '0')}`));
    expect([...seen].sort()).toEqual(['Feel light', 'Stay cool']);
  });

  test('a first visit gets the anonymous visitor cookie; a conditional request gets 304', async () => {
    const first = await get(campaignPath);
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^cp_vid=[A-Za-z0-9_-]{22};/);
    expect(setCookie.toLowerCase()).toContain('httponly');
    const cookie = setCookie.split(';')[0]!;
    const etag = (await get(campaignPath, { cookie })).headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await get(campaignPath, { cookie, 'if-none-match': etag! });
    expect(again.status).toBe(304);
    // The markdown twin of the same page is a different representation with its own validator.
    const md = await get(campaignPath, { cookie, accept: 'text/markdown', 'if-none-match': etag! });
    expect(md.status).toBe(200);
  });

  test('the surface page shows the campaign deployed in its zone', async () => {
    const text = await (await get('/home', { accept: 'text/markdown' })).text();
    expect(text).toMatch(/Stay cool|Feel light/);
  });

  test('credentials are ignored: a request carrying them is served identically', async () => {
    const path = `/products/${seeded.productId}`;
    const plain = await get(path);
    const withCredentials = await get(path, { authorization: `Bearer ${tenant.apiKey}`, 'x-api-key': tenant.apiKey });
    expect(plain.status).toBe(200);
    expect(withCredentials.status).toBe(200);
    expect(await withCredentials.text()).toBe(await plain.text());
  });

  test('unknown paths are 404 and other methods 405', async () => {
    expect((await get('/no/such/page')).status).toBe(404);
    // A browser asks for HTML by name and gets a page of the site (an agent asking for markdown gets the error).
    const browserAsks = await testFetch(`${site}/no/such/page`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(browserAsks.status).toBe(404);
    expect(browserAsks.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(browserAsks.headers.get('cache-control')).toBe('no-store');
    const html = await browserAsks.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('There is no page at /no/such/page on this site.');
    expect(html).toContain('<a href="/campaigns">All campaigns</a>');
    const agentAsks = await testFetch(`${site}/no/such/page`, { headers: { accept: 'text/markdown' } });
    expect(agentAsks.status).toBe(404);
    expect(await agentAsks.json()).toMatchObject({ error: 'not_found' });
    // What was asked for is shown as text, never as markup.
    const hostile = await testFetch(`${site}/%3Cscript%3Ealert(1)%3C%2Fscript%3E`, {
      headers: { accept: 'text/html' },
    });
    expect(await hostile.text()).not.toContain('<script>alert(1)</script>');
    const post = await testFetch(`${site}${campaignPath}`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
  });

  test('a campaign whose run has ended is gone: 410 and a page saying so to browsers, 404 JSON to others', async () => {
    const scope = scopeOf(platform.container, tenant);
    const { campaigns } = platform.container.services;
    const spring = await campaigns.create(scope, {
      name: 'Linen spring',
      objective: 'Sell spring shirts',
      startsAt: new Date(Date.now() - 30 * 86_400_000).toISOString(),
      endsAt: new Date(Date.now() - 86_400_000).toISOString(),
    });
    await campaigns.createVariant(scope, spring.id, { headline: 'Spring linen', body: 'Light.', callToAction: 'Shop' });
    await campaigns.publish(scope, spring.id);
    const browserAsks = () =>
      testFetch(`${site}/campaigns/${spring.slug}`, { headers: { accept: 'text/html,*/*;q=0.8' } });
    const gone = await eventually(async () => {
      const response = await browserAsks();
      return response.status === 410 ? response : undefined;
    }, 'the ended campaign answering 410');
    expect(gone.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(gone.headers.get('cache-control')).toBe('no-store');
    const html = await gone.text();
    expect(html).toContain('<h1>This campaign has ended</h1>');
    expect(html).toMatch(/Linen spring ended on \d{4}-\d{2}-\d{2}/);
    const agent = await get(`/campaigns/${spring.slug}`, { accept: 'text/markdown' });
    expect(agent.status).toBe(404);
    expect(await agent.json()).toMatchObject({ error: 'not_found' });
    expect(await (await get('/llms.txt')).text()).not.toContain(spring.slug);
  });

  test('refusals take the error boundary’s form: 404 never cached, 405 with the methods the path allows', async () => {
    const missing = await get('/no/such/page');
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(await missing.json()).toEqual({ error: 'not_found', error_description: 'No page at /no/such/page' });
    const post = await testFetch(`${site}${campaignPath}`, { method: 'POST', body: 'x' });
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toEqual({ error: 'method_not_allowed', error_description: 'POST is not allowed here' });
    // The beacon endpoint takes POST only, and says so in the same form as every other path.
    const read = await get('/_cp/events');
    expect(read.status).toBe(405);
    expect(read.headers.get('allow')).toBe('POST');
    expect(await read.json()).toEqual({ error: 'method_not_allowed', error_description: 'GET is not allowed here' });
  });
});

describe('beacons and impressions', () => {
  const beacon = (events: unknown[], cookie = 'cp_vid=BBBBBBBBBBBBBBBBBBBBBB') =>
    testFetch(`${site}/_cp/events`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie },
      body: JSON.stringify({ events }),
    });

  /** A beacon counter of the API's registry (docs/metrics.md). */
  const beaconCount = async (family: string) => {
    const text = (await platform.container.metrics.scrape()).body;
    return Number(new RegExp(`^${family}\\{source="beacon"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  };

  test('an impression is recorded once however often it is resent; bad events are refused one by one', async () => {
    const acceptedBefore = await beaconCount('cp_analytics_events_accepted_total');
    const rejectedBefore = await beaconCount('cp_analytics_events_rejected_total');
    const eventId = uuidv7();
    const impression = { type: 'impression', eventId, campaignId: seeded.campaignId, variantId: seeded.variantId };
    const first = await beacon([impression]);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ accepted: 1, rejected: [] });
    await beacon([impression]);
    expect(await countEvents('event_id = ?', [eventId])).toBe(1);
    const rows = await platform.container.orm.em
      .getConnection()
      .execute<{ session_id: string; type: string }[]>(
        'select session_id, type from analytics_events where event_id = ?',
        [eventId],
      );
    expect(rows[0]).toEqual({ session_id: 'BBBBBBBBBBBBBBBBBBBBBB', type: 'impression' });

    const mixed = await beacon([
      { type: 'impression', eventId: uuidv7(), campaignId: seeded.draftCampaignId, variantId: seeded.draftVariantId },
      { type: 'click', eventId: crypto.randomUUID(), campaignId: seeded.campaignId, variantId: seeded.variantId },
      { type: 'conversion', eventId: uuidv7(), goal: 'purchase', value: 49.5 },
    ]);
    const body = (await mixed.json()) as { accepted: number; rejected: { index: number; reason: string }[] };
    expect(body.accepted).toBe(1);
    expect(body.rejected.map((r) => r.index)).toEqual([0, 1]);
    expect(body.rejected[0]!.reason).toMatch(/not published/);
    expect(body.rejected[1]!.reason).toMatch(/UUIDv7/);
    // Counted as written: the impression once (its resend was a duplicate), the click; the two refused.
    expect((await beaconCount('cp_analytics_events_accepted_total')) - acceptedBefore).toBe(2);
    expect((await beaconCount('cp_analytics_events_rejected_total')) - rejectedBefore).toBe(2);
  });

  test('a malformed beacon is a 400 and records nothing', async () => {
    // Only what a beacon could write: server-side events of earlier tests (markdown impressions, concierge
    // questions) are written in batches and may still land meanwhile.
    const fromBeacons = `coalesce(properties->>'source', '') <> 'markdown' and type <> 'concierge_question'`;
    const before = await countEvents(fromBeacons);
    const response = await testFetch(`${site}/_cp/events`, { method: 'POST', body: 'not json' });
    expect(response.status).toBe(400);
    expect(await countEvents(fromBeacons)).toBe(before);
  });

  test('serving a markdown twin records its impression server-side', async () => {
    const cookie = 'cp_vid=CCCCCCCCCCCCCCCCCCCCCC';
    await get(campaignPath, { accept: 'text/markdown', cookie });
    await eventually(
      async () =>
        (await countEvents(`session_id = 'CCCCCCCCCCCCCCCCCCCCCC' and properties->>'source' = 'markdown'`)) >= 1
          ? true
          : undefined,
      'the markdown impression',
    );
  });
});

describe('republish', () => {
  test('a variant save is visible on the brand site', async () => {
    const scope = scopeOf(platform.container, tenant);
    for (const variantId of [seeded.variantId, seeded.secondVariantId]) {
      await platform.container.services.campaigns.updateVariant(scope, variantId, {
        headline: 'Cool linen for August',
      });
    }
    await eventually(
      async () =>
        (await (await get(campaignPath, { accept: 'text/markdown' })).text()).includes('Cool linen for August')
          ? true
          : undefined,
      'the republished headline',
    );
  });
});

describe('call-to-action hand-off', () => {
  const SHOP = 'https://shop.example.test/linen?ref=summer';
  const handOff = (variantId: string, cookie?: string, campaignId = seeded.campaignId) =>
    testFetch(`${site}/_cp/go?c=${campaignId}&v=${variantId}`, {
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });

  beforeAll(async () => {
    await platform.container.services.campaigns.updateVariant(scopeOf(platform.container, tenant), seeded.variantId, {
      ctaUrl: SHOP,
    });
    await eventually(
      async () => ((await (await get(campaignPath)).text()).includes('shop.example.test') ? true : undefined),
      'the republished call to action',
    );
  });

  test("leads to the variant's published ctaUrl with the visitor's id for server-side conversions", async () => {
    const response = await handOff(seeded.variantId, 'cp_vid=DDDDDDDDDDDDDDDDDDDDDD');
    expect(response.status).toBe(302);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example.test/linen');
    expect(Object.fromEntries(location.searchParams)).toEqual({ ref: 'summer', cp_vid: 'DDDDDDDDDDDDDDDDDDDDDD' });
    // No visitor cookie (or a malformed one): the same destination, no id, and no cookie minted on the way.
    for (const cookie of [undefined, 'cp_vid=not-an-id']) {
      const anonymous = await handOff(seeded.variantId, cookie);
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get('location')).toBe(SHOP);
      expect(anonymous.headers.get('set-cookie')).toBeNull();
    }
  });

  test('a post id that names no published post records nothing, gives no cookie and changes nothing', async () => {
    const clicks = async () =>
      Number(
        (
          await platform.container.orm.em
            .getConnection()
            .execute<{ n: string }[]>('select count(*) as n from analytics_channel_clicks where workspace_id = ?', [
              tenant.workspaceId,
            ])
        )[0]!.n,
      );
    const response = await testFetch(
      `${site}/_cp/go?c=${seeded.campaignId}&v=${seeded.variantId}&p=chp_01J0000000000000000000000`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(SHOP);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await clicks()).toBe(0);
  });

  test('only a published off-site call to action is a destination: anything else is a 404', async () => {
    // The second variant has no ctaUrl (its call to action is the campaign page), the draft is not published,
    // and ids from the query never become a URL.
    for (const [variantId, campaignId] of [
      [seeded.secondVariantId, seeded.campaignId],
      [seeded.draftVariantId, seeded.draftCampaignId],
      [seeded.variantId, seeded.draftCampaignId],
      ['https://evil.example', seeded.campaignId],
    ] as const) {
      const response = await handOff(encodeURIComponent(variantId), undefined, campaignId);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found' });
    }
  });
});

describe('scheduled deployments', () => {
  test('a deployment that starts later appears on its surface page at its start, with no other change', async () => {
    const scope = scopeOf(platform.container, tenant);
    const { campaigns } = platform.container.services;
    const autumn = await campaigns.create(scope, { name: 'Linen autumn preview', objective: 'Tease autumn' });
    await campaigns.createVariant(scope, autumn.id, {
      headline: 'Autumn arrives early',
      body: 'Heavier linen.',
      callToAction: 'Preview',
    });
    await campaigns.publish(scope, autumn.id);
    const startsAt = new Date(Date.now() + 8000);
    await campaigns.deploy(scope, {
      campaignId: autumn.id,
      zoneId: seeded.freeZoneId,
      startsAt: startsAt.toISOString(),
    });
    // The republish for publish + deploy lands first: the campaign has its page, but the zone is not live yet.
    await eventually(
      async () => ((await get(`/campaigns/${autumn.slug}`)).status === 200 ? true : undefined),
      'the autumn campaign page',
    );
    expect(Date.now()).toBeLessThan(startsAt.getTime());
    expect(await (await get('/home', { accept: 'text/markdown' })).text()).not.toContain('Autumn arrives early');
    await eventually(
      async () =>
        (await (await get('/home', { accept: 'text/markdown' })).text()).includes('Autumn arrives early')
          ? true
          : undefined,
      'the deployment going live at its start time',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(startsAt.getTime());
  });
});

describe('agent files', () => {
  test('each skill fetched over HTTP matches the sha256 digest its index states', async () => {
    const indexUrl = `${site}/.well-known/agent-skills/index.json`;
    const index = await testFetch(indexUrl);
    expect(index.status).toBe(200);
    expect(index.headers.get('access-control-allow-origin')).toBe('*');
    const { skills } = (await index.json()) as { skills: { name: string; url: string; digest: string }[] };
    expect(skills.map((skill) => skill.name).sort()).toEqual([
      'ask-venue',
      'discover-campaigns',
      'fetch-campaign-content',
    ]);
    for (const skill of skills) {
      const response = await testFetch(new URL(skill.url, indexUrl).toString());
      expect(response.status).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(skill.digest);
    }
  });

  test('llms.txt, robots.txt, sitemap.xml, auth.md, agent card and server card are served with CORS', async () => {
    for (const path of [
      '/llms.txt',
      '/robots.txt',
      '/sitemap.xml',
      '/auth.md',
      '/.well-known/agent-card.json',
      '/.well-known/mcp/server-card.json',
    ]) {
      const response = await get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('the concierge on the brand host', () => {
  const ask = (body: unknown, headers: Record<string, string> = {}) =>
    testFetch(`${site}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  test('answers from the published content with citations, and says when it does not know', async () => {
    const response = await ask({ query: 'How much is the Linen linen shirt?' });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      answer: string;
      answered: boolean;
      sources: { url: string }[];
      conversationId: string;
    };
    expect(answer.answered).toBe(true);
    expect(answer.answer).toContain('€49.50');
    expect(answer.sources.map((source) => source.url)).toContain(`${site}/products/${seeded.productId}`);
    expect(answer.conversationId).toBeTruthy();

    const unknown = (await (await ask({ query: 'Who won the 1998 football world cup?' })).json()) as {
      answered: boolean;
      sources: unknown[];
    };
    expect(unknown).toMatchObject({ answered: false, sources: [] });
    await eventually(
      async () =>
        (await countEvents(`type = 'concierge_question' and properties->>'answered' = 'false'`)) >= 1
          ? true
          : undefined,
      'the unanswered question event',
    );
  });

  test('is reached through the interface its agent card declares, with the A2A SDK client', async () => {
    const card = await testFetch(`${site}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: testFetch as typeof fetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: testFetch as typeof fetch }),
    });
    const client = await factory.createFromUrl(site);
    const reply = (await client.sendMessage({
      tenant: '',
      message: {
        messageId: crypto.randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text', value: 'What does the Linen linen shirt cost?' },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    })) as Message;
    expect(reply.role).toBe(Role.ROLE_AGENT);
    const text = reply.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
    expect(text).toContain('€49.50');
    expect(text).toContain(`${site}/products/${seeded.productId}`);
  });
});

describe('the ask box for people (a form, no JavaScript)', () => {
  const askForm = (fields: [string, string][], headers: Record<string, string> = {}) =>
    testFetch(`${site}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      body: new URLSearchParams(fields).toString(),
    });

  test('every page has the form, and the script that enhances it is served', async () => {
    const html = await (await get(campaignPath)).text();
    expect(html).toContain('<form class="ask-form" method="post" action="/ask" data-cp-ask>');
    expect(html).toContain('<input id="ask-query" name="query"');
    const script = await get('/_cp/ask.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = script.headers.get('etag')!;
    expect((await script.text()).includes("addEventListener('submit'")).toBe(true);
    expect((await get('/_cp/ask.js', { 'if-none-match': etag })).status).toBe(304);
  });

  test('a posted question gets a page with the answer, its sources as links, and is recorded like any other', async () => {
    const question = 'How much is the Linen linen shirt? (form)';
    const response = await askForm([['query', question]], { cookie: 'cp_vid=EEEEEEEEEEEEEEEEEEEEEE' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('<h1>Here is what we found</h1>');
    expect(html).toContain(`You asked: ${question}`);
    expect(html).toContain('€49.50');
    // The citation links to the product's page on this site (root-relative, so it works on a custom domain).
    expect(html).toMatch(new RegExp(`<a class="cite" href="/products/${seeded.productId}"`));
    // The follow-up form carries the question and the conversation on.
    expect(html).toContain(`<input type="hidden" name="prev" value="${question}">`);
    expect(html).toMatch(/<input type="hidden" name="conversationId" value="[A-Za-z0-9._:-]{8,128}">/);
    await eventually(
      async () =>
        (await countEvents(`type = 'concierge_question' and session_id = 'EEEEEEEEEEEEEEEEEEEEEE'`)) === 1
          ? true
          : undefined,
      'the form question event, with the visitor session',
    );
  });

  test('a follow-up keeps its conversation id; an unanswerable question says so with the ways to ask a person', async () => {
    const followUp = await askForm([
      ['query', 'Who won the 1998 football world cup?'],
      ['prev', 'How much is the Linen linen shirt?'],
      ['conversationId', 'conv-linen-0001'],
    ]);
    expect(followUp.status).toBe(200);
    const html = await followUp.text();
    expect(html).toContain('<h1>We don’t know that yet</h1>');
    expect(html).toContain('<input type="hidden" name="conversationId" value="conv-linen-0001">');
    expect(html).toContain('<input type="hidden" name="prev" value="How much is the Linen linen shirt?">');
    expect(html).toContain('<input type="hidden" name="prev" value="Who won the 1998 football world cup?">');
  });

  test('an empty or missing question gets a page that says what to do, not a JSON error', async () => {
    for (const fields of [[['query', '   ']], [['q', 'wrong field']]] as [string, string][][]) {
      const response = await askForm(fields);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toContain('<h1>What would you like to know?</h1>');
      expect(html).toContain('Type your question in the box below and press Ask.');
      expect(html).toContain('action="/ask"');
    }
    const long = await askForm([['query', 'x'.repeat(501)]]);
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('<h1>That question could not be asked</h1>');
  });

  test('the JSON API is unchanged: same body, same errors, chosen by the request body type', async () => {
    const ask = (body: unknown) =>
      testFetch(`${site}/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const answered = await ask({ query: 'What does the Linen linen shirt cost?' });
    expect(answered.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys((await answered.json()) as object).sort()).toEqual([
      'answer',
      'answered',
      'conversationId',
      'sources',
      'suggestions',
    ]);
    const empty = await ask({ query: ' ' });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: 'query_empty' });
    const multipart = await testFetch(`${site}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x--',
    });
    expect(multipart.status).toBe(415);
    expect(await multipart.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  // Last in the file: it spends this address's question budget for the minute.
  test('the rate limit applies to form questions too: a page saying when to ask again, with Retry-After', async () => {
    let refused: Response | undefined;
    for (let i = 0; i < 40 && !refused; i += 1) {
      const response = await askForm([['query', `Shipping to Norway? ${i}`]]);
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(200);
    }
    expect(refused).toBeDefined();
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused!.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await refused!.text();
    expect(html).toContain('<h1>One moment, please</h1>');
    expect(html).toMatch(/Please ask again in \d+ seconds?\./);
    // One budget for both ways of asking: the JSON API is refused now too.
    const json = await testFetch(`${site}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Shipping?' }),
    });
    expect(json.status).toBe(429);
    expect(await json.json()).toMatchObject({ error: 'rate_limited' });
  });
});
