/**
 * The operator's call-code page in headless Chromium: only platform operators see it; a code is shown once,
 * selects its profile on /api/mcp, and stops working when revoked from the page.
 */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2 } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let browser: Browser;
let operator: Tenant;
let member: Tenant;
const PASSWORD = 'operator password 42';

async function signIn(page: Page, email: string) {
  await page.goto(`${platform.urls.platform}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
}

async function toolNames(code: string): Promise<string[]> {
  const client = await connectV2(`${platform.urls.mcp}?profile=${encodeURIComponent(code)}`, {
    'x-api-key': operator.apiKey,
  });
  try {
    return (await client.listTools()).map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'operatorcc', env: { CALL_CODE_CACHE_TTL_MS: '0' } });
  browser = await launchBrowser();
  operator = await createTenant(platform.container, { name: 'Platform Ops', password: PASSWORD });
  member = await createTenant(platform.container, { name: 'Just A Member', password: PASSWORD });
  await platform.container.orm.em
    .getConnection()
    .execute('update users set is_operator = true where id = ?', [operator.userId]);
});

afterAll(async () => {
  await browser?.close();
  await platform.close();
  await closeTestFetch();
});

it('is invisible to people who are not operators', async () => {
  const page = await browser.newPage();
  await signIn(page, member.email);
  await page.goto(`${platform.urls.platform}/workspaces`);
  expect(await page.getByRole('link', { name: 'Call codes' }).count()).toBe(0);
  const response = await page.goto(`${platform.urls.platform}/operator/call-codes`);
  expect(response!.status()).toBe(404);
  await page.close();
});

it('issues a code shown once, which selects its profile, and revokes it', async () => {
  const page = await browser.newPage();
  await signIn(page, operator.email);
  await page.getByRole('link', { name: 'Call codes' }).click();
  await page.getByRole('heading', { name: 'Call codes' }).waitFor();
  await page.getByLabel('Profile').selectOption('analytics_read');
  await page.getByLabel(/Note/).fill('reporting agent');
  await page.getByRole('button', { name: 'Issue code' }).click();
  const code = (await page.locator('#new-call-code').textContent())!.trim();
  expect(code).toMatch(/^cc_/);
  await screenshot(page, 'operator-call-codes');
  expect((await toolNames(code)).sort()).toEqual([
    'get_platform_info',
    'query_analytics',
    'query_campaigns',
    'query_products',
    'query_surfaces',
  ]);

  await page.goto(`${platform.urls.platform}/operator/call-codes`);
  expect(await page.content()).not.toContain(code);
  await page.getByRole('button', { name: `Revoke ${code.slice(0, 8)}…` }).click();
  await page.getByText(/Revoked .* connections using it fall back to the discovery profile/).waitFor();
  expect(await toolNames(code)).toEqual(['get_platform_info']);

  await page.getByLabel(/Limit to workspace/).fill('ws_01J00000000000000000000000');
  await page.getByRole('button', { name: 'Issue code' }).click();
  await page.getByText(/Workspace ws_01J00000000000000000000000 was not found/).waitFor();
  await page.close();
});
