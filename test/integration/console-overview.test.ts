/**
 * The workspace's home page (`/w/:id`): what waits for a decision, what runs, the last seven days as
 * `query_analytics` counts them, the latest campaigns and the credits — for every role, with the one action link
 * (a new campaign) only for roles that may start one.
 */
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { dashboardSession } from '../support/dashboard-session.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { modernRpc } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const PASSWORD = 'a long enough password';
let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
const jobIds: Record<'waiting' | 'running', string> = { waiting: '', running: '' };

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-overview' });
  tenant = await createTenant(platform.container, { name: 'Overview House', password: PASSWORD, credits: 250 });
  seeded = await seedWorkspace(platform.container, tenant, 'Overview');
  const em = acrossWorkspaces(platform.container.orm.em);
  const job = (kind: string, status: 'input_required' | 'running', subjectId: string, fraction: number) =>
    em.create(Job, {
      workspace: tenant.workspaceId,
      taskId: newTaskId(),
      kind,
      status,
      workflowId: `${kind}:${tenant.workspaceId}:${status}`,
      runId: null,
      subjectId,
      input: {},
      progress: { fraction },
      result: null,
      error: null,
      createdBy: `user:${tenant.userId}`,
      startedAt: new Date(),
      finishedAt: null,
      cancelRequestedAt: null,
    });
  const waiting = job('film', 'input_required', seeded.commissionId, 0.3);
  const running = job('campaign_generation', 'running', seeded.draftCampaignId, 0.5);
  await em.flush();
  jobIds.waiting = waiting.id;
  jobIds.running = running.id;
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

async function homeAs(email: string): Promise<string> {
  const browser = dashboardSession(platform.urls.platform);
  expect((await browser.submit('/signin', '/signin', { email, password: PASSWORD })).status).toBe(302);
  const home = await browser.request(`/w/${tenant.workspaceId}`);
  expect(home.status).toBe(200);
  return home.text;
}

const sectionOf = (page: string, heading: string) => {
  const start = page.indexOf(`>${heading}</h2>`);
  expect(start).toBeGreaterThan(0);
  return page.slice(start, page.indexOf('</section>', start));
};

it('shows what waits, what runs, the latest campaigns and the credits', async () => {
  const page = await homeAs(tenant.email);
  const waiting = sectionOf(page, 'Waiting for a decision');
  expect(waiting).toContain(`href="/w/${tenant.workspaceId}/jobs/${jobIds.waiting}"`);
  expect(waiting).toContain('Overview film');
  expect(waiting).not.toContain(jobIds.running);
  const running = sectionOf(page, 'Running now');
  expect(running).toContain(`href="/w/${tenant.workspaceId}/jobs/${jobIds.running}"`);
  expect(running).toContain('50%');
  const latest = sectionOf(page, 'Latest campaigns');
  expect(latest).toContain('Overview summer');
  expect(latest).toContain(`href="/w/${tenant.workspaceId}/campaigns/new"`);
  expect(sectionOf(page, 'Credits')).toContain('<strong>250</strong>');
});

it('counts the last seven days exactly as query_analytics does', async () => {
  const page = sectionOf(await homeAs(tenant.email), 'Last 7 days');
  const answer = await modernRpc(platform.urls.mcp, tenant.apiKey, 'tools/call', 'query_analytics', {
    name: 'query_analytics',
    arguments: { action: 'snapshot', window: '7d' },
  });
  const summary = (answer.result as { structuredContent: { snapshot: { summary: Record<string, number> } } })
    .structuredContent.snapshot.summary;
  for (const [label, value] of [
    ['Impressions', summary.impressions],
    ['Reach', summary.reach],
    ['Clicks', summary.clicks],
    ['Conversions', summary.conversions],
  ] as const) {
    expect(page).toMatch(new RegExp(`<dt>${label}</dt>\\s*<dd>${value!.toLocaleString('en-US')}</dd>`));
  }
});

it('gives a viewer the same page without the link to start a campaign', async () => {
  await createKey(platform.container, tenant, 'viewer');
  const em = acrossWorkspaces(platform.container.orm.em);
  const email = 'viewer-home@example.test';
  await platform.container.services.workspaces.createUser(em, { email, name: 'Vera Viewer', password: PASSWORD });
  await platform.container.services.workspaces.setMember(em, tenant.workspaceId, { email, role: 'viewer' });
  const page = await homeAs(email);
  expect(sectionOf(page, 'Latest campaigns')).not.toContain('/campaigns/new');
  expect(sectionOf(page, 'Waiting for a decision')).toContain(jobIds.waiting);
});
