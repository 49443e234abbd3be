/**
 * People and account in the console, over plain HTTP with a browser's cookies (test/support/dashboard-session.ts):
 * invitations by link (accepted once, by the invited email only; expired, withdrawn and reused links refused
 * with nothing changed), role refusals by posting the forms directly, password change and the operator's reset
 * link, duplicate workspace names (also when created at once), and the audit log's and the ledger's filters,
 * names and paging.
 */
import { execFile } from 'node:child_process';
import { AuditEvent } from '../../src/domain/audit/audit-event.entity.ts';
import { Invitation } from '../../src/domain/workspaces/invitation.entity.ts';
import { Membership } from '../../src/domain/workspaces/membership.entity.ts';
import { User } from '../../src/domain/workspaces/user.entity.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace } from '../support/seed.ts';
import { workerEnv } from '../support/worker-process.ts';

const PASSWORD = 'a long enough password';
let platform: TestPlatform;
let owner: Tenant;
let counter = 0;

const em = () => acrossWorkspaces(platform.container.orm.em);

/**
 * Runs campaignctl without blocking this process (the platform under test serves from it: a blocked event loop
 * lets its keep-alive timers close sockets the next request then reuses).
 */
function campaignctl(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['src/cli/campaignctl.ts', ...args],
      { env: workerEnv(platform.config), encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-people' });
  owner = await createTenant(platform.container, { name: 'People HQ', password: PASSWORD });
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

async function signedIn(email: string, password = PASSWORD): Promise<DashboardSession> {
  const browser = dashboardSession(platform.urls.platform);
  const answer = await browser.submit('/signin', '/signin', { email, password });
  expect(answer).toMatchObject({ status: 302 });
  return browser;
}

/** A person with an account and, if `role` is given, that role in the owner's workspace. */
async function person(role?: Role): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `person-${counter}-${Date.now()}@example.test`;
  const user = await platform.container.services.workspaces.createUser(em(), {
    email,
    name: `Person ${counter}`,
    password: PASSWORD,
  });
  if (role) await platform.container.services.workspaces.setMember(em(), owner.workspaceId, { email, role });
  return { id: user.id, email };
}

const members = () => `/w/${owner.workspaceId}/members`;

async function invite(browser: DashboardSession, email: string, role: Role) {
  const answer = await browser.submit(members(), `/w/${owner.workspaceId}/invitations`, { email, role });
  const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(answer.text)?.[1];
  return { answer, token };
}

async function auditRows(action: string) {
  return em()
    .getConnection()
    .execute<{ actor: string; outcome: string; workspace_id: string | null; details: Record<string, unknown> }[]>(
      'select actor, outcome, workspace_id, details from audit_events where action = ? order by created_at, id',
      [action],
    );
}

const membership = (userId: string) => em().findOne(Membership, { workspace: owner.workspaceId, user: userId });

describe('invitations by link', () => {
  it('an admin invites; the link is shown once; the invitee signs up with that email, accepts and is a member', async () => {
    const admin = await signedIn(owner.email);
    const email = `newcomer-${Date.now()}@example.test`;
    const { answer, token } = await invite(admin, email, 'editor');
    expect(answer.status).toBe(200);
    expect(token).toBeDefined();
    expect(answer.text).toContain('it is shown only now');
    // The pending list names the invitation but never shows the link again.
    const list = await admin.request(members());
    expect(list.text).toContain(email);
    expect(list.text).not.toContain(token!);
    const stored = await em().findOneOrFail(Invitation, { email });
    expect(stored.tokenHash).not.toContain(token!);

    const invitee = dashboardSession(platform.urls.platform);
    const landing = await invitee.request(`/invitations/${token}`);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('as <strong>editor</strong>');
    expect(landing.text).toContain(`Sign in as ${email}`);
    const signedUp = await invitee.submit(`/signup?next=/invitations/${token}&email=${email}`, '/signup', {
      name: 'Newcomer',
      email,
      password: PASSWORD,
      next: `/invitations/${token}`,
    });
    expect(signedUp).toMatchObject({ status: 302, location: `/invitations/${token}` });
    const offer = await invitee.request(`/invitations/${token}`);
    expect(offer.text).toContain('Join People HQ as editor');
    const accepted = await invitee.submit(`/invitations/${token}`, `/invitations/${token}/accept`, {});
    expect(accepted).toMatchObject({ status: 302, location: `/w/${owner.workspaceId}` });
    const user = await em().findOneOrFail(User, { email });
    expect((await membership(user.id))?.role).toBe('editor');
    expect((await invitee.request(`/w/${owner.workspaceId}`)).status).toBe(200);

    // Used once: the same link again is refused and changes nothing.
    const again = await invitee.submit(`/w/${owner.workspaceId}`, `/invitations/${token}/accept`, {});
    expect(again.status).toBe(409);
    expect(again.text).toContain('already used');
    const lines = await auditRows('invitation.accept');
    expect(lines.find((l) => l.outcome === 'success')).toMatchObject({
      actor: `user:${user.id}`,
      workspace_id: owner.workspaceId,
    });
    expect(lines.at(-1)).toMatchObject({ outcome: 'denied', details: expect.objectContaining({ reason: 'accepted' }) });
    expect((await auditRows('invitation.create')).at(-1)).toMatchObject({
      actor: `user:${owner.userId}`,
      details: expect.objectContaining({ email, role: 'editor' }),
    });
  });

  it('refuses a person signed in with another email, saying whose invitation it is; nothing changes', async () => {
    const admin = await signedIn(owner.email);
    const invited = `invited-${Date.now()}@example.test`;
    const { token } = await invite(admin, invited, 'viewer');
    const other = await person();
    const browser = await signedIn(other.email);
    const page = await browser.request(`/invitations/${token}`);
    expect(page.text).toContain(`this invitation is for`);
    expect(page.text).toContain(`Sign out of ${other.email}`);
    const refused = await browser.submit(`/invitations/${token}`, `/invitations/${token}/accept`, {});
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`This invitation is for ${invited}, but you are signed in as ${other.email}`);
    expect(await membership(other.id)).toBeNull();
    const row = await em().findOneOrFail(Invitation, { email: invited });
    expect(row.acceptedAt).toBeNull();
    // Signing out from the invitation page comes back to it.
    const signOut = await browser.submit(`/invitations/${token}`, '/signout', { next: `/invitations/${token}` });
    expect(signOut).toMatchObject({ status: 302, location: `/invitations/${token}` });
  });

  it('refuses expired and withdrawn links with a clear reason; nothing changes', async () => {
    const invitee = await person();
    const { invitations } = platform.container.services;
    const expired = await invitations.create(em(), {
      workspaceId: owner.workspaceId,
      inviter: { userId: owner.userId, role: 'owner' },
      email: invitee.email,
      role: 'viewer',
      ttlMs: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const browser = await signedIn(invitee.email);
    const late = await browser.submit('/workspaces', `/invitations/${expired.token}/accept`, {});
    expect(late.status).toBe(409);
    expect(late.text).toContain('has expired');
    expect(await membership(invitee.id)).toBeNull();

    const admin = await signedIn(owner.email);
    const { token } = await invite(admin, invitee.email, 'viewer');
    const row = await em().findOneOrFail(Invitation, {
      email: invitee.email,
      revokedAt: null,
      expiresAt: { $gt: new Date() },
    });
    const withdrawn = await admin.submit(members(), `/w/${owner.workspaceId}/invitations/${row.id}/revoke`, {});
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.text).toContain(`Withdrew the invitation of ${invitee.email}`);
    const revoked = await browser.submit('/workspaces', `/invitations/${token}/accept`, {});
    expect(revoked.status).toBe(409);
    expect(revoked.text).toContain('withdrawn');
    expect((await browser.request(`/invitations/${token}`)).status).toBe(410);
    expect(await membership(invitee.id)).toBeNull();
    expect((await auditRows('invitation.revoke')).at(-1)).toMatchObject({ actor: `user:${owner.userId}` });

    const bogus = await browser.request(`/invitations/${'x'.repeat(43)}`);
    expect(bogus.status).toBe(410);
    expect(bogus.text).toContain('not valid');
  });

  it('refuses invitations to roles the inviter may not grant, and viewers and editors may not invite or withdraw', async () => {
    const admin = await person('admin');
    const adminBrowser = await signedIn(admin.email);
    const before = await em().count(Invitation, {});
    const ownerInvite = await invite(adminBrowser, `would-be-owner-${Date.now()}@example.test`, 'owner');
    expect(ownerInvite.answer.status).toBe(403);
    expect(ownerInvite.answer.text).toContain('Only owners grant or remove the owner role');
    expect(ownerInvite.token).toBeUndefined();
    const adminInvite = await invite(adminBrowser, `admin-made-${Date.now()}@example.test`, 'admin');
    expect(adminInvite.answer.status).toBe(200);
    const pending = await em().findOneOrFail(Invitation, { email: { $like: 'admin-made-%' } });

    for (const role of ['viewer', 'editor'] as const) {
      const member = await person(role);
      const browser = await signedIn(member.email);
      const page = await browser.request(members());
      expect(page.text).not.toContain('Create invitation link');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const posted = await browser.request(`/w/${owner.workspaceId}/invitations`, {
        _csrf: csrf,
        email: `sneaky-${role}@example.test`,
        role: 'viewer',
      });
      expect(posted.status).toBe(403);
      const revoke = await browser.request(`/w/${owner.workspaceId}/invitations/${pending.id}/revoke`, { _csrf: csrf });
      expect(revoke.status).toBe(403);
    }
    expect(await em().count(Invitation, {})).toBe(before + 1);
    expect((await em().findOneOrFail(Invitation, { id: pending.id })).revokedAt).toBeNull();
  });
});

describe('passwords', () => {
  it('changes the password with the current one, signs other sessions out and keeps this one', async () => {
    const someone = await person('viewer');
    const here = await signedIn(someone.email);
    const elsewhere = await signedIn(someone.email);
    const wrong = await here.submit('/account', '/account/password', {
      current: 'not my password',
      password: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The current password is not right');
    const mismatch = await here.submit('/account', '/account/password', {
      current: PASSWORD,
      password: 'a brand new password',
      confirm: 'another new password',
    });
    expect(mismatch.text).toContain('do not match');
    expect((await elsewhere.request('/workspaces')).status).toBe(200);

    const changed = await here.submit('/account', '/account/password', {
      current: PASSWORD,
      password: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('Password changed. Signed out 1 other session(s).');
    expect((await here.request('/workspaces')).status).toBe(200);
    expect(await elsewhere.request('/workspaces')).toMatchObject({
      status: 302,
      location: '/signin?next=%2Fworkspaces',
    });
    await signedIn(someone.email, 'a brand new password');
    const lines = (await auditRows('account.password_change')).filter((l) => l.actor === `user:${someone.id}`);
    expect(lines.map((l) => l.outcome)).toEqual(['denied', 'success']);
  });

  it('the operator prints a reset link with campaignctl; it sets a new password once and ends every session', async () => {
    const someone = await person('viewer');
    const session = await signedIn(someone.email);
    const cli = await campaignctl('user:reset-password', '--email', someone.email.toUpperCase(), '--json');
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    const { url } = JSON.parse(cli.stdout) as { url: string };
    expect(url).toMatch(new RegExp(`^${platform.urls.platform}/reset-password/[A-Za-z0-9_-]{43}$`));
    const path = new URL(url).pathname;

    const browser = dashboardSession(platform.urls.platform);
    const form = await browser.request(path);
    expect(form.status).toBe(200);
    expect(form.text).toContain(someone.email);
    const short = await browser.submit(path, path, { password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    const reset = await browser.submit(path, path, { password: 'reset to this one', confirm: 'reset to this one' });
    expect(reset.status).toBe(200);
    expect(reset.text).toContain('every session was signed out');
    expect((await session.request('/workspaces')).status).toBe(302);
    await signedIn(someone.email, 'reset to this one');

    const reused = await browser.submit('/signin', path, { password: 'and once more', confirm: 'and once more' });
    expect(reused.status).toBe(410);
    expect(reused.text).toContain('already used');
    await signedIn(someone.email, 'reset to this one');
    expect((await auditRows('account.password_reset_issue')).at(-1)).toMatchObject({ actor: 'operator' });
    expect((await auditRows('account.password_reset')).at(-1)).toMatchObject({ actor: `user:${someone.id}` });

    const unknown = await campaignctl('user:reset-password', '--email', 'nobody@example.test');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('No account uses nobody@example.test');
  });
});

describe('workspace names', () => {
  it('refuses a name the same person already owns (any case), for create and rename; others may use it', async () => {
    const someone = await person();
    const browser = await signedIn(someone.email);
    const first = await browser.submit('/workspaces', '/workspaces', { name: 'Acme Studio' });
    expect(first.status).toBe(302);
    const dup = await browser.submit('/workspaces', '/workspaces', { name: '  acme   STUDIO ' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('You already own a workspace named');
    const second = await browser.submit('/workspaces', '/workspaces', { name: 'Acme Shop' });
    const secondId = /\/w\/(ws_[0-9A-Z]{26})/.exec(second.location!)![1]!;
    const rename = await browser.submit(`/w/${secondId}`, `/w/${secondId}/rename`, { name: 'ACME studio' });
    expect(rename.status).toBe(400);
    expect(rename.text).toContain('You already own a workspace named');
    const fine = await browser.submit(`/w/${secondId}`, `/w/${secondId}/rename`, { name: 'Acme shop (EU)' });
    expect(fine).toMatchObject({ status: 302, location: `/w/${secondId}` });
    const caseOnly = await browser.submit(`/w/${secondId}`, `/w/${secondId}/rename`, { name: 'ACME SHOP (EU)' });
    expect(caseOnly.status).toBe(302);

    const other = await person();
    const theirs = await (await signedIn(other.email)).submit('/workspaces', '/workspaces', { name: 'Acme Studio' });
    expect(theirs.status).toBe(302);

    // A viewer or editor cannot rename by posting the form.
    const viewer = await person('viewer');
    const viewerBrowser = await signedIn(viewer.email);
    const page = await viewerBrowser.request(`/w/${owner.workspaceId}`);
    expect(page.text).not.toContain('Rename workspace');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const refused = await viewerBrowser.request(`/w/${owner.workspaceId}/rename`, { _csrf: csrf, name: 'Hijacked' });
    expect(refused.status).toBe(403);
  });

  it('refuses making someone an owner of a workspace named like one they own, by role or by invitation', async () => {
    const { workspaces } = platform.container.services;
    const host = await person();
    const shared = await workspaces.createWorkspace(em(), { name: 'Twin Name', ownerUserId: host.id });
    const hostBrowser = await signedIn(host.email);
    const page = `/w/${shared.id}/members`;
    const joiner = await person();
    await workspaces.createWorkspace(em(), { name: 'twin NAME', ownerUserId: joiner.id });
    const inShared = (userId: string) => em().findOne(Membership, { workspace: shared.id, user: userId });

    const asOwner = await hostBrowser.submit(page, page, { email: joiner.email, role: 'owner' });
    expect(asOwner.status).toBe(400);
    expect(asOwner.text).toContain(`${joiner.email} already owns a workspace named`);
    expect(await inShared(joiner.id)).toBeNull();
    // Any other role is fine; promoting to owner afterwards is refused and leaves the role as it was.
    expect((await hostBrowser.submit(page, page, { email: joiner.email, role: 'editor' })).status).toBe(200);
    const promoted = await hostBrowser.submit(page, page, { email: joiner.email, role: 'owner' });
    expect(promoted.status).toBe(400);
    expect((await inShared(joiner.id))?.role).toBe('editor');

    // By invitation: the invitee sees why, is not added, and the link stays unused.
    const invitee = await person();
    await workspaces.createWorkspace(em(), { name: 'TWIN name', ownerUserId: invitee.id });
    const answer = await hostBrowser.submit(page, `/w/${shared.id}/invitations`, {
      email: invitee.email,
      role: 'owner',
    });
    const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(answer.text)![1]!;
    const inviteeBrowser = await signedIn(invitee.email);
    const refused = await inviteeBrowser.submit(`/invitations/${token}`, `/invitations/${token}/accept`, {});
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('You already own a workspace named');
    expect(await inShared(invitee.id)).toBeNull();
    expect((await em().findOneOrFail(Invitation, { email: invitee.email })).acceptedAt).toBeNull();
  });

  it('creates one workspace when the same person creates the same name several times at once', async () => {
    const someone = await person();
    const { workspaces } = platform.container.services;
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        workspaces.createWorkspace(em(), { name: i % 2 ? 'Race Day' : 'race day', ownerUserId: someone.id }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason.message).toContain('You already own a workspace named');
    }
    expect(await em().count(Membership, { user: someone.id, role: 'owner' })).toBe(1);
  });
});

describe('audit log and credit ledger', () => {
  it('shows names instead of ids, filters by who, action, outcome and dates, and pages keeping the filters', async () => {
    const tenant = await createTenant(platform.container, { name: 'Audited Co', password: PASSWORD });
    const base = Date.parse('2026-03-10T12:00:00Z');
    // 120 lines over four days: the owner's member actions, the API key's tool calls (some denied), workflows.
    for (let i = 0; i < 120; i += 1) {
      const kind = i % 3;
      await em().insert(AuditEvent, {
        id: `aud_${String(i).padStart(26, '0')}`,
        workspaceId: tenant.workspaceId,
        actor:
          kind === 0 ? `user:${tenant.userId}` : kind === 1 ? `key:${tenant.apiKeyId}` : 'workflow:analytics_rollup',
        action:
          kind === 0
            ? i % 2
              ? 'member.add'
              : 'member.remove'
            : kind === 1
              ? 'mcp.manage_campaigns.publish'
              : 'analytics.rollup',
        targetType: kind === 0 ? 'user' : null,
        targetId: kind === 0 ? tenant.userId : null,
        outcome: kind === 1 && i % 2 ? 'denied' : 'success',
        details: { step: i, note: 'seeded line' },
        ip: null,
        requestId: null,
        createdAt: new Date(base + i * 60 * 60 * 1000),
      });
    }
    const browser = await signedIn(tenant.email);
    const path = `/w/${tenant.workspaceId}/audit`;
    const all = await browser.request(path);
    expect(all.status).toBe(200);
    const rowsOf = (text: string) => text.split('<tr>').slice(2);
    expect(rowsOf(all.text)).toHaveLength(50);
    // WHO: a name and an email, an API key by name, a workflow in words; never a raw actor id as text.
    expect(all.text).toContain(`Owner ${tenant.email.slice(6, 14)}`);
    expect(all.text).toContain(tenant.email);
    expect(all.text).toContain('API key “test key”');
    expect(all.text).toContain('Platform: analytics rollup');
    expect(all.text).not.toMatch(/>\s*(user|key):[a-z]{2,4}_/);
    expect(all.text).toMatch(/<dt>\s*step\s*<\/dt>\s*<dd>\d+<\/dd>/);

    const byKey = await browser.request(`${path}?who=${encodeURIComponent(`key:${tenant.apiKeyId}`)}&outcome=denied`);
    const denied = rowsOf(byKey.text);
    expect(denied).toHaveLength(20);
    for (const row of denied) {
      expect(row).toContain('API key “test key”');
      expect(row).toContain('>denied<');
    }

    const members = await browser.request(`${path}?action=member&from=2026-03-11&to=2026-03-12`);
    const memberRows = rowsOf(members.text);
    // Hours 12..59 after base cover 2026-03-11 00:00 to 2026-03-12 23:00 — of those, every third is the owner's.
    const expected = Array.from({ length: 120 }, (_, i) => i).filter((i) => {
      const at = new Date(base + i * 3_600_000).toISOString().slice(0, 10);
      return i % 3 === 0 && at >= '2026-03-11' && at <= '2026-03-12';
    });
    expect(memberRows).toHaveLength(expected.length);
    for (const row of memberRows) expect(row).toMatch(/member\.(<wbr \/>)?(add|remove)/);

    // Paging: 50 + 50 + 20 over everything; the next link keeps the filter.
    const workflows = await browser.request(`${path}?who=${encodeURIComponent('workflow:*')}`);
    expect(rowsOf(workflows.text)).toHaveLength(40);
    const first = all;
    const next1 = /href="([^"]*before=[^"]*)"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await browser.request(next1);
    expect(rowsOf(second.text)).toHaveLength(50);
    const next2 = /href="([^"]*before=[^"]*)"/.exec(second.text)![1]!.replace(/&amp;/g, '&');
    const third = await browser.request(next2);
    expect(rowsOf(third.text)).toHaveLength(20);
    expect(third.text).not.toContain('Older entries');
    const steps = [first, second, third].flatMap((p) =>
      [...p.text.matchAll(/<dt>\s*step\s*<\/dt>\s*<dd>(\d+)<\/dd>/g)].map((m) => m[1]),
    );
    expect(new Set(steps).size).toBe(120);

    const filteredFirst = await browser.request(`${path}?action=mcp.manage_campaigns.publish`);
    const filteredNext = /href="([^"]*before=[^"]*)"/.exec(filteredFirst.text);
    expect(filteredNext).toBeNull(); // 40 lines: one page
    const user = await browser.request(`${path}?who=${encodeURIComponent(`user:${tenant.userId}`)}`);
    expect(rowsOf(user.text)).toHaveLength(40);

    // Admins only: an editor is refused.
    const editor = await person();
    await platform.container.services.workspaces.setMember(em(), tenant.workspaceId, {
      email: editor.email,
      role: 'editor',
    });
    expect((await (await signedIn(editor.email)).request(path)).status).toBe(403);
  });

  it('the ledger names who caused each entry and links the job and campaign credits went to; filters by kind', async () => {
    const tenant = await createTenant(platform.container, { name: 'Ledger Co', password: PASSWORD, credits: 500 });
    const seeded = await seedWorkspace(platform.container, tenant, 'Ledger');
    const { credits } = platform.container.services;
    await credits.reserve(em(), {
      workspaceId: tenant.workspaceId,
      amount: 40,
      idempotencyKey: `test:${seeded.jobId}:reserve`,
      reference: seeded.jobId,
      description: 'render of a still',
      actor: `key:${tenant.apiKeyId}`,
    });
    await credits.capture(em(), {
      workspaceId: tenant.workspaceId,
      amount: 30,
      idempotencyKey: `test:${seeded.jobId}:capture`,
      reference: seeded.jobId,
      actor: `workflow:${seeded.jobId}`,
    });
    const browser = await signedIn(tenant.email);
    const path = `/w/${tenant.workspaceId}/credits`;
    const page = await browser.request(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/w/${tenant.workspaceId}/jobs/${seeded.jobId}"`);
    expect(page.text).toContain(`href="/w/${tenant.workspaceId}/campaigns/${seeded.campaignId}">Ledger summer</a>`);
    expect(page.text).toContain('API key “test key”');
    expect(page.text).toContain('Platform operator');
    expect(page.text).toContain('Platform: render job');
    expect(page.text).not.toMatch(/>\s*(key|workflow):/);
    const captures = await browser.request(`${path}?kind=capture`);
    expect(captures.text.split('<tr>').slice(2)).toHaveLength(1);
    expect(captures.text).toContain('Spent by a job step');
    const none = await browser.request(`${path}?from=2020-01-01&to=2020-01-02`);
    expect(none.text).toContain('No ledger entries match.');
    const bad = await browser.request(`${path}?from=yesterday`);
    expect(bad.text).toContain('is not a date');
  });
});
