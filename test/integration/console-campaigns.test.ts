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
  ]) {
    const answer = await viewer.request(page);
    expect({ page, status: answer.status }).toEqual({ page, status: 200 });
    const postForms = [...answer.text.matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]);
    expect({ page, postForms }).toEqual({ page, postForms: ['/signout'] });
  }
  expect((await viewer.request(`${ws}/${seeded.campaignId}`)).text).toContain('Stay cool');
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
