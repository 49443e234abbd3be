/**
 * The OAuth flow that connects an account (`channel-oauth.ts`), against Reddit's stand-in: what a callback must
 * carry to be believed — the flow of the same person, for the same network, within its time, with its own
 * state — and that anything else is refused before any code is exchanged.
 */
import { createChannelAdapters } from '../../src/domain/channels/adapters.ts';
import { createChannelOAuth, FLOW_TTL_SECONDS } from '../../src/domain/channels/channel-oauth.ts';
import type { Config } from '../../src/config.ts';
import { startRedditStandin, type RedditStandin } from '../support/standins/reddit-standin.ts';

const PLATFORM = 'https://platform.example.com';
const KEY = 'k'.repeat(48);
let reddit: RedditStandin;
let clock: Date;

function flows() {
  const channels: Pick<Config['channels'], 'blueskyServiceUrl' | 'meta' | 'reddit' | 'tiktok'> = {
    blueskyServiceUrl: 'https://bsky.social',
    meta: {
      appId: '',
      appSecret: '',
      graphUrl: 'https://graph.facebook.com',
      dialogUrl: 'https://www.facebook.com',
      graphVersion: 'v24.0',
    },
    reddit: {
      clientId: reddit.clientId,
      clientSecret: reddit.clientSecret,
      authUrl: reddit.url,
      apiUrl: reddit.url,
      userAgent: 'web:com.example.campaigns:1.0 (by /u/example)',
    },
    tiktok: {
      clientKey: 'tiktok-key',
      clientSecret: 'tiktok-secret',
      authUrl: 'https://www.tiktok.com',
      apiUrl: 'https://open.tiktokapis.com',
      audited: false,
      videoSource: 'FILE_UPLOAD',
    },
  };
  return createChannelOAuth({
    adapters: createChannelAdapters({ channels, fetch: globalThis.fetch }),
    credentialKeys: [KEY],
    redirectUri: (network) => `${PLATFORM}/channels/oauth/${network}/callback`,
    now: () => clock,
  });
}

beforeAll(async () => {
  reddit = await startRedditStandin({ username: 'brand_account' });
});

afterAll(async () => {
  await reddit.close();
});

beforeEach(() => {
  clock = new Date('2026-11-27T12:00:00Z');
});

const query = (redirect: string) => Object.fromEntries(new URL(redirect).searchParams);

it('exchanges the code of a flow the same person started, for the workspace it named', async () => {
  const oauth = flows();
  const { authorizationUrl, flow } = oauth.begin({ network: 'reddit', workspaceId: 'ws_1', actor: 'user:usr_1' });
  expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe(`${PLATFORM}/channels/oauth/reddit/callback`);
  expect(oauth.workspaceOf(flow, 'user:usr_1')).toBe('ws_1');
  expect(oauth.workspaceOf(flow, 'user:usr_2')).toBeNull();
  const granted = await oauth.finish({
    network: 'reddit',
    flow,
    query: query(await reddit.authorize(authorizationUrl)),
    actor: 'user:usr_1',
  });
  expect(granted).toMatchObject({ network: 'reddit', workspaceId: 'ws_1' });
  expect(granted.identities).toEqual([expect.objectContaining({ handle: 'brand_account' })]);
});

it('refuses a flow opened by someone else, one past its time, and one for another network', async () => {
  const oauth = flows();
  const started = oauth.begin({ network: 'reddit', workspaceId: 'ws_1', actor: 'user:usr_1' });
  const answer = query(await reddit.authorize(started.authorizationUrl));

  await expect(
    oauth.finish({ network: 'reddit', flow: started.flow, query: answer, actor: 'user:usr_2' }),
  ).rejects.toThrow('This Reddit sign-in was not started here, or by someone else');

  clock = new Date(clock.getTime() + (FLOW_TTL_SECONDS + 1) * 1000);
  await expect(
    oauth.finish({ network: 'reddit', flow: started.flow, query: answer, actor: 'user:usr_1' }),
  ).rejects.toThrow('The Reddit sign-in took longer than 15 minutes');

  clock = new Date('2026-11-27T12:00:00Z');
  const tiktok = oauth.begin({ network: 'tiktok', workspaceId: 'ws_1', actor: 'user:usr_1' });
  await expect(
    oauth.finish({ network: 'reddit', flow: tiktok.flow, query: answer, actor: 'user:usr_1' }),
  ).rejects.toThrow('This sign-in was started for TikTok, not Reddit');
});

it('refuses a forged state and a missing code, and says plainly when access was declined', async () => {
  const oauth = flows();
  const started = oauth.begin({ network: 'reddit', workspaceId: 'ws_1', actor: 'user:usr_1' });
  const answer = query(await reddit.authorize(started.authorizationUrl));
  const finish = (values: Record<string, string>) =>
    oauth.finish({ network: 'reddit', flow: started.flow, query: values, actor: 'user:usr_1' });

  await expect(finish({ ...answer, state: 'forged' })).rejects.toThrow(
    'Reddit sent back a sign-in this page did not start',
  );
  await expect(finish({ state: answer.state! })).rejects.toThrow('Reddit sent no authorization code back');
  const declined = query(await reddit.decline(started.authorizationUrl));
  await expect(finish(declined)).rejects.toThrow('No account was connected: access was not granted on Reddit.');
});

it('refuses a network that connects with an app password, and one the operator has not set up', () => {
  const oauth = flows();
  expect(() => oauth.begin({ network: 'bluesky', workspaceId: 'ws_1', actor: 'user:usr_1' })).toThrow(
    'Bluesky accounts connect with an app password, not OAuth',
  );
  expect(() => oauth.begin({ network: 'meta', workspaceId: 'ws_1', actor: 'user:usr_1' })).toThrow(/META_APP_ID/);
  expect(() => oauth.begin({ network: 'myspace', workspaceId: 'ws_1', actor: 'user:usr_1' })).toThrow(
    'Unknown network myspace',
  );
});
