/**
 * CLI tokens: `campaignctl login` signs a person in as a native OAuth app (loopback redirect, PKCE) through
 * the browser, keeps the token in a 0600 file, uses it for `whoami` and `tools:call`, and `logout` revokes it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerEnv } from '../support/worker-process.ts';

const PASSWORD = 'correct horse battery staple';
let platform: TestPlatform;
let tenant: Tenant;
let browser: Browser;
let credentials: string;

function env() {
  return { ...workerEnv(platform.config), CLI_CREDENTIALS_FILE: credentials };
}

/** Runs the CLI without blocking this process (the API it talks to runs in this process). */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli/campaignctl.ts', ...args], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'clilogin' });
  tenant = await createTenant(platform.container, { password: PASSWORD, name: 'CLI workspace', credits: 3 });
  browser = await launchBrowser();
  credentials = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'cli-creds-')), 'credentials.json');
});

afterAll(async () => {
  await browser?.close();
  await platform.close();
});

it('signs in through the browser, keeps the token, uses it, and revokes it on logout', async () => {
  const child = spawn(process.execPath, ['src/cli/campaignctl.ts', 'login'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Subscribe now: the CLI exits as soon as the browser reaches it, possibly before the page is closed here.
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /(http:\/\/auth\.localhost:\d+\/oauth\/authorize\?\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`login exited early (${code}): ${stdout}${stderr}`)));
  });
  const authorize = new URL(url);
  expect(authorize.searchParams.get('client_id')).toBe('campaignctl');
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(new URL(authorize.searchParams.get('redirect_uri')!).hostname).toBe('127.0.0.1');

  const page = await browser.newPage();
  await page.goto(url);
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  const code = await exited;
  await page.close();
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toContain(`Signed in. This CLI acts on workspace "CLI workspace" (${tenant.workspaceId}) as owner.`);
  const stat = await fs.stat(credentials);
  expect(stat.mode & 0o777).toBe(0o600);

  expect((await cli('whoami')).stdout).toBe(
    `Workspace "CLI workspace" (${tenant.workspaceId}); role owner; credits available 3.\n`,
  );
  const health = await cli('tools:call', '--tool', 'get_platform_info', '--args', '{"topic":"health"}');
  expect(health.code).toBe(0);
  expect(health.stdout).toMatch(/^Platform ok: database up, Temporal up/);
  const bad = await cli('tools:call', '--tool', 'get_platform_info', '--args', '{"topic":"nope"}');
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain('validation_failed');

  expect((await cli('logout')).stdout).toBe('Signed out; the tokens were revoked.\n');
  const after = await cli('whoami');
  expect(after.code).toBe(1);
  expect(after.stderr).toContain('Not signed in');
});
