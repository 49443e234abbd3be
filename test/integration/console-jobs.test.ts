/**
 * The console's Jobs pages over plain HTTP, as a browser posts their forms: the list shows what each job is
 * for by name, its status and progress, the credits it reserved and spent and who started it; a viewer who
 * posts Cancel, Approve or Revise directly is refused (403) and nothing changes; and every console action,
 * refused or done, leaves the same audit line as the same MCP call (`tasks/cancel`, `video_commission approve |
 * revise`), apart from who the actor is.
 *
 * Job rows are written directly (as `seed.ts` does): the refusals and the cancellation request never reach a
 * workflow, so no worker is needed here (the e2e test drives a real film through its gate).
 */
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { FilmCommission } from '../../src/domain/films/film-commission.entity.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { modernRpc } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const PASSWORD = 'a long enough password';

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let viewer: { userId: string; browser: DashboardSession; key: string; keyId: string };
let editor: { userId: string; browser: DashboardSession; key: string; keyId: string };
let owner: DashboardSession;
let filmJobId: string;
let runningJobs: string[];

const em = () => acrossWorkspaces(platform.container.orm.em);

async function member(role: 'viewer' | 'editor') {
  const { workspaces } = platform.container.services;
  const user = await workspaces.createUser(em(), {
    email: `${role}-${tenant.workspaceId.slice(-6).toLowerCase()}@example.test`,
    name: role === 'viewer' ? 'Vera Viewer' : 'Ed Editor',
    password: PASSWORD,
  });
  await workspaces.setMember(em(), tenant.workspaceId, { email: user.email, role });
  const browser = dashboardSession(platform.urls.platform);
  expect((await browser.submit('/signin', '/signin', { email: user.email, password: PASSWORD })).status).toBe(302);
  const key = await createKey(platform.container, tenant, role, `${role} agent`);
  const [row] = await workspaces
    .listApiKeys(em(), tenant.workspaceId)
    .then((keys) => keys.filter((candidate) => candidate.name === `${role} agent`));
  return { userId: user.id, browser, key, keyId: row!.id };
}

/** A job row as a workflow would have left it. */
async function jobRow(fields: Partial<Job> & Pick<Job, 'kind' | 'status'>): Promise<Job> {
  const job = em().create(Job, {
    workspace: tenant.workspaceId,
    taskId: newTaskId(),
    workflowId: `${fields.kind}:${tenant.workspaceId}:${Math.random().toString(36).slice(2)}`,
    runId: null,
    subjectId: null,
    input: {},
    progress: { fraction: 0 },
    result: null,
    error: null,
    createdBy: `user:${tenant.userId}`,
    startedAt: new Date(),
    finishedAt: null,
    cancelRequestedAt: null,
    ...fields,
  });
  await em().persist(job).flush();
  return job;
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-jobs', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  tenant = await createTenant(platform.container, { name: 'Linen Co', password: PASSWORD, credits: 200 });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  owner = dashboardSession(platform.urls.platform);
  expect((await owner.submit('/signin', '/signin', { email: tenant.email, password: PASSWORD })).status).toBe(302);
  viewer = await member('viewer');
  editor = await member('editor');

  // The seeded film waits at its storyboard gate: give it the job an agent would see as input_required.
  const film = await em().findOneOrFail(FilmCommission, { id: seeded.commissionId });
  const filmJob = await jobRow({
    kind: 'film',
    status: 'input_required',
    subjectId: film.id,
    progress: { fraction: 0, message: 'Approve the storyboard, or revise it with notes' },
  });
  film.jobId = filmJob.id;
  await em().flush();
  filmJobId = filmJob.id;

  // Two renders at work, one started by the editor's agent, with credits reserved and partly captured.
  runningJobs = [];
  for (const [index, createdBy] of [`key:${editor.keyId}`, `user:${tenant.userId}`].entries()) {
    const job = await jobRow({
      kind: 'render',
      status: 'running',
      subjectId: seeded.campaignId,
      input: { request: { mode: 'video', campaignId: seeded.campaignId } },
      progress: { fraction: 0.4, step: 'encode' },
      createdBy,
    });
    const { credits } = platform.container.services;
    const posting = { workspaceId: tenant.workspaceId, reference: job.id, actor: 'test' };
    await credits.reserve(em(), { ...posting, amount: 15, idempotencyKey: `reserve:${job.id}` });
    await credits.capture(em(), { ...posting, amount: 5 + index, idempotencyKey: `capture:${job.id}` });
    runningJobs.push(job.id);
  }
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
});

/** The audit lines an actor left, oldest first, without what differs between edges (actor, request, address). */
async function auditLinesOf(actor: string) {
  return em()
    .getConnection()
    .execute<
      { action: string; target_type: string | null; target_id: string | null; outcome: string; details: unknown }[]
    >(
      `select action, target_type, target_id, outcome, details from audit_events
       where workspace_id = ? and actor = ? order by created_at, id`,
      [tenant.workspaceId, actor],
    );
}

const jobStatus = async (id: string) => (await em().fork().findOneOrFail(Job, { id })).status;
const filmStatus = async () => (await em().fork().findOneOrFail(FilmCommission, { id: seeded.commissionId })).status;

it('lists the jobs with what they are for, status and progress, credits and who started them', async () => {
  const page = await owner.request(`/w/${tenant.workspaceId}/jobs`);
  expect(page.status).toBe(200);
  const text = page.text.replace(/\s+/g, ' ');
  expect(text).toContain('Render: a video of campaign “Linen summer”');
  expect(text).toContain('Film: “Linen film” for campaign “Linen summer”');
  expect(text).toContain('Waiting for approval');
  expect(text).toMatch(/<progress max="100" value="40"/);
  expect(text).toContain('Step: encode');
  expect(text).toContain('6 credits spent');
  expect(text).toContain('15 reserved, 9 still held');
  expect(text).toContain('API key “editor agent”');
  expect(text).toContain(`Owner `); // the owner's name (createTenant names them "Owner <tag>")
  // Running jobs are shown: the person may follow them live (the page then reloads itself); the film waiting
  // for a decision is pointed out.
  expect(page.text).not.toContain('http-equiv="refresh"');
  expect(text).toContain('Follow progress live');
  const live = await owner.request(`/w/${tenant.workspaceId}/jobs?live=1`);
  expect(live.text).toContain('<meta http-equiv="refresh" content="3"');
  expect(live.text.replace(/\s+/g, ' ')).toContain('Stop following');
  expect(text).toContain('1 film waits for your decision');
  // Newest first: the renders were made after the film's job.
  expect(text.indexOf('Render: a video')).toBeLessThan(text.indexOf('Film: “Linen film”'));
  // No raw ids where a name exists.
  expect(text).not.toContain(seeded.campaignId);

  const done = (await owner.request(`/w/${tenant.workspaceId}/jobs?status=succeeded&live=1`)).text;
  expect(done).toContain('Render: a still of campaign “Linen summer”');
  expect(done).not.toContain('Render: a video');
  expect(done).not.toContain('http-equiv="refresh"');
});

it('names product imports by their source and channel posts by their text and account, in the list and on their page', async () => {
  const imported = await jobRow({
    kind: 'product_import',
    status: 'succeeded',
    input: { sourceUrl: 'https://shop.example/catalog/linen.csv' },
    progress: { fraction: 1, message: '12 products imported' },
    finishedAt: new Date(),
  });
  const posting = await jobRow({
    kind: 'bluesky_post',
    status: 'running',
    subjectId: seeded.channels.bluesky.postId,
    progress: { fraction: 0.5, step: 'upload' },
  });
  const list = (await owner.request(`/w/${tenant.workspaceId}/jobs`)).text.replace(/\s+/g, ' ');
  expect(list).toContain('Product import: products from shop.example/catalog/linen.csv');
  expect(list).toContain('Bluesky post: “Linen post” as @linen.bsky.social');
  const importPage = await owner.request(`/w/${tenant.workspaceId}/jobs/${imported.id}`);
  expect(importPage.status).toBe(200);
  expect(importPage.text).toContain(
    '<h1 class="job-title">Product import: products from shop.example/catalog/linen.csv</h1>',
  );
  expect(importPage.text).not.toContain('/cancel"'); // finished: nothing to stop
  const postPage = await owner.request(`/w/${tenant.workspaceId}/jobs/${posting.id}`);
  expect(postPage.status).toBe(200);
  expect(postPage.text).toContain('Bluesky post: “Linen post” as @linen.bsky.social');
  expect(postPage.text).toContain('Cancel this Bluesky post');
  // Cleaned up, so the other tests' lists and counts stay as they expect.
  await em().nativeDelete(Job, { id: { $in: [imported.id, posting.id] } });
});

it('shows a viewer every job but no button that acts', async () => {
  const list = await viewer.browser.request(`/w/${tenant.workspaceId}/jobs`);
  expect(list.status).toBe(200);
  const filmPage = (await viewer.browser.request(`/w/${tenant.workspaceId}/jobs/${filmJobId}`)).text;
  expect(filmPage).toContain('waits for your decision on the storyboard');
  expect(filmPage).not.toContain('/approve"');
  expect(filmPage).not.toContain('/revise"');
  const renderPage = (await viewer.browser.request(`/w/${tenant.workspaceId}/jobs/${runningJobs[0]}`)).text;
  expect(renderPage).not.toContain('/cancel"');
});

describe('a viewer posting the forms directly', () => {
  const page = () => `/w/${tenant.workspaceId}/jobs/${filmJobId}`;

  it('cannot cancel: 403, the job keeps running, the audit line is the MCP tasks/cancel line', async () => {
    const jobId = runningJobs[0]!;
    const refused = await viewer.browser.submit(page(), `/w/${tenant.workspaceId}/jobs/${jobId}/cancel`, {});
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role (viewer) does not allow cancelling a job');
    expect(await jobStatus(jobId)).toBe('running');

    const { taskId } = await em().fork().findOneOrFail(Job, { id: jobId });
    const mcp = await modernRpc(platform.urls.mcp, viewer.key, 'tasks/cancel', taskId, { taskId });
    expect(mcp.error?.message).toContain('Your role (viewer) does not allow cancelling a job');
    expect(await jobStatus(jobId)).toBe('running');

    const [fromConsole] = (await auditLinesOf(`user:${viewer.userId}`)).slice(-1);
    const [fromMcp] = (await auditLinesOf(`key:${viewer.keyId}`)).slice(-1);
    expect(fromConsole).toEqual({
      action: 'mcp.tasks.cancel',
      target_type: 'job',
      target_id: jobId,
      outcome: 'denied',
      details: { kind: 'render', reason: 'role', role: 'viewer' },
    });
    expect(fromMcp).toEqual(fromConsole);
  });

  it.each([
    ['approve', {}],
    ['revise', { notes: 'Make the second scene happen at the beach.' }],
  ] as const)(
    'cannot %s the film: 403, the film still waits, the audit line is the MCP call’s',
    async (action, form) => {
      const refused = await viewer.browser.submit(page(), `/w/${tenant.workspaceId}/jobs/${filmJobId}/${action}`, form);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain(
        'Your role (viewer) does not allow this: starting paid work (generations, renders, films) takes the editor role or above.',
      );
      expect(await filmStatus()).toBe('awaiting_storyboard_approval');
      expect(await jobStatus(filmJobId)).toBe('input_required');

      const mcp = await modernRpc(
        platform.urls.mcp,
        viewer.key,
        'tools/call',
        'video_commission',
        { name: 'video_commission', arguments: { action, commissionId: seeded.commissionId, ...form } },
        false,
      );
      expect(mcp.result).toMatchObject({ isError: true });
      expect(await filmStatus()).toBe('awaiting_storyboard_approval');

      const [fromConsole] = (await auditLinesOf(`user:${viewer.userId}`)).slice(-1);
      const [fromMcp] = (await auditLinesOf(`key:${viewer.keyId}`)).slice(-1);
      expect(fromConsole).toEqual({
        action: `mcp.video_commission.${action}`,
        target_type: 'commission',
        target_id: seeded.commissionId,
        outcome: 'denied',
        details: { reason: 'role', role: 'viewer' },
      });
      expect(fromMcp).toEqual(fromConsole);

      // Nor through the task's own gate (2026 `tasks/update`), which answers the same approval.
      const { taskId } = await em().fork().findOneOrFail(Job, { id: filmJobId });
      const update = await modernRpc(platform.urls.mcp, viewer.key, 'tasks/update', taskId, {
        taskId,
        inputResponses: { approval: { action: 'accept', content: { decision: action, notes: 'n', quoteId: 'qte_x' } } },
      });
      expect(update.error?.message).toContain("does not allow answering a film's approval");
      expect(await filmStatus()).toBe('awaiting_storyboard_approval');
      expect((await auditLinesOf(`key:${viewer.keyId}`)).slice(-1)).toEqual([
        {
          action: 'mcp.tasks.update',
          target_type: 'job',
          target_id: filmJobId,
          outcome: 'denied',
          details: { kind: 'film', decision: action, reason: 'role', role: 'viewer' },
        },
      ]);
    },
  );
});

it('lets an editor cancel from the page, audited as the same tasks/cancel from an agent', async () => {
  const [fromPage, fromAgent] = runningJobs as [string, string];
  const cancelled = await editor.browser.submit(
    `/w/${tenant.workspaceId}/jobs/${fromPage}`,
    `/w/${tenant.workspaceId}/jobs/${fromPage}/cancel`,
    {},
  );
  expect(cancelled).toMatchObject({ status: 302, location: `/w/${tenant.workspaceId}/jobs/${fromPage}?done=cancel` });
  expect(await jobStatus(fromPage)).toBe('cancel_requested');
  const after = (await editor.browser.request(cancelled.location!)).text;
  expect(after).toContain('Cancellation requested');
  expect(after).toContain('Cancelling');
  expect(after).not.toContain('/cancel"');

  const { taskId } = await em().fork().findOneOrFail(Job, { id: fromAgent });
  expect((await modernRpc(platform.urls.mcp, editor.key, 'tasks/cancel', taskId, { taskId })).result).toBeDefined();
  expect(await jobStatus(fromAgent)).toBe('cancel_requested');

  const [fromConsole] = (await auditLinesOf(`user:${editor.userId}`)).slice(-1);
  const [fromMcp] = (await auditLinesOf(`key:${editor.keyId}`)).slice(-1);
  expect(fromConsole).toEqual({
    action: 'mcp.tasks.cancel',
    target_type: 'job',
    target_id: fromPage,
    outcome: 'success',
    details: { kind: 'render' },
  });
  expect({ ...fromMcp, target_id: fromPage }).toEqual(fromConsole);
});

it('asks an editor before a paid revision: the quote, the notes, and a button that spends it', async () => {
  const before = await platform.container.services.credits.balance(em(), tenant.workspaceId);
  const quoted = await editor.browser.submit(
    `/w/${tenant.workspaceId}/jobs/${filmJobId}`,
    `/w/${tenant.workspaceId}/jobs/${filmJobId}/revise`,
    { notes: 'Make the second scene happen at the beach.' },
  );
  expect(quoted.status).toBe(200);
  const text = quoted.text.replace(/\s+/g, ' ');
  expect(text).toContain('Revise the storyboard of “Linen film”?');
  expect(text).toMatch(/This revision costs <strong>8 credits<\/strong>/);
  expect(text).toContain('Make the second scene happen at the beach.');
  expect(text).toMatch(/<input type="hidden" name="quoteId" value="qte_[0-9A-Z]+"/);
  expect(text).toContain('Spend 8 credits and revise');
  // Nothing was spent and the film still waits: only the confirmation spends.
  expect(await platform.container.services.credits.balance(em(), tenant.workspaceId)).toEqual(before);
  expect(await filmStatus()).toBe('awaiting_storyboard_approval');
  const [line] = (await auditLinesOf(`user:${editor.userId}`)).slice(-1);
  expect(line).toMatchObject({ action: 'mcp.video_commission.revise', outcome: 'success' });
});
