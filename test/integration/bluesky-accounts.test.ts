/**
 * Connected Bluesky accounts against a real PDS: connecting with an app password (the account's own password
 * and a wrong one refused, nothing stored), credentials sealed at rest (read from the table) and bound to their
 * row, tokens refreshed ahead of expiry (the rotating refresh token written back), a revoked app password
 * moving the account to `needs_reconnect` once with the network's reason and no loop of retries, reconnecting,
 * key rotation by re-sealing, and disconnecting.
 */
import { AtpAgent } from '@atproto/api';
import { ChannelAccount } from '../../src/domain/channels/channel-account.entity.ts';
import { createChannelAccess } from '../../src/domain/channels/channel-access.ts';
import { createChannelAccountsService } from '../../src/domain/channels/channel-accounts.service.ts';
import { createChannelAdapters } from '../../src/domain/channels/adapters.ts';
import { acrossWorkspaces, actors, workspaceScope, type WorkspaceScope } from '../../src/domain/shared/scope.ts';
import { SecretBoxError } from '../../src/domain/shared/secret-box.ts';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, TEST_CREDENTIAL_KEY, type TestPlatform } from '../support/platform.ts';

let network: BlueskyNetwork;
let platform: TestPlatform;
let tenant: Tenant;
let brand: BlueskyAccount;

const scopeOf = (t: Tenant): WorkspaceScope =>
  workspaceScope(platform.container.orm.em, t.workspaceId, actors.user(t.userId));
const rows = () => acrossWorkspaces(platform.container.orm.em);

beforeAll(async () => {
  network = await startBlueskyNetwork();
  platform = await startTestPlatform({ label: 'bskyaccounts', env: { BLUESKY_SERVICE_URL: network.pdsUrl } });
  tenant = await createTenant(platform.container);
  brand = await network.createAccount('brand');
});

afterAll(async () => {
  await platform?.close();
  await network?.stop();
});

describe('connecting', () => {
  it("refuses the account's own password and a wrong app password, storing nothing", async () => {
    const { channelAccounts } = platform.container.services;
    const own = await channelAccounts
      .connect(scopeOf(tenant), { network: 'bluesky', identifier: brand.handle, secret: brand.password })
      .catch((error: unknown) => error);
    expect(own).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^That is the account's own password/),
    });
    const wrong = await channelAccounts
      .connect(scopeOf(tenant), { network: 'bluesky', identifier: brand.handle, secret: 'abcd-efgh-ijkl-mnop' })
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({
      code: 'validation_failed',
      message: 'Bluesky refused the sign-in: the handle or app password is wrong, or the app password was revoked',
    });
    expect(await rows().count(ChannelAccount, { workspace: tenant.workspaceId })).toBe(0);
  });

  it('connects with an app password and seals the credentials at rest, bound to the row', async () => {
    const { channelAccounts } = platform.container.services;
    const { account, reconnected } = await channelAccounts.connect(scopeOf(tenant), {
      network: 'bluesky',
      identifier: `@${brand.handle}`,
      secret: brand.appPassword,
    });
    expect(reconnected).toBe(false);
    expect(account).toMatchObject({
      network: 'bluesky',
      handle: brand.handle,
      externalId: brand.did,
      status: 'active',
    });
    expect(JSON.stringify(account)).not.toContain(brand.appPassword);

    // What the table holds: a sealed value naming its key, neither the app password nor a token in sight.
    const [stored] = await platform.container.orm.em
      .getConnection()
      .execute<{ credentials: string; access_expires_at: string }[]>(
        'select credentials, access_expires_at from channel_accounts where id = ?',
        [account.id],
      );
    expect(stored!.credentials).toMatch(/^v2\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]+$/);
    expect(stored!.credentials).not.toContain(brand.appPassword);
    expect(stored!.credentials).not.toContain('eyJ'); // no JWT
    expect(new Date(stored!.access_expires_at).getTime()).toBeGreaterThan(Date.now());

    // Opened with the configured key, it holds a working session; moved to another row, it does not open.
    const { access } = platform.container.services.channels;
    const row = await rows().findOneOrFail(ChannelAccount, { id: account.id });
    const credentials = access.open(row) as { did: string; appPassword: string };
    expect(credentials).toMatchObject({ did: brand.did, appPassword: brand.appPassword });
    expect(() => access.open({ ...row, id: 'cha_01J0000000000000000000000' } as ChannelAccount)).toThrow(
      SecretBoxError,
    );
  });

  it('two people connecting the same account at once both succeed, on one row', async () => {
    const team = await createTenant(platform.container);
    const shared = await network.createAccount('shared');
    // The PDS answers sign-ins one after another; to make the three connections reach the database at the same
    // moment, each waits after its real sign-in until all three have signed in.
    const { adapters, access } = platform.container.services.channels;
    const signedIn: (() => void)[] = [];
    // Idle pooled connections for each of them, so that no query waits for a new connection behind another.
    const warm = Promise.all(
      [0, 1, 2, 3].map(() => platform.container.orm.em.getConnection().execute('select pg_sleep(0.05)')),
    );
    const together = createChannelAccountsService({
      access,
      stopPending: platform.container.services.channelPosts.stopPending,
      adapters: {
        ...adapters,
        get: (name) => {
          const adapter = adapters.get(name);
          return {
            ...adapter,
            async connect(request) {
              const identity = await adapter.connect!(request);
              await new Promise<void>((resolve) => {
                signedIn.push(resolve);
                if (signedIn.length === 3) for (const release of signedIn) release();
              });
              await warm;
              return identity;
            },
          };
        },
      },
    });
    const outcomes = await Promise.all(
      [0, 1, 2].map(() =>
        together.connect(scopeOf(team), { network: 'bluesky', identifier: shared.handle, secret: shared.appPassword }),
      ),
    );
    expect(new Set(outcomes.map((outcome) => outcome.account.id)).size).toBe(1);
    expect(outcomes.map((outcome) => outcome.reconnected).sort()).toEqual([false, true, true]);
    expect(await rows().count(ChannelAccount, { workspace: team.workspaceId })).toBe(1);
  });

  it('refreshes a token that expires within the refresh-ahead window and stores the rotated refresh token', async () => {
    const row = await rows().findOneOrFail(ChannelAccount, { workspace: tenant.workspaceId });
    const before = platform.container.services.channels.access.open(row) as { accessJwt: string; refreshJwt: string };
    // An access layer whose window covers the whole token lifetime: the next use refreshes.
    const eager = createChannelAccess({
      adapters: platform.container.services.channels.adapters,
      audit: platform.container.services.audit,
      credentialKeys: [TEST_CREDENTIAL_KEY],
      refreshAheadSeconds: 86_400,
    });
    const profile = await eager.withClient(scopeOf(tenant), row, (client) =>
      client.validate({ text: `Hello @${brand.handle}`, link: null, media: [], langs: ['en'], options: {} }),
    );
    // The live check resolved the mention to the account's DID.
    expect(profile.preview.facets).toEqual([
      expect.objectContaining({ kind: 'mention', text: `@${brand.handle}`, target: brand.did }),
    ]);
    const after = await rows().findOneOrFail(ChannelAccount, { id: row.id });
    const rotated = eager.open(after) as { accessJwt: string; refreshJwt: string };
    // Bluesky rotates the refresh token on every refresh: the new one is what is stored now.
    expect(rotated.refreshJwt).not.toBe(before.refreshJwt);
    expect(after.accessExpiresAt!.getTime()).toBeGreaterThanOrEqual(row.accessExpiresAt!.getTime());
    expect(after.lastSuccessAt!.getTime()).toBeGreaterThan(row.connectedAt.getTime());
    // The quota the PDS reported with the call.
    expect(after.quota).toMatchObject({ limit: expect.any(Number), remaining: expect.any(Number) });
  });
});

describe("Bluesky's session limit", () => {
  it('is a rate_limited error with the wait the PDS names, never a failure to retry at once', async () => {
    // 30 sign-ins per 5 minutes per handle and address: the 31st is refused with the reset time.
    const hammered = await network.createAccount('limited');
    const adapter = platform.container.services.channels.adapters.get('bluesky');
    const outcomes: unknown[] = [];
    for (let attempt = 0; attempt < 31; attempt += 1) {
      outcomes.push(
        await adapter.connect!({ identifier: hammered.handle, secret: hammered.appPassword }).then(
          () => 'connected',
          (error: unknown) => error,
        ),
      );
    }
    expect(outcomes.slice(0, 30).every((outcome) => outcome === 'connected')).toBe(true);
    const refused = outcomes[30] as { code: string; message: string; details: { retryAfterSeconds: number } };
    expect(refused).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/^Bluesky's rate limit is used up; it allows sign in again in \d+ s$/),
    });
    expect(refused.details.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.details.retryAfterSeconds).toBeLessThanOrEqual(300);
  });
});

describe('a revoked app password', () => {
  let victim: BlueskyAccount;
  let accountId: string;

  beforeAll(async () => {
    victim = await network.createAccount('revoked');
    const { account } = await platform.container.services.channelAccounts.connect(scopeOf(tenant), {
      network: 'bluesky',
      identifier: victim.handle,
      secret: victim.appPassword,
    });
    accountId = account.id;
  });

  it('moves the account to needs_reconnect once, with the reason, and fails every later use at once', async () => {
    // The owner revokes the app password in Bluesky: its sessions end with it.
    const owner = new AtpAgent({ service: network.pdsUrl });
    await owner.login({ identifier: victim.handle, password: victim.password });
    await owner.com.atproto.server.revokeAppPassword({ name: 'campaign-platform' });

    const eager = createChannelAccess({
      adapters: createChannelAdapters({
        channels: { ...platform.container.config.channels, blueskyServiceUrl: network.pdsUrl },
        fetch: platform.container.channelFetch.apiFetch,
      }),
      audit: platform.container.services.audit,
      credentialKeys: [TEST_CREDENTIAL_KEY],
      refreshAheadSeconds: 86_400,
    });
    const row = await rows().findOneOrFail(ChannelAccount, { id: accountId });
    const failure = await eager
      .withClient(scopeOf(tenant), row, (client) => client.metrics([]))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'channel_reconnect_required',
      message: expect.stringContaining(
        `The Bluesky account @${victim.handle} cannot be used: Bluesky refused the app password`,
      ),
      details: { accountId, network: 'bluesky', handle: victim.handle },
    });
    const marked = await rows().findOneOrFail(ChannelAccount, { id: accountId });
    expect(marked.status).toBe('needs_reconnect');
    expect(marked.statusReason).toMatch(/Reconnect the account with a new app password/);

    // No loop: the next use does not ask the network again (the stored credentials are not even opened).
    const again = await eager
      .withClient(scopeOf(tenant), marked, () => Promise.reject(new Error('the network must not be asked')))
      .catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 'channel_reconnect_required' });

    // The transition is in the audit log, once.
    const audited = await platform.container.orm.em
      .getConnection()
      .execute<{ action: string }[]>(`select action from audit_events where target_id = ?`, [accountId]);
    expect(audited.map((row) => row.action)).toEqual(['channel_account.needs_reconnect']);
  });

  it('reconnects with a new app password; a password of another account is refused', async () => {
    const { channelAccounts } = platform.container.services;
    const other = await network.createAccount('other');
    const wrongAccount = await channelAccounts
      .reconnect(scopeOf(tenant), accountId, { secret: other.appPassword })
      .catch((error: unknown) => error);
    expect(wrongAccount).toMatchObject({ code: 'validation_failed' });

    const owner = new AtpAgent({ service: network.pdsUrl });
    await owner.login({ identifier: victim.handle, password: victim.password });
    const { data } = await owner.com.atproto.server.createAppPassword({ name: 'campaign-platform-2' });
    const account = await channelAccounts.reconnect(scopeOf(tenant), accountId, { secret: data.password });
    expect(account).toMatchObject({ id: accountId, status: 'active', statusReason: null });
  });
});

describe('key rotation', () => {
  it('re-seals every credential with the new first key; the old key can then go', async () => {
    const newKey = 'rotated-credential-key-0123456789abcdefghijklmn';
    const { adapters } = platform.container.services.channels;
    const rotated = createChannelAccess({
      adapters,
      audit: platform.container.services.audit,
      credentialKeys: [newKey, TEST_CREDENTIAL_KEY],
      refreshAheadSeconds: 600,
    });
    const first = await rotated.resealAll(acrossWorkspaces(platform.container.orm.em));
    expect(first.resealed).toBeGreaterThanOrEqual(2);
    expect(await rotated.resealAll(acrossWorkspaces(platform.container.orm.em))).toEqual({
      resealed: 0,
      alreadyCurrent: first.resealed + first.alreadyCurrent,
    });
    const onlyNew = createChannelAccess({
      adapters,
      audit: platform.container.services.audit,
      credentialKeys: [newKey],
      refreshAheadSeconds: 600,
    });
    for (const row of await rows().find(ChannelAccount, { credentials: { $ne: null } })) {
      expect(onlyNew.open(row)).toMatchObject({ did: row.externalId });
    }
    // The old key alone no longer opens them.
    const [row] = await rows().find(ChannelAccount, { credentials: { $ne: null } }, { limit: 1 });
    expect(() => platform.container.services.channels.access.open(row!)).toThrow(/no longer configured/);
    // Put the test key back in front for the tests after this one.
    const back = createChannelAccess({
      adapters,
      audit: platform.container.services.audit,
      credentialKeys: [TEST_CREDENTIAL_KEY, newKey],
      refreshAheadSeconds: 600,
    });
    await back.resealAll(acrossWorkspaces(platform.container.orm.em));
  });
});

describe('disconnecting', () => {
  it('signs out, erases the credentials and keeps the row for its history', async () => {
    const { channelAccounts } = platform.container.services;
    const row = await rows().findOneOrFail(ChannelAccount, { workspace: tenant.workspaceId, externalId: brand.did });
    const refreshJwt = (platform.container.services.channels.access.open(row) as { refreshJwt: string }).refreshJwt;
    const { account, stopped, publishing } = await channelAccounts.disconnect(scopeOf(tenant), row.id);
    expect(account).toMatchObject({ status: 'disconnected', statusReason: expect.stringMatching(/^Disconnected on /) });
    expect(stopped).toEqual([]);
    expect(publishing).toEqual([]);
    const erased = await rows().findOneOrFail(ChannelAccount, { id: row.id });
    expect(erased.credentials).toBeNull();
    // The session was ended on the PDS: its refresh token no longer refreshes.
    const stale = new AtpAgent({ service: network.pdsUrl });
    const refused = await stale.com.atproto.server
      .refreshSession(undefined, { headers: { authorization: `Bearer ${refreshJwt}` } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, error: expect.stringMatching(/ExpiredToken|InvalidToken/) });
    // Disconnecting twice says so.
    await expect(channelAccounts.disconnect(scopeOf(tenant), row.id)).rejects.toMatchObject({ code: 'conflict' });
  });
});
