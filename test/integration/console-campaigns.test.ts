/**
 * The Campaigns pages act through the tools, so they refuse, record and conflict exactly as the MCP calls do.
 * Driven over plain HTTP with a browser's cookies (dashboard-session.ts), against a real platform:
 *
 * - every form of the pages, posted directly by a viewer (with a valid session and CSRF token), is refused
 *   (403), changes nothing, and writes the audit line the same call by a viewer's API key writes at /api/mcp;
 * - an edit saved over someone else's newer version is refused with a notice that shows the current text;
 * - the price (quote) step of a generation spends no credits.
 */
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { domainFingerprint, scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let viewerKey: string;

const PASSWORD = 'a long enough password';
const em = () => acrossWorkspaces(platform.container.orm.em);

/** A person with a password, made a member of the tenant's workspace with `role`, signed in over HTTP. */
async function member(role: 'viewer' | 'editor', email: string): Promise<DashboardSession> {
  const { workspaces } = platform.container.services;
  await workspaces.createUser(em(), { email, name: `${role} person`, password: PASSWORD });
  await workspaces.setMember(em(), tenant.workspaceId, { email, role });
  const session = dashboardSession(platform.urls.platform);
  const signedIn = await session.submit('/signin', '/signin', { email, password: PASSWORD });
  expect(signedIn.status).toBe(302);
  return session;
}

async function callMcp(key: string, name: string, args: Record<string, unknown>) {
  const response = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return (await response.json()) as { result: { isError?: boolean; content: { text: string }[] } };
}

interface AuditRow {
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: string;
  actor: string;
}

async function latestAudit(): Promise<AuditRow> {
  const [row] = await em()
    .getConnection()
    .execute<AuditRow[]>(
      'select action, target_type, target_id, outcome, actor from audit_events where workspace_id = ? order by created_at desc, id desc limit 1',
      [tenant.workspaceId],
    );
  return row!;
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-campaigns' });
  tenant = await createTenant(platform.container, { name: 'Console Campaigns', credits: 500 });
  seeded = await seedWorkspace(platform.container, tenant, 'Console');
  viewerKey = await createKey(platform.container, tenant, 'viewer');
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

it("refuses every form to a viewer, changes nothing, and audits it as the viewer's MCP call is audited", async () => {
  const viewer = await member('viewer', 'viewer@example.test');
  const ws = `/w/${tenant.workspaceId}/campaigns`;
  const variant = await platform.container.services.campaigns.listVariants(scopeOf(platform.container, tenant), {
    campaignId: seeded.campaignId,
  });
  const version = variant.items.find((candidate) => candidate.id === seeded.variantId)!.version;

  // Each form the pages offer: its action, the fields the page posts, and the same call made as a tool.
  const forms: { name: string; action: string; form: Record<string, string>; tool: string; args: object }[] = [
    {
      name: 'price a generation',
      action: `${ws}/generate`,
      form: { intent: 'Sell linen shirts to summer travellers', variantCount: '2', includeImages: 'yes' },
      tool: 'generate_campaign',
      args: { mode: 'start', intent: 'Sell linen shirts to summer travellers', variantCount: 2, includeImages: true },
    },
    {
      name: 'confirm a generation',
      action: `${ws}/generate`,
      form: { intent: 'Sell linen shirts', variantCount: '1', quoteId: 'qt_made_up' },
      tool: 'generate_campaign',
      args: {
        mode: 'start',
        intent: 'Sell linen shirts',
        variantCount: 1,
        includeImages: false,
        quoteId: 'qt_made_up',
      },
    },
    {
      name: 'regenerate',
      action: `${ws}/${seeded.draftCampaignId}/regenerate`,
      form: { fromStep: 'brief', variantCount: '2' },
      tool: 'generate_campaign',
      args: {
        mode: 'regenerate',
        campaignId: seeded.draftCampaignId,
        fromStep: 'brief',
        variantCount: 2,
        includeImages: false,
      },
    },
    {
      name: 'edit a variant',
      action: `${ws}/${seeded.campaignId}/variants/${seeded.variantId}`,
      form: { headline: 'Viewer was here', body: 'No.', callToAction: 'Nope', expectedVersion: String(version) },
      tool: 'manage_campaigns',
      args: {
        action: 'update_variant',
        variantId: seeded.variantId,
        headline: 'Viewer was here',
        body: 'No.',
        callToAction: 'Nope',
        expectedVersion: version,
      },
    },
    {
      name: 'publish',
      action: `${ws}/${seeded.draftCampaignId}/publish`,
      form: {},
      tool: 'manage_campaigns',
      args: { action: 'publish', campaignId: seeded.draftCampaignId },
    },
    {
      name: 'place on a zone',
      action: `${ws}/${seeded.campaignId}/deploy`,
      form: { zoneId: seeded.freeZoneId },
      tool: 'manage_campaigns',
      args: { action: 'deploy', campaignId: seeded.campaignId, zoneId: seeded.freeZoneId },
    },
    {
      name: 'archive',
      action: `${ws}/${seeded.campaignId}/archive`,
      form: {},
      tool: 'manage_campaigns',
      args: { action: 'update', campaignId: seeded.campaignId, status: 'archived' },
    },
    {
      name: 'pause a placement',
      action: `${ws}/${seeded.campaignId}/placements/${seeded.deploymentId}/pause`,
      form: {},
      tool: 'manage_campaigns',
      args: { action: 'update_deployment', deploymentId: seeded.deploymentId, deploymentStatus: 'paused' },
    },
    {
      name: 'add a variant',
      action: `${ws}/${seeded.campaignId}/variants`,
      form: { name: '', headline: 'Viewer headline', body: 'Viewer text.', callToAction: 'Nope' },
      tool: 'manage_campaigns',
      args: {
        action: 'create_variant',
        campaignId: seeded.campaignId,
        headline: 'Viewer headline',
        body: 'Viewer text.',
        callToAction: 'Nope',
      },
    },
    {
      name: 'pause a variant, change its weight and make it the control',
      action: `${ws}/${seeded.campaignId}/variants/${seeded.secondVariantId}/traffic`,
      form: { variantStatus: 'paused', weight: '10', isControl: 'yes', expectedVersion: String(version) },
      tool: 'manage_campaigns',
      args: {
        action: 'update_variant',
        variantId: seeded.secondVariantId,
        variantStatus: 'paused',
        weight: 10,
        isControl: true,
        expectedVersion: version,
      },
    },
    {
      name: 'delete a variant',
      action: `${ws}/${seeded.campaignId}/variants/${seeded.secondVariantId}/delete`,
      form: {},
      tool: 'manage_campaigns',
      args: { action: 'delete_variant', variantId: seeded.secondVariantId },
    },
    {
      name: 'change the name, objective, summary and schedule',
      action: `${ws}/${seeded.campaignId}/edit`,
      form: {
        name: 'Viewer name',
        objective: '',
        publicSummary: 'Viewer summary',
        startsAt: '2026-12-01T09:00',
        endsAt: '',
      },
      tool: 'manage_campaigns',
      args: {
        action: 'update',
        campaignId: seeded.campaignId,
        name: 'Viewer name',
        objective: null,
        publicSummary: 'Viewer summary',
        startsAt: '2026-12-01T09:00:00Z',
        endsAt: null,
      },
    },
    {
      name: 'restore',
      action: `${ws}/${seeded.draftCampaignId}/restore`,
      form: {},
      tool: 'manage_campaigns',
      args: { action: 'update', campaignId: seeded.draftCampaignId, status: 'ready' },
    },
  ];

  for (const form of forms) {
    const before = await domainFingerprint(platform.container, tenant.workspaceId);
    const answer = await viewer.submit(ws, form.action, form.form);
    expect({ form: form.name, status: answer.status }).toEqual({ form: form.name, status: 403 });
    expect(answer.text).toContain('Your role (viewer) does not allow');
    expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
    const consoleLine = await latestAudit();
    expect(consoleLine.actor).toMatch(/^user:/);

    const mcp = await callMcp(viewerKey, form.tool, form.args as Record<string, unknown>);
    expect(mcp.result.isError).toBe(true);
    expect(mcp.result.content[0]!.text).toMatch(/^forbidden:/);
    expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
    const mcpLine = await latestAudit();
    expect(mcpLine.actor).not.toBe(consoleLine.actor);

    const comparable = ({ action, target_type, target_id, outcome }: AuditRow) => ({
      form: form.name,
      action,
      target_type,
      target_id,
      outcome,
    });
    expect(comparable(consoleLine)).toEqual(comparable(mcpLine));
    expect(consoleLine.outcome).toBe('denied');
  }

  // The viewer reads every page, and none of them offers a form that changes anything.
  for (const page of [
    ws,
    `${ws}/${seeded.campaignId}`,
    `${ws}/${seeded.draftCampaignId}/publish`,
    `${ws}/${seeded.campaignId}/deploy?zoneId=${seeded.freeZoneId}`,
    `${ws}/${seeded.campaignId}/archive`,
    `${ws}/${seeded.campaignId}/placements/${seeded.deploymentId}/end`,
    `${ws}/${seeded.campaignId}/variants/${seeded.secondVariantId}/delete`,
  ]) {
    const answer = await viewer.request(page);
    expect({ page, status: answer.status }).toEqual({ page, status: 200 });
    const postForms = [...answer.text.matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]);
    expect({ page, postForms }).toEqual({ page, postForms: ['/signout'] });
  }
  expect((await viewer.request(`${ws}/${seeded.campaignId}`)).text).toContain('Stay cool');
  // The pages that are only a form for editors tell a viewer their role cannot do it.
  for (const page of [
    `${ws}/${seeded.campaignId}/variants/new`,
    `${ws}/${seeded.campaignId}/variants/${seeded.variantId}/traffic`,
    `${ws}/${seeded.campaignId}/edit`,
  ]) {
    const answer = await viewer.request(page);
    expect({ page, status: answer.status }).toEqual({ page, status: 403 });
    expect(answer.text).toContain('Your role (viewer) cannot');
  }
});

it('refuses an edit made over a newer version, shows the current text, and changes nothing', async () => {
  const editor = await member('editor', 'editor-conflict@example.test');
  const scope = scopeOf(platform.container, tenant);
  const editPage = `/w/${tenant.workspaceId}/campaigns/${seeded.campaignId}/variants/${seeded.secondVariantId}/edit`;
  const form = (await editor.request(editPage)).text;
  const readVersion = /name="expectedVersion" value="(\d+)"/.exec(form)![1]!;

  // Someone else (an agent) saves first.
  await platform.container.services.campaigns.updateVariant(scope, seeded.secondVariantId, {
    headline: 'Lighter than air',
  });
  const before = await domainFingerprint(platform.container, tenant.workspaceId);
  const answer = await editor.submit(
    editPage,
    `/w/${tenant.workspaceId}/campaigns/${seeded.campaignId}/variants/${seeded.secondVariantId}`,
    { headline: 'My headline', body: 'My text.', callToAction: 'Buy', expectedVersion: readVersion },
  );
  expect(answer.status).toBe(409);
  expect(answer.text).toContain('Someone else changed this variant');
  expect(answer.text).toContain('Lighter than air');
  expect(answer.text).toContain('My headline');
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
  // The form now carries the current version: saving again succeeds.
  const current = /name="expectedVersion" value="(\d+)"/.exec(answer.text)![1]!;
  expect(Number(current)).toBe(Number(readVersion) + 1);
  const saved = await editor.submit(
    editPage,
    `/w/${tenant.workspaceId}/campaigns/${seeded.campaignId}/variants/${seeded.secondVariantId}`,
    { headline: 'My headline', body: 'My text.', callToAction: 'Buy', expectedVersion: current },
  );
  expect(saved.status).toBe(303);
  const variants = await platform.container.services.campaigns.listVariants(scope, { campaignId: seeded.campaignId });
  expect(variants.items.find((variant) => variant.id === seeded.secondVariantId)).toMatchObject({
    headline: 'My headline',
    body: 'My text.',
    callToAction: 'Buy',
  });
});

it('shows the price of a generation without spending credits', async () => {
  const editor = await member('editor', 'editor-quote@example.test');
  const { credits } = platform.container.services;
  const balance = await credits.balance(em(), tenant.workspaceId);
  const campaignsBefore = await em()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) n from campaigns where workspace_id = ?', [tenant.workspaceId]);
  const answer = await editor.submit(
    `/w/${tenant.workspaceId}/campaigns/new`,
    `/w/${tenant.workspaceId}/campaigns/generate`,
    {
      intent: 'Sell linen shirts to summer travellers',
      variantCount: '2',
      includeImages: 'yes',
    },
  );
  expect(answer.status).toBe(200);
  expect(answer.text).toContain('Confirm the price');
  const quoteId = /name="quoteId" value="([^"]+)"/.exec(answer.text)![1]!;
  expect(answer.text).toContain('Confirm and spend');
  expect(answer.text).toContain('Nothing has been spent yet');
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual(balance);
  const campaignsAfter = await em()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) n from campaigns where workspace_id = ?', [tenant.workspaceId]);
  expect(campaignsAfter).toEqual(campaignsBefore);
  const [quote] = await em()
    .getConnection()
    .execute<{ credits: number; used_at: string | null }[]>('select credits, used_at from credit_quotes where id = ?', [
      quoteId,
    ]);
  expect(quote).toMatchObject({ used_at: null });
  expect(answer.text).toContain(`${quote!.credits} credits`);
});

it('regenerates from a step: the quote, then the confirmation starts it and holds exactly the quoted credits', async () => {
  const editor = await member('editor', 'editor-regenerate@example.test');
  const { credits } = platform.container.services;
  const page = `/w/${tenant.workspaceId}/campaigns/${seeded.draftCampaignId}/regenerate`;
  const form = (await editor.request(page)).text;
  // The campaign was never generated: only a run from the brief is offered.
  expect([...form.matchAll(/name="fromStep"\s+value="([a-z]+)"/g)].map((match) => match[1])).toEqual(['brief']);
  const before = await credits.balance(em(), tenant.workspaceId);
  const quoted = await editor.submit(page, page, { fromStep: 'brief', variantCount: '1' });
  expect(quoted.status).toBe(200);
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual(before);
  const quoteId = /name="quoteId" value="([^"]+)"/.exec(quoted.text)![1]!;
  const price = Number(/Confirm and spend (\d+) credits/.exec(quoted.text)![1]);
  const fields = Object.fromEntries(
    [...quoted.text.matchAll(/<input type="hidden" name="([A-Za-z_]+)" value="([^"]*)"/g)].map((match) => [
      match[1]!,
      match[2]!,
    ]),
  );
  expect(fields).toMatchObject({ quoteId, fromStep: 'brief', variantCount: '1' });
  const started = await editor.request(page, fields);
  expect(started).toMatchObject({
    status: 303,
    location: `/w/${tenant.workspaceId}/campaigns/${seeded.draftCampaignId}?done=started`,
  });
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual({
    ...before,
    available: before.available - price,
    held: before.held + price,
  });
  const campaign = await platform.container.services.campaigns.get(
    scopeOf(platform.container, tenant),
    seeded.draftCampaignId,
  );
  expect(campaign.status).toBe('generating');
  // The campaign page follows it: it refreshes itself while the job has not ended.
  const detail = (await editor.request(`/w/${tenant.workspaceId}/campaigns/${seeded.draftCampaignId}?done=started`))
    .text;
  expect(detail).toContain('Generation started.');
  expect(detail).toMatch(/<meta http-equiv="refresh" content="3; url=\/w\/ws_[0-9A-Z]+\/campaigns\/cmp_[0-9A-Z]+" \/>/);
});

it('lists campaigns a page at a time with the tool cursor, filtered by status and name', async () => {
  const other = await createTenant(platform.container, { name: 'Many Campaigns', password: PASSWORD });
  const scope = scopeOf(platform.container, other);
  for (let index = 1; index <= 27; index++) {
    await platform.container.services.campaigns.create(scope, { name: `Campaign ${String(index).padStart(2, '0')}` });
  }
  const session = dashboardSession(platform.urls.platform);
  await session.submit('/signin', '/signin', { email: other.email, password: PASSWORD });
  const list = `/w/${other.workspaceId}/campaigns`;
  const names = (text: string) => [...text.matchAll(/<strong>(Campaign \d+)<\/strong>/g)].map((match) => match[1]);

  const first = (await session.request(list)).text;
  expect(names(first)).toHaveLength(25);
  const next = /<a href="([^"]+)">Next page<\/a>/.exec(first)![1]!.replace(/&amp;/g, '&');
  const second = (await session.request(next)).text;
  expect(names(second)).toHaveLength(2);
  expect(new Set([...names(first), ...names(second)]).size).toBe(27);
  expect(second).toContain('First page');
  expect(second).not.toContain('Next page');

  expect(names((await session.request(`${list}?q=campaign%2007`)).text)).toEqual(['Campaign 07']);
  expect(names((await session.request(`${list}?status=published`)).text)).toEqual([]);
  expect((await session.request(`${list}?status=published`)).text).toContain('No campaign matches these filters.');
  expect(names((await session.request(`${list}?status=draft&q=Campaign%202`)).text).sort()).toEqual([
    'Campaign 20',
    'Campaign 21',
    'Campaign 22',
    'Campaign 23',
    'Campaign 24',
    'Campaign 25',
    'Campaign 26',
    'Campaign 27',
  ]);
});

it('pauses, resumes and ends a placement and archives and restores a campaign, each after saying what changes', async () => {
  const editor = await member('editor', 'editor-placements@example.test');
  const scope = scopeOf(platform.container, tenant);
  const campaignPage = `/w/${tenant.workspaceId}/campaigns/${seeded.campaignId}`;
  const placement = `${campaignPage}/placements/${seeded.deploymentId}`;
  const statusOf = async () =>
    (await platform.container.services.campaigns.listDeployments(scope, { campaignId: seeded.campaignId })).items.find(
      (deployment) => deployment.id === seeded.deploymentId,
    )?.status;

  const steps: [change: string, says: RegExp, done: string, status: string | undefined][] = [
    ['pause', /zone Hero on .+\/home stops showing Console summer/, 'Placement paused.', 'paused'],
    ['resume', /zone Hero on .+\/home shows Console summer again/, 'Placement resumed.', 'active'],
    ['end', /stops showing Console summer for good/, 'Placement ended.', 'ended'],
  ];
  for (const [change, says, done, status] of steps) {
    const confirmation = (await editor.request(`${placement}/${change}`)).text;
    expect(confirmation).toMatch(says);
    const answer = await editor.submit(`${placement}/${change}`, `${placement}/${change}`, {});
    expect(answer).toMatchObject({ status: 303 });
    expect((await editor.request(answer.location!)).text).toContain(done);
    expect(await statusOf()).toBe(status);
  }

  expect((await editor.request(`${campaignPage}/archive`)).text).toContain('stops being shown');
  expect((await editor.submit(`${campaignPage}/archive`, `${campaignPage}/archive`, {})).status).toBe(303);
  expect((await platform.container.services.campaigns.get(scope, seeded.campaignId)).status).toBe('archived');
  const archived = (await editor.request(campaignPage)).text;
  expect(archived).toContain('Restore…');
  expect(archived).not.toContain('/edit"');
  expect((await editor.request(`${campaignPage}/restore`)).text).toContain('Nothing on the brand site changes');
  expect((await editor.submit(`${campaignPage}/restore`, `${campaignPage}/restore`, {})).status).toBe(303);
  expect((await platform.container.services.campaigns.get(scope, seeded.campaignId)).status).toBe('ready');
});

it('answers a campaign that does not exist with the "not found" page', async () => {
  const viewer = dashboardSession(platform.urls.platform);
  await viewer.submit('/signin', '/signin', { email: 'viewer@example.test', password: PASSWORD });
  for (const path of [
    'cmp_00000000000000000000000000',
    'not-an-id',
    `${seeded.campaignId}/placements/dep_00000000000000000000000000/pause`,
  ]) {
    const answer = await viewer.request(`/w/${tenant.workspaceId}/campaigns/${path}`);
    expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    expect(answer.text).toContain('That campaign, variant or placement does not exist.');
  }
});

/** A published campaign of its own (with two variants, the first the control), so no other test's state matters. */
async function publishedCampaign(name: string) {
  const { campaigns } = platform.container.services;
  const scope = scopeOf(platform.container, tenant);
  const campaign = await campaigns.create(scope, { name, objective: 'Sell hats' });
  const first = await campaigns.createVariant(scope, campaign.id, {
    headline: 'Shade for summer',
    body: 'Straw hats.',
    callToAction: 'Shop hats',
  });
  const second = await campaigns.createVariant(scope, campaign.id, {
    headline: 'Hats off',
    body: 'Panama hats.',
    callToAction: 'See hats',
  });
  await campaigns.publish(scope, campaign.id);
  return { campaignId: campaign.id, firstId: first.id, secondId: second.id };
}

const variantsOf = async (campaignId: string) =>
  (await platform.container.services.campaigns.listVariants(scopeOf(platform.container, tenant), { campaignId })).items;

it('adds a variant; refused input changes nothing and is kept, with the tool’s message at the field', async () => {
  const editor = await member('editor', 'editor-add@example.test');
  const { campaignId } = await publishedCampaign('Hat season');
  const page = `/w/${tenant.workspaceId}/campaigns/${campaignId}`;
  expect((await editor.request(page)).text).toContain(`href="${page}/variants/new"`);

  const before = await domainFingerprint(platform.container, tenant.workspaceId);
  const refused = await editor.submit(`${page}/variants/new`, `${page}/variants`, {
    name: '',
    headline: '   ',
    body: 'Felt hats for cold days.',
    callToAction: 'Shop felt',
  });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('Not saved. Check the form: Headline: must not be empty.');
  expect(refused.text).toMatch(/aria-invalid="true"\s+aria-describedby="headline-error"/);
  expect(refused.text).toContain('<p class="field-error" id="headline-error">must not be empty</p>');
  expect(refused.text).toContain('Felt hats for cold days.');
  expect(refused.text).toContain('value="Shop felt"');
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);

  const added = await editor.submit(`${page}/variants/new`, `${page}/variants`, {
    name: 'Felt',
    headline: 'Warm heads',
    body: 'Felt hats for cold days.',
    callToAction: 'Shop felt',
  });
  expect(added.status).toBe(303);
  const variant = (await variantsOf(campaignId)).find((candidate) => candidate.name === 'Felt')!;
  expect(variant).toMatchObject({ headline: 'Warm heads', status: 'active', weight: 50, isControl: false });
  expect(added.location).toBe(`${page}?done=variant_added#variant-${variant.id}`);
  expect((await editor.request(added.location!)).text).toContain('Variant added.');
  // The same audit line as the agent's create_variant.
  expect(await latestAudit()).toMatchObject({
    action: 'mcp.manage_campaigns.create_variant',
    outcome: 'success',
    actor: expect.stringMatching(/^user:/),
  });
  // Three active variants at weight 50 each: a third of the visitors each.
  expect((await editor.request(page)).text).toContain('33% of visitors, weight 50');
});

it('pauses a variant, changes its weight and makes it the control, with the version check of the copy edit', async () => {
  const editor = await member('editor', 'editor-traffic@example.test');
  const { campaignId, firstId, secondId } = await publishedCampaign('Hat traffic');
  const page = `/w/${tenant.workspaceId}/campaigns/${campaignId}`;
  const traffic = `${page}/variants/${secondId}/traffic`;
  const form = (await editor.request(traffic)).text;
  expect(form).toContain('How visitors are split now');
  const version = /name="expectedVersion" value="(\d+)"/.exec(form)![1]!;

  // A weight the tool refuses: nothing changes, the form comes back with it.
  const before = await domainFingerprint(platform.container, tenant.workspaceId);
  const refused = await editor.submit(traffic, traffic, {
    variantStatus: 'active',
    weight: '150',
    expectedVersion: version,
  });
  expect(refused.status).toBe(400);
  expect(refused.text).toMatch(/Not saved\. Check the form: Weight: .*100/);
  expect(refused.text).toContain('value="150"');
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);

  const saved = await editor.submit(traffic, traffic, {
    variantStatus: 'paused',
    weight: '20',
    isControl: 'yes',
    expectedVersion: version,
  });
  expect(saved).toMatchObject({ status: 303, location: `${page}?done=traffic#variant-${secondId}` });
  const variants = await variantsOf(campaignId);
  expect(variants.find((variant) => variant.id === secondId)).toMatchObject({
    status: 'paused',
    weight: 20,
    isControl: true,
    version: Number(version) + 1,
  });
  expect(variants.find((variant) => variant.id === firstId)).toMatchObject({ isControl: false });
  const detail = (await editor.request(`${page}?done=traffic`)).text;
  expect(detail).toContain('Traffic saved.');
  expect(detail).toContain('no visitors (paused)');
  expect(detail).toContain('100% of visitors');

  // Saved over a newer version (an agent resumed it meanwhile): refused, the current settings shown, nothing saved.
  await platform.container.services.campaigns.updateVariant(scopeOf(platform.container, tenant), secondId, {
    status: 'active',
  });
  const beforeConflict = await domainFingerprint(platform.container, tenant.workspaceId);
  const conflict = await editor.submit(traffic, traffic, {
    variantStatus: 'paused',
    weight: '5',
    expectedVersion: String(Number(version) + 1),
  });
  expect(conflict.status).toBe(409);
  expect(conflict.text).toContain('Someone else changed this variant');
  expect(conflict.text).toMatch(/<strong>Now:<\/strong> active, weight 20, the control/);
  expect(conflict.text).toMatch(/<strong>Your choice:<\/strong>\s*paused, weight 5, the control/);
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(beforeConflict);
  expect(/name="expectedVersion" value="(\d+)"/.exec(conflict.text)![1]).toBe(String(Number(version) + 2));

  // Pausing the last active variant of a published campaign is the tool's conflict, shown on the form.
  await platform.container.services.campaigns.updateVariant(scopeOf(platform.container, tenant), secondId, {
    status: 'paused',
  });
  const lastTraffic = `${page}/variants/${firstId}/traffic`;
  const lastVersion = /name="expectedVersion" value="(\d+)"/.exec((await editor.request(lastTraffic)).text)![1]!;
  const last = await editor.submit(lastTraffic, lastTraffic, {
    variantStatus: 'paused',
    weight: '50',
    expectedVersion: lastVersion,
  });
  expect(last.status).toBe(409);
  expect(last.text).toContain('A published campaign needs at least one active variant');
});

it('deletes a variant after saying what changes publicly, and refuses to offer deleting the last active one', async () => {
  const editor = await member('editor', 'editor-delete@example.test');
  const scope = scopeOf(platform.container, tenant);
  const { campaignId, firstId, secondId } = await publishedCampaign('Hat removal');
  const page = `/w/${tenant.workspaceId}/campaigns/${campaignId}`;

  // The control, active, of a published campaign with another active variant.
  const confirmation = (await editor.request(`${page}/variants/${firstId}/delete`)).text;
  expect(confirmation).toContain('The brand site is republished without Variant A (&quot;Shade for summer&quot;)');
  expect(confirmation).toContain('shown Variant B instead');
  expect(confirmation).toContain('Variant A is the control of the A/B comparison; Variant B becomes the control.');
  const deleted = await editor.submit(`${page}/variants/${firstId}/delete`, `${page}/variants/${firstId}/delete`, {});
  expect(deleted).toMatchObject({ status: 303, location: `${page}?done=variant_deleted` });
  expect((await editor.request(deleted.location!)).text).toContain('Variant deleted.');
  expect((await variantsOf(campaignId)).map((variant) => [variant.id, variant.isControl])).toEqual([[secondId, true]]);
  expect(await latestAudit()).toMatchObject({
    action: 'mcp.manage_campaigns.delete_variant',
    target_id: firstId,
    outcome: 'success',
  });

  // The only active variant of a published campaign: the page says why not, and offers no button.
  const only = (await editor.request(`${page}/variants/${secondId}/delete`)).text;
  expect(only).toContain('is the only active variant of this published campaign, so it cannot be deleted');
  expect(only).not.toContain(`action="${page}/variants/${secondId}/delete"`);
  // Posted anyway: the tool's conflict, nothing changed.
  const before = await domainFingerprint(platform.container, tenant.workspaceId);
  const refused = await editor.request(`${page}/variants/${secondId}/delete`, {
    _csrf: /name="_csrf" value="([^"]+)"/.exec(only)![1]!,
  });
  expect(refused.status).toBe(409);
  expect(refused.text).toContain('Cannot delete the only active variant of a published campaign');
  expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);

  // A campaign that is not published: nothing public changes.
  const draft = await platform.container.services.campaigns.create(scope, { name: 'Hat draft' });
  const draftVariant = await platform.container.services.campaigns.createVariant(scope, draft.id, {
    headline: 'Soon',
    body: 'Hats soon.',
    callToAction: 'Wait',
  });
  expect(
    (await editor.request(`/w/${tenant.workspaceId}/campaigns/${draft.id}/variants/${draftVariant.id}/delete`)).text,
  ).toContain('The campaign is not published, so nothing changes on the brand site.');
});

it('changes the name, objective, public summary and schedule; refused input changes nothing and is kept', async () => {
  const editor = await member('editor', 'editor-details@example.test');
  const { campaignId } = await publishedCampaign('Hat details');
  const page = `/w/${tenant.workspaceId}/campaigns/${campaignId}`;
  const edit = `${page}/edit`;
  const form = (await editor.request(edit)).text;
  expect(form).toContain('value="Hat details"');
  expect(form).toContain('Sell hats</textarea');

  const valid = {
    name: 'Hats for the sun',
    objective: 'Sell straw hats before July',
    publicSummary: 'Straw and panama hats for sunny days.',
    startsAt: '2026-12-01T09:00',
    endsAt: '2026-12-31T18:30',
  };
  const refusals: [form: Record<string, string>, status: number, notice: string][] = [
    [{ ...valid, name: '   ' }, 400, 'Not saved. Check the form: Name: must not be empty.'],
    [{ ...valid, startsAt: 'next tuesday' }, 400, 'Not saved. Check the form: Starts: must be an ISO 8601 date-time'],
    [
      { ...valid, endsAt: '2026-11-30T00:00' },
      409,
      'Not saved: the end must be after the start (endsAt must be after startsAt).',
    ],
  ];
  for (const [input, status, notice] of refusals) {
    const before = await domainFingerprint(platform.container, tenant.workspaceId);
    const answer = await editor.submit(edit, edit, input);
    expect({ notice, status: answer.status }).toEqual({ notice, status });
    expect(answer.text).toContain(notice);
    expect(answer.text).toContain('aria-invalid="true"');
    // The person's input is kept.
    expect(answer.text).toContain('Sell straw hats before July</textarea');
    expect(answer.text).toContain(`value="${input.startsAt}"`);
    expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
  }

  const saved = await editor.submit(edit, edit, valid);
  expect(saved).toMatchObject({ status: 303, location: `${page}?done=details` });
  const scope = scopeOf(platform.container, tenant);
  expect(await platform.container.services.campaigns.get(scope, campaignId)).toMatchObject({
    name: 'Hats for the sun',
    objective: 'Sell straw hats before July',
    publicSummary: 'Straw and panama hats for sunny days.',
    startsAt: '2026-12-01T09:00:00.000Z',
    endsAt: '2026-12-31T18:30:00.000Z',
  });
  const detail = (await editor.request(saved.location!)).text;
  expect(detail).toContain('Campaign saved.');
  expect(detail).toContain('2026-12-01 09:00 UTC to 2026-12-31 18:30 UTC');

  // The audit line is the one the agent's same update writes (with an editor key).
  const consoleLine = await latestAudit();
  const editorKey = await createKey(platform.container, tenant, 'editor');
  const mcp = await callMcp(editorKey, 'manage_campaigns', {
    action: 'update',
    campaignId,
    name: 'Hats for the sun',
    objective: 'Sell straw hats before July',
    publicSummary: 'Straw and panama hats for sunny days.',
    startsAt: '2026-12-01T09:00:00Z',
    endsAt: '2026-12-31T18:30:00Z',
  });
  expect(mcp.result.isError).toBeFalsy();
  const mcpLine = await latestAudit();
  const comparable = ({ action, target_type, target_id, outcome }: AuditRow) => ({
    action,
    target_type,
    target_id,
    outcome,
  });
  expect(comparable(consoleLine)).toEqual(comparable(mcpLine));
  expect(consoleLine).toMatchObject({ action: 'mcp.manage_campaigns.update', outcome: 'success' });

  // Emptied fields clear: no objective, the summary from the active variant, no schedule.
  const cleared = await editor.submit(edit, edit, {
    name: 'Hats for the sun',
    objective: '',
    publicSummary: '',
    startsAt: '',
    endsAt: '',
  });
  expect(cleared.status).toBe(303);
  // A fresh scope: the one above holds the campaign as it read it.
  expect(
    await platform.container.services.campaigns.get(scopeOf(platform.container, tenant), campaignId),
  ).toMatchObject({
    objective: null,
    publicSummary: null,
    startsAt: null,
    endsAt: null,
  });
});
