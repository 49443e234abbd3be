/**
 * The dashboard as a person uses it, in headless Chromium: sign up → create a workspace → create an API key
 * → call /api/mcp with it → disable it → 401. Then members and roles, connected apps, the audit log, and the
 * rules: viewers cannot mutate, another workspace's pages answer "not found", forms need their CSRF token.
 */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let browser: Browser;

const PASSWORD = 'a long enough password';

async function callMcp(key: string) {
  const response = await testFetch(platform.urls.mcp, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_platform_info', arguments: { topic: 'organization' } },
    }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function signUp(page: Page, name: string, email: string) {
  await page.goto(`${platform.urls.platform}/signup`);
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
}

async function createWorkspace(page: Page, name: string): Promise<string> {
  await page.goto(`${platform.urls.platform}/workspaces`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name }).waitFor();
  return /\/w\/(ws_[0-9A-Z]{26})/.exec(page.url())![1]!;
}

/** A request with the browser's cookies, sent from the test (as another site's script would try to). */
async function withCookies(
  page: Page,
  url: string,
  init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const cookie = (await page.context().cookies(url)).map((c) => `${c.name}=${c.value}`).join('; ');
  const response = await testFetch(url, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { cookie, ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...init.headers },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'dashboard' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform.close();
  await closeTestFetch();
});

it('signs up, creates a workspace and an API key, uses it, disables it', async () => {
  const page = await browser.newPage();
  await signUp(page, 'Ada Lovelace', 'ada@example.test');
  await screenshot(page, 'dashboard-workspaces');
  const workspaceId = await createWorkspace(page, 'Analytical Engines');

  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('agent key');
  await page.getByLabel(/^Role/).selectOption('editor');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.locator('#new-key-secret').textContent())!.trim();
  expect(secret).toMatch(/^cpk_[A-Za-z0-9_-]{43}$/);
  await screenshot(page, 'dashboard-key-created');

  const ok = await callMcp(secret);
  expect(ok.status).toBe(200);
  expect(ok.body.result.structuredContent.organization).toMatchObject({
    id: workspaceId,
    name: 'Analytical Engines',
    role: 'editor',
  });

  // The secret is never shown again.
  await page.goto(`${platform.urls.platform}/w/${workspaceId}/keys`);
  expect(await page.content()).not.toContain(secret);
  expect(await page.content()).toContain(secret.slice(0, 12));

  await page.getByRole('button', { name: 'Disable agent key' }).click();
  await page.getByText('It stopped working at once.').waitFor();
  const refused = await callMcp(secret);
  expect(refused.status).toBe(401);
  expect(refused.body.error.data.code).toBe('disabled_api_key');

  // The audit log shows what happened, to the owner.
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Audit log' }).click();
  const log = await page.textContent('main');
  for (const action of ['api_key.disable', 'api_key.create', 'workspace.create']) expect(log).toContain(action);
  await page.close();
});

it('manages members and roles, and holds viewers to reading', async () => {
  const owner = await browser.newPage();
  await signUp(owner, 'Grace Hopper', 'grace@example.test');
  const workspaceId = await createWorkspace(owner, 'Compilers');

  const viewer = await (await browser.newContext()).newPage();
  await signUp(viewer, 'Linus', 'linus@example.test');

  await owner.goto(`${platform.urls.platform}/w/${workspaceId}/members`);
  await owner.getByLabel('Email', { exact: true }).fill('linus@example.test');
  await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
  await owner.getByRole('button', { name: 'Add member' }).click();
  await owner.getByText('Added linus@example.test as viewer.').waitFor();

  // The viewer sees the workspace but not the admin pages, and cannot post to them.
  await viewer.goto(`${platform.urls.platform}/w/${workspaceId}`);
  await viewer.getByRole('heading', { name: 'Compilers' }).waitFor();
  expect(await viewer.getByRole('link', { name: 'API keys' }).count()).toBe(0);
  const keysPage = await viewer.goto(`${platform.urls.platform}/w/${workspaceId}/keys`);
  expect(keysPage!.status()).toBe(403);
  // Even with a valid session and CSRF token, a viewer's POST to an admin action is refused.
  const membersHtml = (await withCookies(viewer, `${platform.urls.platform}/w/${workspaceId}/members`)).text;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(membersHtml)![1]!;
  const attempt = await withCookies(viewer, `${platform.urls.platform}/w/${workspaceId}/keys`, {
    method: 'POST',
    form: { _csrf: csrf, name: 'x', role: 'viewer' },
  });
  expect(attempt.status).toBe(403);
  expect(
    await platform.container.services.workspaces.listApiKeys(acrossWorkspaces(platform.container.orm.em), workspaceId),
  ).toHaveLength(0);

  // Promote, then the promoted admin still cannot make owners.
  await owner.goto(`${platform.urls.platform}/w/${workspaceId}/members`);
  await owner.getByLabel('Role for linus@example.test').selectOption('admin');
  await owner.getByRole('button', { name: 'Save' }).click();
  await owner.getByText('linus@example.test is now admin.').waitFor();
  await viewer.goto(`${platform.urls.platform}/w/${workspaceId}/members`);
  expect(await viewer.getByLabel('Role for grace@example.test').count()).toBe(0);
  await screenshot(owner, 'dashboard-members');
  // The navigation marks the section the page belongs to, and only that one.
  const nav = owner.getByRole('navigation', { name: 'Workspace' });
  expect(await nav.locator('[aria-current="page"]').allTextContents()).toEqual(['Members']);
  await owner.close();
  await viewer.close();
});

it("answers another workspace's pages exactly like missing ones, and refuses forms without their token", async () => {
  const alice = await browser.newPage();
  await signUp(alice, 'Alice', 'alice@example.test');
  const aliceWorkspace = await createWorkspace(alice, 'Alice Co');
  const mallory = await (await browser.newContext()).newPage();
  await signUp(mallory, 'Mallory', 'mallory@example.test');

  const foreign = await mallory.goto(`${platform.urls.platform}/w/${aliceWorkspace}/members`);
  const missing = await mallory.goto(`${platform.urls.platform}/w/ws_01J0000000000000000000000/members`);
  expect(foreign!.status()).toBe(404);
  expect(missing!.status()).toBe(404);
  const foreignText = await (await mallory.goto(`${platform.urls.platform}/w/${aliceWorkspace}`))!.text();
  const missingText = await (await mallory.goto(`${platform.urls.platform}/w/ws_01J0000000000000000000000`))!.text();
  expect(foreignText.replace(/csrf" value="[^"]+"/, '')).toBe(missingText.replace(/csrf" value="[^"]+"/, ''));

  // A form posted without the session's CSRF token (as a cross-site page would) is refused and changes nothing.
  const page = (await withCookies(alice, `${platform.urls.platform}/w/${aliceWorkspace}/keys`)).text;
  const token = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const forged = await withCookies(alice, `${platform.urls.platform}/w/${aliceWorkspace}/keys`, {
    method: 'POST',
    form: { _csrf: token, name: 'sneaky', role: 'owner' },
    headers: { origin: 'https://evil.example' },
  });
  expect(forged.status).toBe(403);
  const noToken = await withCookies(alice, `${platform.urls.platform}/w/${aliceWorkspace}/keys`, {
    method: 'POST',
    form: { name: 'sneaky', role: 'owner' },
  });
  expect(noToken.status).toBe(403);
  const keys = await platform.container.services.workspaces.listApiKeys(
    acrossWorkspaces(platform.container.orm.em),
    aliceWorkspace,
  );
  expect(keys).toHaveLength(0);

  // Sign-in with a wrong password: a clear message, nothing revealed about the account.
  const anonymous = await (await browser.newContext()).newPage();
  await anonymous.goto(`${platform.urls.platform}/signin`);
  await anonymous.getByLabel('Email').fill('alice@example.test');
  await anonymous.getByLabel('Password').fill('wrong password!!');
  await anonymous.getByRole('button', { name: 'Sign in' }).click();
  expect((await anonymous.getByRole('alert').textContent())?.trim()).toBe(
    'That email and password do not match an account.',
  );
  await alice.close();
  await mallory.close();
  await anonymous.close();
});

it('sets session cookies HttpOnly and SameSite, and ends the session on sign-out', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, 'Cookie Monster', 'cookies@example.test');
  const session = (await context.cookies()).find((cookie) => cookie.name === 'cp_session')!;
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await context.addCookies([{ ...session, expires: -1 }]);
  await page.goto(`${platform.urls.platform}/workspaces`);
  expect(new URL(page.url()).pathname).toBe('/signin');
  await context.close();
});
