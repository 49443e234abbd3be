/**
 * A workspace's social channels: the connected accounts (connect, reconnect, disconnect — an admin matter, as
 * connecting hands the platform a credential that posts in the brand's name) and their posts with status,
 * errors and links. Agents use connected accounts through the channel tools but can never connect one; this
 * page is where a person does. Every action goes through the same channel services as the tools, and lands in
 * the audit log.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { can } from '../../auth/permissions.ts';
import { isChannelNetwork, NETWORK_NAMES } from '../../domain/channels/channel-networks.ts';
import { POST_STATUSES, type PostStatus } from '../../domain/channels/channel-status.ts';
import { count } from '../../views/count.ts';
import { AppError } from '../../errors.ts';
import { FLOW_TTL_SECONDS } from '../../domain/channels/channel-oauth.ts';
import { notFoundPage, type Notice } from './chrome.ts';
import { byNetwork, channelsPage, disconnectPage, type ChannelsView } from './channels-page.ts';
import { state, type DashboardKit } from './kit.ts';

const POSTS_PER_PAGE = 25;

/** The cookie that carries a network OAuth flow from the Connect button to the callback (`channel-oauth.ts`). */
const OAUTH_FLOW_COOKIE = 'cp_channel_oauth';

export function channelRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { channelAccounts, channelPosts, workspaces, channels } = kit.container.services;
  const { oauth } = channels;
  const secure = kit.container.config.urls.platform.startsWith('https:');

  async function load(ctx: Context): Promise<ChannelsView> {
    const scope = kit.scopeOf(ctx);
    const ws = state(ctx).workspace!;
    const status = POST_STATUSES.includes(ctx.query.status as PostStatus) ? (ctx.query.status as PostStatus) : null;
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor ? ctx.query.cursor : undefined;
    const accounts = (await channelAccounts.list(scope, { limit: 100 })).items;
    const posts = await channelPosts.list(scope, null, { status: status ?? undefined, cursor, limit: POSTS_PER_PAGE });
    const members = await workspaces.listMembers(em(), ws.id);
    return {
      accounts,
      posts: posts.items,
      nextCursor: posts.nextCursor,
      status,
      people: new Map(members.map((member) => [`user:${member.userId}`, member.email])),
      canManage: can(ws.role, 'channels:manage'),
      networks: channels.adapters.all().map((adapter) => ({
        network: adapter.network,
        name: NETWORK_NAMES[adapter.network],
        method: adapter.oauth ? ('oauth' as const) : ('app_password' as const),
        configured: adapter.oauth ? adapter.oauth.configured : true,
      })),
    };
  }

  const render = async (ctx: Context, notices: Notice[] = []) => {
    sendHtml(ctx, channelsPage(state(ctx).chrome, await load(ctx), notices));
  };

  router.get('/w/:workspaceId/channels', ...kit.workspacePage('workspace:read'), async (ctx) => {
    // Back from a network's consent page (`/channels/oauth/:network/callback`): say what was connected.
    const connected = typeof ctx.query.connected === 'string' ? ctx.query.connected.split(',').slice(0, 50) : [];
    const notices: Notice[] = [];
    const declined = ctx.query.declined;
    if (isChannelNetwork(declined)) {
      notices.push({
        kind: 'warn',
        text: `No account was connected: access was not granted on ${NETWORK_NAMES[declined]}. Connect again whenever you are ready.`,
      });
    }
    if (connected.length) {
      const accounts = byNetwork(
        (await channelAccounts.list(kit.scopeOf(ctx), { limit: 100 })).items.filter((account) =>
          connected.includes(account.id),
        ),
      );
      if (accounts.length) {
        notices.push({
          kind: 'ok',
          text: `Connected ${accounts.map((account) => `@${account.handle} (${account.kindName ?? account.networkName})`).join(', ')}. Agents with the ${accounts[0]!.networkName} tools can post with ${accounts.length === 1 ? 'it' : 'them'} now.`,
        });
      }
    }
    await render(ctx, notices);
  });

  // Connecting through a network's OAuth: the flow (state, PKCE verifier, workspace) rides in a short-lived
  // cookie sealed for this person; the network sends them back to the one callback URL the operator registered.
  router.get('/w/:workspaceId/channels/connect/:network', ...kit.workspacePage('channels:manage'), async (ctx) => {
    const { authorizationUrl, flow } = oauth.begin({
      network: ctx.params.network!,
      workspaceId: state(ctx).workspace!.id,
      actor: kit.actorOf(ctx),
    });
    ctx.cookies.set(OAUTH_FLOW_COOKIE, flow, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/channels/oauth/',
      maxAge: FLOW_TTL_SECONDS * 1000,
      overwrite: true,
    });
    ctx.redirect(authorizationUrl);
  });

  router.get(
    '/channels/oauth/:network/callback',
    kit.requireSession,
    async (ctx, next) => {
      // The callback names no workspace: the flow does. Membership and role are checked for it as for any page.
      const workspaceId = oauth.workspaceOf(ctx.cookies.get(OAUTH_FLOW_COOKIE), kit.actorOf(ctx));
      if (!workspaceId) {
        kit.sendHtml(
          ctx,
          notFoundPage(
            state(ctx).chrome,
            'This sign-in was not started here, or its page was open too long. Start again from Channels.',
          ),
          400,
        );
        return;
      }
      ctx.params.workspaceId = workspaceId;
      await next();
    },
    kit.inWorkspace('channels:manage'),
    async (ctx) => {
      const scope = kit.scopeOf(ctx);
      const flow = ctx.cookies.get(OAUTH_FLOW_COOKIE);
      ctx.cookies.set(OAUTH_FLOW_COOKIE, '', { path: '/channels/oauth/', maxAge: 0, overwrite: true });
      let granted: Awaited<ReturnType<typeof oauth.finish>>;
      try {
        granted = await oauth.finish({ network: ctx.params.network!, flow, query: ctx.query, actor: kit.actorOf(ctx) });
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'internal_error') throw error;
        if (error.details?.declined === true) {
          // Back to the page itself (not this callback URL), with a neutral word: nothing went wrong.
          ctx.redirect(`/w/${scope.workspaceId}/channels?declined=${encodeURIComponent(ctx.params.network!)}`);
          return;
        }
        await render(ctx, [{ kind: 'error', text: error.message }]);
        ctx.status = 400;
        return;
      }
      const stored = await channelAccounts.connectGranted(scope, granted.network, granted.identities);
      for (const { account, reconnected } of stored) {
        await kit.recordAudit(ctx, {
          action: reconnected ? 'channel_account.reconnect' : 'channel_account.connect',
          targetType: 'channel_account',
          targetId: account.id,
          details: { network: account.network, handle: account.handle, kind: account.kind },
        });
      }
      // A redirect, so that reloading the page does not replay the (single-use) code.
      ctx.redirect(`/w/${scope.workspaceId}/channels?connected=${stored.map(({ account }) => account.id).join(',')}`);
    },
  );

  router.post('/w/:workspaceId/channels', ...kit.workspaceAction('channels:manage', render), async (ctx) => {
    const body = ctx.request.body as Record<string, string>;
    const { account, reconnected } = await channelAccounts.connect(kit.scopeOf(ctx), {
      network: String(body.network ?? ''),
      identifier: String(body.identifier ?? ''),
      secret: String(body.secret ?? ''),
    });
    await kit.recordAudit(ctx, {
      action: reconnected ? 'channel_account.reconnect' : 'channel_account.connect',
      targetType: 'channel_account',
      targetId: account.id,
      details: { network: account.network, handle: account.handle },
    });
    await render(ctx, [
      {
        kind: 'ok',
        text: `${reconnected ? 'Reconnected' : 'Connected'} @${account.handle} on ${account.networkName}. Agents with the ${account.networkName} tools can post with it now.`,
      },
    ]);
  });

  router.post(
    '/w/:workspaceId/channels/:accountId/reconnect',
    ...kit.workspaceAction('channels:manage', render),
    async (ctx) => {
      const body = ctx.request.body as Record<string, string>;
      const account = await channelAccounts.reconnect(kit.scopeOf(ctx), ctx.params.accountId!, {
        secret: String(body.secret ?? ''),
      });
      await kit.recordAudit(ctx, {
        action: 'channel_account.reconnect',
        targetType: 'channel_account',
        targetId: account.id,
        details: { network: account.network, handle: account.handle },
      });
      await render(ctx, [{ kind: 'ok', text: `Reconnected @${account.handle}. Failed posts can be retried now.` }]);
    },
  );

  // Disconnecting stops scheduled posts: a page says which, and asks first.
  router.get('/w/:workspaceId/channels/:accountId/disconnect', ...kit.workspacePage('channels:manage'), async (ctx) => {
    const scope = kit.scopeOf(ctx);
    const account = await channelAccounts.get(scope, ctx.params.accountId!);
    const scheduled = await channelPosts.list(scope, account.network, {
      accountId: account.id,
      status: 'scheduled',
      limit: 100,
    });
    sendHtml(ctx, disconnectPage(state(ctx).chrome, account, scheduled.items));
  });

  router.post(
    '/w/:workspaceId/channels/:accountId/disconnect',
    ...kit.workspaceAction('channels:manage', render),
    async (ctx) => {
      const { account, stopped, publishing } = await channelAccounts.disconnect(
        kit.scopeOf(ctx),
        ctx.params.accountId!,
      );
      await kit.recordAudit(ctx, {
        action: 'channel_account.disconnect',
        targetType: 'channel_account',
        targetId: account.id,
        details: {
          network: account.network,
          handle: account.handle,
          stoppedPosts: stopped,
          publishingPosts: publishing,
        },
      });
      const notices: Notice[] = [
        {
          kind: 'ok',
          text:
            `Disconnected @${account.handle}: the platform signed out and erased its ${account.network === 'bluesky' ? 'app password' : 'tokens'}. ` +
            (stopped.length
              ? `${count(stopped.length, 'scheduled post')} stopped: marked failed, ready to retry once an account is reconnected.`
              : 'It had no scheduled posts.'),
        },
      ];
      if (publishing.length) {
        notices.push({
          kind: 'warn',
          text: `${count(publishing.length, 'post')} already being published could not be stopped: ${publishing.join(', ')}.`,
        });
      }
      await render(ctx, notices);
    },
  );
}
