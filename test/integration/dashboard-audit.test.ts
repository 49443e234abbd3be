/**
 * Every dashboard action writes its audit line the same way (kit.recordAudit): the signed-in person as actor,
 * the page's workspace, and the request's address and id. Driven over plain HTTP with the session and CSRF
 * cookies a browser would keep.
 */
import { closeTestFetch } from '../support/http.ts';
import { dashboardSession } from '../support/dashboard-session.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'dashboard-audit' });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

const browserSession = () => dashboardSession(platform.urls.platform);

it('records sign-up, sign-in and workspace actions with the actor, workspace, address and request id', async () => {
  const browser = browserSession();
  const signedUp = await browser.submit('/signup', '/signup', {
    name: 'Audrey',
    email: 'audrey@example.test',
    password: 'a long enough password',
  });
  expect(signedUp).toMatchObject({ status: 302, location: '/workspaces' });
  const created = await browser.submit('/workspaces', '/workspaces', { name: 'Audited' });
  const workspaceId = /^\/w\/(ws_[0-9A-Z]{26})$/.exec(created.location ?? '')![1]!;
  const keyPage = await browser.submit(`/w/${workspaceId}/keys`, `/w/${workspaceId}/keys`, {
    name: 'audited key',
    role: 'editor',
  });
  expect(keyPage.status).toBe(200);
  const [key] = await platform.container.services.workspaces.listApiKeys(
    acrossWorkspaces(platform.container.orm.em),
    workspaceId,
  );
  await browser.submit(`/w/${workspaceId}/keys`, `/w/${workspaceId}/keys/${key!.id}/disable`, {});
  const wrong = await browserSession().submit('/signin', '/signin', {
    email: 'audrey@example.test',
    password: 'not the password',
  });
  expect(wrong.status).toBe(401);

  const user = await platform.container.services.workspaces.findUserByEmail(
    acrossWorkspaces(platform.container.orm.em),
    'audrey@example.test',
  );
  const rows = await acrossWorkspaces(platform.container.orm.em)
    .getConnection()
    .execute<
      {
        workspace_id: string | null;
        actor: string;
        action: string;
        outcome: string;
        target_id: string | null;
        ip: string | null;
        request_id: string | null;
      }[]
    >(
      `select workspace_id, actor, action, outcome, target_id, ip, request_id from audit_events
       where actor = ? or (actor = 'anonymous' and details->>'email' = ?) order by created_at, id`,
      [`user:${user!.id}`, 'audrey@example.test'],
    );
  expect(
    rows.map(({ workspace_id, actor, action, outcome, target_id }) => ({
      workspace_id,
      actor,
      action,
      outcome,
      target_id,
    })),
  ).toEqual([
    { workspace_id: null, actor: `user:${user!.id}`, action: 'account.sign_up', outcome: 'success', target_id: null },
    {
      workspace_id: workspaceId,
      actor: `user:${user!.id}`,
      action: 'workspace.create',
      outcome: 'success',
      target_id: workspaceId,
    },
    {
      workspace_id: workspaceId,
      actor: `user:${user!.id}`,
      action: 'api_key.create',
      outcome: 'success',
      target_id: key!.id,
    },
    {
      workspace_id: workspaceId,
      actor: `user:${user!.id}`,
      action: 'api_key.disable',
      outcome: 'success',
      target_id: key!.id,
    },
    { workspace_id: null, actor: 'anonymous', action: 'session.sign_in', outcome: 'denied', target_id: null },
  ]);
  for (const row of rows) {
    expect(row.ip).toMatch(/127\.0\.0\.1/);
    expect(row.request_id).toEqual(expect.any(String));
  }
  expect(new Set(rows.map((row) => row.request_id)).size).toBe(rows.length);
});
