/**
 * The dashboard's Channels page and its rules, over plain HTTP with a browser's cookies: every member sees the
 * accounts and posts; only admins connect, reconnect and disconnect (an editor or a viewer is refused and
 * nothing changes); another workspace's account is "not found" from this workspace's pages; and the page never
 * carries a credential.
 */
import { standinEnv } from '../support/standins/standin-env.ts';
import { randomBytes } from 'node:crypto';
import { ChannelAccount } from '../../src/domain/channels/channel-account.entity.ts';
import { CHANNEL_NETWORKS } from '../../src/domain/channels/channel-networks.ts';
import { startRedditStandin, type RedditStandin } from '../support/standins/reddit-standin.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const PASSWORD = 'a long enough password';

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
let aIds: SeededWorkspace;
let bIds: SeededWorkspace;

/** Signs in a member of `tenant`'s workspace with `role` (a new person). */
async function memberSession(tenant: Tenant, role: Role): Promise<DashboardSession> {
  const { workspaces } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  const email = `${role}-${randomBytes(4).toString('hex')}@example.test`;
  await workspaces.createUser(em, { email, name: `A ${role}`, password: PASSWORD });
  await workspaces.setMember(em, tenant.workspaceId, { email, role });
  const session = dashboardSession(platform.urls.platform);
  const signedIn = await session.submit('/signin', '/signin', { email, password: PASSWORD });
  expect(signedIn.status).toBe(302);
  return session;
}

const accountRow = (id: string) =>
  acrossWorkspaces(platform.container.orm.em).findOneOrFail(ChannelAccount, { id }, { refresh: true });

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'dashchannels' });
  a = await createTenant(platform.container, { name: 'Alpha Outfitters' });
  b = await createTenant(platform.container, { name: 'Beta Bakery' });
  aIds = await seedWorkspace(platform.container, a, 'Alpha');
  bIds = await seedWorkspace(platform.container, b, 'Beta');
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

it('shows every member the accounts and posts; only admins get the forms', async () => {
  const viewer = await memberSession(a, 'viewer');
  const page = await viewer.request(`/w/${a.workspaceId}/channels`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('@alpha.bsky.social');
  expect(page.text).toContain('needs reconnect');
  expect(page.text).toContain('Seeded without credentials.');
  expect(page.text).toContain(`id="post-${aIds.channelPostId}"`);
  expect(page.text).not.toContain('Connect an account');
  expect(page.text).toContain('Workspace admins connect accounts.');
  // Nothing of the other workspace.
  expect(page.text).not.toContain('beta.bsky.social');
  expect(page.text).not.toContain(bIds.channelPostId);

  const admin = await memberSession(a, 'admin');
  const adminPage = await admin.request(`/w/${a.workspaceId}/channels`);
  expect(adminPage.text).toContain('Connect an account');
  expect(adminPage.text).toContain(`/w/${a.workspaceId}/channels/${aIds.channelAccountId}/disconnect`);
});

it.each(['viewer', 'editor'] as const)('refuses the %s who connects or disconnects, changing nothing', async (role) => {
  const session = await memberSession(a, role);
  const before = await accountRow(aIds.channelAccountId);
  const page = `/w/${a.workspaceId}/channels`;
  const connect = await session.submit(page, page, { network: 'bluesky', identifier: 'x.bsky.social', secret: 'abcd' });
  expect(connect.status).toBe(403);
  expect(connect.text).toContain(`Your role (${role}) does not allow this.`);
  const disconnect = await session.submit(page, `${page}/${aIds.channelAccountId}/disconnect`, {});
  expect(disconnect.status).toBe(403);
  expect((await session.request(`${page}/${aIds.channelAccountId}/disconnect`)).status).toBe(403);
  const after = await accountRow(aIds.channelAccountId);
  expect(after.status).toBe(before.status);
  expect(after.updatedAt).toEqual(before.updatedAt);
  // Nor may they start a network's sign-in.
  const oauth = await session.request(`${page}/connect/reddit`);
  expect(oauth.status).toBe(403);
  expect(oauth.location).toBeNull();
  expect(await acrossWorkspaces(platform.container.orm.em).count(ChannelAccount, { workspace: a.workspaceId })).toBe(
    CHANNEL_NETWORKS.length, // the seeded accounts, no more
  );
});

describe('connecting through a network’s OAuth (Reddit’s stand-in)', () => {
  let reddit: RedditStandin;
  let oauthPlatform: TestPlatform;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    reddit = await startRedditStandin({ username: 'alpha_outfitters' });
    oauthPlatform = await startTestPlatform({
      label: 'dashoauth',
      env: {
        ...standinEnv({ reddit }),
      },
    });
    tenant = await createTenant(oauthPlatform.container, { name: 'Alpha Outfitters', password: PASSWORD });
    other = await createTenant(oauthPlatform.container, { name: 'Beta Bakery', password: PASSWORD });
  });

  afterAll(async () => {
    await oauthPlatform?.close();
    await reddit?.close();
  });

  const signIn = async (who: Tenant) => {
    const session = dashboardSession(oauthPlatform.urls.platform);
    expect((await session.submit('/signin', '/signin', { email: who.email, password: PASSWORD })).status).toBe(302);
    return session;
  };
  const redditAccounts = (workspaceId: string) =>
    acrossWorkspaces(oauthPlatform.container.orm.em).find(ChannelAccount, {
      workspace: workspaceId,
      network: 'reddit',
    });

  it('connects the account the person granted, once; a replayed or foreign callback connects nothing', async () => {
    const owner = await signIn(tenant);
    const start = await owner.request(`/w/${tenant.workspaceId}/channels/connect/reddit`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.location!);
    expect(authorize.origin).toBe(reddit.url);
    expect(authorize.searchParams.get('redirect_uri')).toBe(
      `${oauthPlatform.urls.platform}/channels/oauth/reddit/callback`,
    );
    const back = new URL(await reddit.authorize(start.location!));
    const callback = `${back.pathname}${back.search}`;

    // Someone else's session holding the same callback URL (no flow cookie of theirs) connects nothing.
    const intruder = await signIn(other);
    const stolen = await intruder.request(callback);
    expect(stolen.status).toBe(400);
    expect(stolen.text).toContain('This sign-in was not started here');
    expect(await redditAccounts(other.workspaceId)).toEqual([]);

    const done = await owner.request(callback);
    expect(done.status).toBe(302);
    const [account] = await redditAccounts(tenant.workspaceId);
    expect(account).toMatchObject({
      handle: 'alpha_outfitters',
      status: 'active',
      connectedBy: `user:${tenant.userId}`,
    });
    expect(done.location).toBe(`/w/${tenant.workspaceId}/channels?connected=${account!.id}`);
    const page = await owner.request(done.location!);
    expect(page.text).toContain('Connected @alpha_outfitters (Reddit)');

    // The flow cookie is spent: the same callback again is refused, and changes nothing.
    const replay = await owner.request(callback);
    expect(replay.status).toBe(400);
    expect(await redditAccounts(tenant.workspaceId)).toHaveLength(1);
  });

  it('says so when the person declines on Reddit, and connects nothing', async () => {
    const owner = await signIn(other);
    const start = await owner.request(`/w/${other.workspaceId}/channels/connect/reddit`);
    const back = new URL(await reddit.decline(start.location!));
    const answer = await owner.request(`${back.pathname}${back.search}`);
    // Back to the Channels page itself, with a neutral notice (a choice, not an error).
    expect(answer.status).toBe(302);
    expect(answer.location).toBe(`/w/${other.workspaceId}/channels?declined=reddit`);
    const page = await owner.request(answer.location!);
    expect(page.text).toMatch(/class="notice warn" role="status"/);
    expect(page.text).toContain('No account was connected: access was not granted on Reddit.');
    expect(await redditAccounts(other.workspaceId)).toEqual([]);
  });

  it('refuses a callback whose state is not the one the flow started', async () => {
    const owner = await signIn(tenant);
    const start = await owner.request(`/w/${tenant.workspaceId}/channels/connect/reddit`);
    const back = new URL(await reddit.authorize(start.location!));
    back.searchParams.set('state', 'forged-state');
    const answer = await owner.request(`${back.pathname}${back.search}`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Reddit sent back a sign-in this page did not start');
  });

  it('shows a network the operator has not set up as such, without a Connect button', async () => {
    const owner = await signIn(tenant);
    const page = await owner.request(`/w/${tenant.workspaceId}/channels`);
    expect(page.text).toContain(`href="/w/${tenant.workspaceId}/channels/connect/reddit"`);
    expect(page.text).not.toContain(`/channels/connect/tiktok`);
    expect(page.text).toContain("Not set up yet: the platform's operator registers its TikTok app first");
  });

  it('follows Reddit’s specification in every exchange', () => {
    expect(reddit.violations).toEqual([]);
  });
});

it("answers another workspace's account exactly like a missing one, and leaves it as it was", async () => {
  const admin = await memberSession(a, 'admin');
  const before = await accountRow(bIds.channelAccountId);
  const page = `/w/${a.workspaceId}/channels`;
  const confirm = await admin.request(`${page}/${bIds.channelAccountId}/disconnect`);
  expect(confirm.status).toBe(404);
  const missing = await admin.request(`${page}/cha_01J0000000000000000000000/disconnect`);
  expect(missing.status).toBe(404);
  // Same answer, naming only the id that was sent.
  expect(confirm.text.replace(bIds.channelAccountId, 'ID')).toBe(
    missing.text.replace('cha_01J0000000000000000000000', 'ID'),
  );
  const disconnect = await admin.submit(page, `${page}/${bIds.channelAccountId}/disconnect`, {});
  expect(disconnect.status).toBe(404);
  expect(disconnect.text).toContain(`Account ${bIds.channelAccountId} was not found`);
  const reconnect = await admin.submit(page, `${page}/${bIds.channelAccountId}/reconnect`, { secret: 'abcd-efgh' });
  expect(reconnect.status).toBe(404);
  const after = await accountRow(bIds.channelAccountId);
  expect(after).toMatchObject({ status: before.status, updatedAt: before.updatedAt });
  // And B's own pages are not A's members' to see.
  expect((await admin.request(`/w/${b.workspaceId}/channels`)).status).toBe(404);
});

it('asks before disconnecting, naming what it stops; then disconnects and erases the credentials', async () => {
  const admin = await memberSession(a, 'admin');
  const page = `/w/${a.workspaceId}/channels`;
  const confirm = await admin.request(`${page}/${aIds.channelAccountId}/disconnect`);
  expect(confirm.status).toBe(200);
  expect(confirm.text).toContain('Disconnect @alpha.bsky.social?');
  expect(confirm.text).toContain('It has no scheduled posts.');
  const done = await admin.submit(
    `${page}/${aIds.channelAccountId}/disconnect`,
    `${page}/${aIds.channelAccountId}/disconnect`,
    {},
  );
  expect(done.status).toBe(200);
  expect(done.text).toContain('Disconnected @alpha.bsky.social');
  const row = await accountRow(aIds.channelAccountId);
  expect(row).toMatchObject({ status: 'disconnected', credentials: null });
  const audited = await platform.container.orm.em
    .getConnection()
    .execute<{ action: string; actor: string }[]>(`select action, actor from audit_events where target_id = ?`, [
      aIds.channelAccountId,
    ]);
  expect(audited).toEqual([
    expect.objectContaining({ action: 'channel_account.disconnect', actor: expect.stringMatching(/^user:/) }),
  ]);
});
