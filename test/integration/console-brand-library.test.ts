/**
 * The console's brand kit, products, media and surfaces pages act through the MCP tools: every form a viewer
 * posts directly is refused server-side (403), changes nothing, and leaves the same audit line (action, target,
 * outcome) as the same MCP call by a viewer's key; an editor's save round-trips through `query_brand`, and the
 * library pages show names, not ids. Driven over plain HTTP with the cookies a browser would keep.
 */
import { closeTestFetch } from '../support/http.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { startTestPlatform, profileUrl, type TestPlatform } from '../support/platform.ts';
import { domainFingerprint, scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { liveCampaignsByZone } from '../../src/domain/campaigns/deployments.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';

const PASSWORD = 'console brand password 1';

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let viewerMcp: ConnectedClient;
let viewerKeyId: string;
const people: Record<'editor' | 'viewer', { id: string; email: string; browser: DashboardSession }> = {} as never;

async function addPerson(role: Role & ('editor' | 'viewer')) {
  const { workspaces } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  const email = `${role}-${tenant.workspaceId.slice(-6).toLowerCase()}@example.test`;
  const user = await workspaces.createUser(em, { email, name: `The ${role}`, password: PASSWORD });
  await workspaces.setMember(em, tenant.workspaceId, { email, role });
  const browser = dashboardSession(platform.urls.platform);
  const signedIn = await browser.submit('/signin', '/signin', { email, password: PASSWORD });
  expect(signedIn.status).toBe(302);
  people[role] = { id: user.id, email, browser };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-brand' });
  tenant = await createTenant(platform.container, { name: 'Linen & Co', password: PASSWORD });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  await addPerson('editor');
  await addPerson('viewer');
  const url = await profileUrl(platform, 'autonomous_ops');
  const secret = await createKey(platform.container, tenant, 'viewer', 'console comparison key');
  viewerMcp = await connectV2(url, { 'x-api-key': secret });
  const keys = await platform.container.services.workspaces.listApiKeys(
    acrossWorkspaces(platform.container.orm.em),
    tenant.workspaceId,
  );
  viewerKeyId = keys.find((key) => key.name === 'console comparison key')!.id;
});

afterAll(async () => {
  await viewerMcp?.close();
  await platform.close();
  await closeTestFetch();
});

interface AuditRow {
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: string;
}

async function auditOf(actor: string): Promise<AuditRow[]> {
  return acrossWorkspaces(platform.container.orm.em)
    .getConnection()
    .execute<AuditRow[]>(
      `select action, target_type, target_id, outcome from audit_events
       where workspace_id = ? and actor = ? order by created_at, id`,
      [tenant.workspaceId, actor],
    );
}

const w = () => `/w/${tenant.workspaceId}`;

/** Each console form, the page it is on, what it posts, and the MCP call it stands for. */
function forms(): { page: string; action: string; form: Record<string, string>; tool: string; args: object }[] {
  return [
    {
      page: `${w()}/brand`,
      action: `${w()}/brand/brandbook`,
      form: { primary: '#ffee00', secondary: '#ffffff', accent: '#000000', background: '#ffffff', text: '#111111' },
      tool: 'manage_brand',
      args: { action: 'update_brandbook', brandbook: { colors: { primary: '#ffee00' } } },
    },
    {
      page: `${w()}/brand`,
      action: `${w()}/brand/profile`,
      form: { displayName: 'Hijacked' },
      tool: 'manage_brand',
      args: { action: 'update_profile', profile: { displayName: 'Hijacked' } },
    },
    {
      page: `${w()}/brand`,
      action: `${w()}/brand/voice`,
      form: { tone: 'shouty', dontSay: 'cheap' },
      tool: 'manage_brand',
      args: { action: 'update_voice', voice: { tone: 'shouty' } },
    },
    {
      page: `${w()}/brand`,
      action: `${w()}/brand/concierge`,
      form: { greeting: 'Hi', faq_question_0: 'Do you ship?', faq_answer_0: 'Yes' },
      tool: 'manage_brand',
      args: { action: 'update_concierge', concierge: { greeting: 'Hi' } },
    },
    {
      page: `${w()}/products`,
      action: `${w()}/products`,
      form: { title: 'Forbidden shirt' },
      tool: 'manage_products',
      args: { action: 'create', title: 'Forbidden shirt' },
    },
    {
      page: `${w()}/products`,
      action: `${w()}/products/import`,
      form: { sourceUrl: 'https://shop.example/feed.csv', format: 'csv' },
      tool: 'manage_products',
      args: { action: 'import_from_url', sourceUrl: 'https://shop.example/feed.csv', format: 'csv' },
    },
    {
      page: `${w()}/products/${seeded.productId}`,
      action: `${w()}/products/${seeded.productId}`,
      form: { title: 'Renamed by a viewer' },
      tool: 'manage_products',
      args: { action: 'update', productId: seeded.productId, title: 'Renamed by a viewer' },
    },
    {
      page: `${w()}/surfaces`,
      action: `${w()}/surfaces`,
      form: { name: 'Viewer page', kind: 'brand_page', path: '/viewer' },
      tool: 'manage_surfaces',
      args: { operation: 'create_surface', name: 'Viewer page', kind: 'brand_page', path: '/viewer' },
    },
    {
      page: `${w()}/surfaces`,
      action: `${w()}/surfaces/zones`,
      form: { surfaceId: seeded.surfaceId, name: 'Sidebar', key: 'sidebar', kind: 'card' },
      tool: 'manage_surfaces',
      args: { operation: 'create_zone', surfaceId: seeded.surfaceId, name: 'Sidebar', key: 'sidebar', kind: 'card' },
    },
  ];
}

it('shows a viewer every page with no action form', async () => {
  const { browser } = people.viewer;
  for (const path of ['/brand', '/products', `/products/${seeded.productId}`, '/media', '/surfaces']) {
    const page = await browser.request(`${w()}${path}`);
    expect(page.status).toBe(200);
    // The only POST form a viewer sees is the header's sign-out.
    expect(page.text.match(/method="post"/g)).toHaveLength(1);
    expect(page.text).toContain('action="/signout"');
  }
});

it('refuses every form a viewer posts directly, changes nothing, and audits it as the MCP call does', async () => {
  const before = await domainFingerprint(platform.container, tenant.workspaceId);
  const { browser, id } = people.viewer;
  for (const { page, action, form } of forms()) {
    const answer = await browser.submit(page, action, form);
    expect({ action, status: answer.status }).toEqual({ action, status: 403 });
    expect(answer.text).toContain('Your role (viewer) does not allow');
  }
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);

  for (const { tool, args } of forms()) {
    const result = await viewerMcp.callTool(tool, args as Record<string, unknown>);
    expect(result.isError).toBe(true);
  }
  const console = await auditOf(`user:${id}`);
  const mcp = await auditOf(`key:${viewerKeyId}`);
  expect(console).toHaveLength(forms().length);
  expect(console.every((row) => row.outcome === 'denied')).toBe(true);
  expect(console).toEqual(mcp);
  expect(console.map((row) => row.action)).toEqual(
    forms().map(({ tool, args }) => `mcp.${tool}.${Object.values(args)[0]}`),
  );
  expect(console.find((row) => row.action === 'mcp.manage_products.update')).toMatchObject({
    target_type: 'product',
    target_id: seeded.productId,
  });
});

it("round-trips an editor's brand kit save through query_brand, with a contrast warning for a poor pair", async () => {
  const { browser, id } = people.editor;
  const saved = await browser.submit(`${w()}/brand`, `${w()}/brand/brandbook`, {
    expectedVersion: '0',
    primary: '#f5e663',
    secondary: '#f2e8cf',
    accent: '#bc4749',
    background: '#ffffff',
    text: '#1b1f24',
    headingFont: 'Georgia, serif',
    bodyFont: 'Inter, sans-serif',
    logoUrl: 'https://cdn.example.test/logo.png',
    rules: 'Never promise delivery dates\nSay linen, not flax',
  });
  expect(saved.status).toBe(200);
  expect(saved.text).toContain('Saved the colours, fonts, logo and rules.');
  expect(saved.text).toContain('Contrast warning');
  expect(saved.text).toContain('Links and headings (primary) on the page background');

  const voice = await browser.submit(`${w()}/brand`, `${w()}/brand/voice`, {
    expectedVersion: '1',
    tone: 'warm and plain',
    personality: 'calm, honest',
    doSay: 'breathable',
    dontSay: 'cheap\nbest ever',
    sampleCopy: '',
  });
  expect(voice.status).toBe(200);
  const concierge = await browser.submit(`${w()}/brand`, `${w()}/brand/concierge`, {
    expectedVersion: '2',
    enabled: 'on',
    greeting: 'Ask us about linen',
    escalation: '',
    faq_question_0: 'Do you ship abroad?',
    faq_answer_0: 'Yes, across the EU.',
    faq_question_1: '',
    faq_answer_1: '',
  });
  expect(concierge.status).toBe(200);

  const owner = await connectV2(await profileUrl(platform, 'autonomous_ops'), { 'x-api-key': tenant.apiKey });
  const { structuredContent } = await owner.callTool('query_brand', { action: 'get' });
  await owner.close();
  expect(structuredContent).toMatchObject({
    brand: {
      version: 3,
      brandbook: {
        colors: { primary: '#f5e663', background: '#ffffff' },
        fonts: { heading: 'Georgia, serif', body: 'Inter, sans-serif' },
        logoUrl: 'https://cdn.example.test/logo.png',
        rules: ['Never promise delivery dates', 'Say linen, not flax'],
      },
      voice: { tone: 'warm and plain', personality: ['calm', 'honest'], dontSay: ['cheap', 'best ever'] },
      concierge: { enabled: true, greeting: 'Ask us about linen', faq: [{ question: 'Do you ship abroad?' }] },
    },
  });

  // A stale form (read at version 0) is refused by the tool's version check, and says why.
  const stale = await browser.submit(`${w()}/brand`, `${w()}/brand/profile`, {
    expectedVersion: '0',
    displayName: 'Stale',
  });
  expect(stale.status).toBe(409);
  expect(stale.text).toContain('The brand changed since you read it');

  expect((await auditOf(`user:${id}`)).map((row) => `${row.action} ${row.outcome}`)).toEqual([
    'mcp.manage_brand.update_brandbook success',
    'mcp.manage_brand.update_voice success',
    'mcp.manage_brand.update_concierge success',
    'mcp.manage_brand.update_profile failed',
  ]);
});

it('lets an editor create and edit a product, and create a surface and a zone', async () => {
  const { browser } = people.editor;
  const created = await browser.submit(`${w()}/products`, `${w()}/products`, {
    title: 'Linen apron',
    price: '24.50',
    currency: 'eur',
    description: 'Heavy linen.',
    images: '',
  });
  expect(created.status).toBe(200);
  expect(created.text).toContain('Created the product “Linen apron”.');
  const { items } = await platform.container.services.products.list(scopeOf(platform.container, tenant), {
    search: 'apron',
  });
  const apron = items[0]!;
  expect(apron).toMatchObject({ title: 'Linen apron', price: 24.5, currency: 'EUR' });
  const edited = await browser.submit(`${w()}/products/${apron.id}`, `${w()}/products/${apron.id}`, {
    title: 'Linen apron, natural',
    price: '26',
    currency: 'EUR',
  });
  expect(edited.text).toContain('Saved the product “Linen apron, natural”.');
  const search = await browser.request(`${w()}/products?q=natural`);
  expect(search.text).toContain('Linen apron, natural');
  expect(search.text).not.toContain('Linen linen shirt');

  const invalid = await browser.submit(`${w()}/products`, `${w()}/products/import`, { sourceUrl: 'not a url' });
  expect(invalid.status).toBe(400);
  expect(invalid.text).toContain('sourceUrl: must be an absolute http(s) URL');

  const surface = await browser.submit(`${w()}/surfaces`, `${w()}/surfaces`, {
    name: 'Summer landing',
    kind: 'brand_page',
    path: '/summer',
    channel: 'ignored for a page',
  });
  expect(surface.text).toContain('Created the surface “Summer landing”.');
  const summer = /<option value="(srf_[0-9A-Za-z]+)">Summer landing<\/option>/.exec(surface.text)![1]!;
  const zone = await browser.submit(`${w()}/surfaces`, `${w()}/surfaces/zones`, {
    surfaceId: summer,
    name: 'Summer hero',
    key: 'hero',
    kind: 'hero',
    maxHeadlineLength: '60',
    maxBodyLength: '',
    imageAspect: '16:9',
  });
  expect(zone.text).toContain('Created the zone “Summer hero” (hero).');
  expect(zone.text).toContain('headline ≤ 60 characters, image 16:9');
  // The seeded campaign is live in the seeded hero zone: the page names it.
  expect(zone.text).toMatch(/Linen summer/);
});

it('lists generated media with the campaign and variant that use it', async () => {
  const { campaigns } = platform.container.services;
  const scope = scopeOf(platform.container, tenant);
  const ownImage = `${new URL(platform.urls.platform).origin}/media/${tenant.workspaceId}/generated/hero.png`;
  await campaigns.updateVariant(scope, seeded.variantId, {
    imageRefs: [{ url: ownImage, alt: 'Linen shirt on a line' }],
  });
  const em = acrossWorkspaces(platform.container.orm.em);
  const job = await em.findOneOrFail(Job, { id: seeded.jobId });
  job.result = {
    output: {
      key: `${tenant.workspaceId}/renders/still.png`,
      url: `${new URL(platform.urls.platform).origin}/media/${tenant.workspaceId}/renders/still.png`,
      mimeType: 'image/png',
      bytes: 1000,
      sha256: 'x',
      width: 1200,
      height: 630,
      durationSeconds: null,
    },
  };
  await em.flush();

  const page = await people.viewer.browser.request(`${w()}/media`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`<img class="thumb" src="${ownImage}" alt="Linen shirt on a line"`);
  expect(page.text).toContain('Still (landscape)');
  expect(page.text).toMatch(/Used in\s*<a href="[^"]+">Linen summer<\/a\s*>, variant Variant A/);
});

it('names the latest five campaigns live in a zone and counts the rest, from one grouped read', async () => {
  const { campaigns } = platform.container.services;
  const scope = scopeOf(platform.container, tenant);
  const names: string[] = [];
  for (let i = 1; i <= 7; i += 1) {
    const campaign = await campaigns.create(scope, { name: `Crowded ${i}`, objective: 'Fill the zone' });
    await campaigns.createVariant(scope, campaign.id, { headline: `Crowded ${i}`, body: 'Body', callToAction: 'Go' });
    await campaigns.publish(scope, campaign.id);
    await campaigns.deploy(scope, { campaignId: campaign.id, zoneId: seeded.freeZoneId });
    names.push(campaign.name);
  }
  const live = await liveCampaignsByZone(scope, [seeded.freeZoneId, seeded.zoneId], 5);
  expect(live.get(seeded.freeZoneId)?.count).toBe(7);
  // Newest deployment first.
  expect(live.get(seeded.freeZoneId)!.latest.map((campaign) => campaign.name)).toEqual(names.slice(2).reverse());
  expect(live.get(seeded.zoneId)).toEqual({ count: 1, latest: [{ id: seeded.campaignId, name: 'Linen summer' }] });
  // Another workspace reads nothing of these zones.
  const other = await createTenant(platform.container, { name: 'Other Co' });
  expect((await liveCampaignsByZone(scopeOf(platform.container, other), [seeded.freeZoneId], 5)).size).toBe(0);

  const page = (await people.viewer.browser.request(`${w()}/surfaces`)).text.replace(/\s+/g, ' ');
  for (const name of names.slice(2)) expect(page).toContain(`>${name}</a >`);
  expect(page).not.toContain(`>${names[0]}</a >`);
  expect(page).toContain('and 2 more (7 live)');
});
