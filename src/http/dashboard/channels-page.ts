/**
 * The Channels page of the dashboard (`channels.ts` has its routes): connected accounts grouped by network,
 * the Connect buttons (or "not set up" where the operator has not registered the network's app), the posts
 * with their status, errors, links and engagement, and the page that asks before disconnecting an account.
 */
import {
  CHANNEL_METRICS,
  CHANNEL_NETWORKS,
  NETWORK_NAMES,
  type ChannelNetwork,
} from '../../domain/channels/channel-networks.ts';
import { POST_STATUSES, type PostStatus } from '../../domain/channels/channel-status.ts';
import type { AccountView, PostView } from '../../domain/channels/channel-views.ts';
import { count } from '../../views/count.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';

export interface ChannelsView {
  accounts: AccountView[];
  posts: PostView[];
  nextCursor: string | null;
  status: PostStatus | null;
  /** Who connected each account, by actor (`user:usr_…` → their email). */
  people: Map<string, string>;
  canManage: boolean;
  /** How each network connects, and whether the operator set up the platform's app for it. */
  networks: NetworkConnect[];
}

export interface NetworkConnect {
  network: ChannelNetwork;
  name: string;
  method: 'app_password' | 'oauth';
  configured: boolean;
}

/** What the Connect button says, per OAuth network. */
const CONNECT_LABELS: Partial<Record<ChannelNetwork, { button: string; note: string }>> = {
  meta: {
    button: 'Connect Facebook Pages and Instagram',
    note: 'Sign in with Facebook and choose the Pages to connect; the Instagram professional account linked to each Page is connected with it.',
  },
  reddit: {
    button: 'Connect a Reddit account',
    note: 'Sign in on Reddit and allow the platform to submit, read and edit posts and set flair.',
  },
  tiktok: {
    button: 'Connect a TikTok account',
    note: 'Sign in on TikTok and allow the platform to upload and publish videos and read their statistics.',
  },
};

/** What a network is called on a button, short (Meta's sign-in is Facebook's). */
const SHORT_NAMES: Record<ChannelNetwork, string> = {
  bluesky: 'Bluesky',
  meta: 'Facebook',
  reddit: 'Reddit',
  tiktok: 'TikTok',
};

const KIND_ORDER = ['facebook_page', 'instagram'];

/** Accounts grouped as people look for them: by network, a Page before its Instagram account, then by handle. */
export function byNetwork(accounts: AccountView[]): AccountView[] {
  const rank = (account: AccountView) => [
    CHANNEL_NETWORKS.indexOf(account.network as ChannelNetwork),
    KIND_ORDER.indexOf(account.kind ?? ''),
  ];
  return [...accounts].sort((a, b) => {
    const [na, ka] = rank(a);
    const [nb, kb] = rank(b);
    return na! - nb! || ka! - kb! || a.handle.localeCompare(b.handle);
  });
}

const minute = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

const STATUS_BADGE: Record<string, string> = {
  active: 'ok',
  needs_reconnect: 'warn',
  disconnected: 'muted',
  draft: 'muted',
  scheduled: 'info',
  publishing: 'info',
  published: 'ok',
  failed: 'error',
  deleted: 'muted',
};

const badge = (status: string) =>
  html`<span class="badge ${STATUS_BADGE[status] ?? 'muted'}">${status.replace('_', ' ')}</span>`;

function accountCard(chrome: Chrome, view: ChannelsView, account: AccountView): SafeHtml {
  const ws = chrome.current!;
  const by = view.people.get(account.connectedBy) ?? account.connectedBy;
  return html`<li class="card account" id="account-${account.id}">
    <div class="account-head">
      <div>
        ${account.displayName ? html`<strong>${account.displayName}</strong>` : ''}
        <span class="network-tag ${account.network}"
          >${account.kindName ?? SHORT_NAMES[account.network as ChannelNetwork] ?? account.networkName}</span
        >
        <a href="${account.profileUrl}" rel="noopener noreferrer"><strong>@${account.handle}</strong></a>
      </div>
      ${badge(account.status)}
    </div>
    ${account.statusReason ? html`<p class="${account.status === 'needs_reconnect' ? 'reason' : 'muted'}">${account.statusReason}</p>` : ''}
    <dl class="facts">
      <div>
        <dt>Connected</dt>
        <dd>${minute(account.connectedAt)} by ${by}</dd>
      </div>
      <div>
        <dt>Last successful call</dt>
        <dd>${minute(account.lastSuccessAt)}</dd>
      </div>
      <div>
        <dt>Rate budget</dt>
        <dd>
          ${
            account.quota
              ? html`${account.quota.remaining.toLocaleString('en-US')} of
                ${account.quota.limit.toLocaleString('en-US')} left, resets ${minute(account.quota.resetAt)}`
              : 'not reported yet'
          }
        </dd>
      </div>
    </dl>
    ${
      view.canManage && view.networks.find((entry) => entry.network === account.network)?.method === 'oauth'
        ? html`<div class="row actions">
            <a
              class="button${account.status === 'needs_reconnect' ? '' : ' secondary'}"
              href="/w/${ws.id}/channels/connect/${account.network}"
              >${account.status === 'disconnected' ? 'Connect again' : 'Reconnect'} on
              ${SHORT_NAMES[account.network as ChannelNetwork] ?? account.networkName}</a
            >
            ${
              account.status === 'disconnected'
                ? ''
                : html`<a class="button secondary" href="/w/${ws.id}/channels/${account.id}/disconnect"
                    >Disconnect @${account.handle}…</a
                  >`
            }
          </div>`
        : view.canManage
          ? html`<div class="row actions">
              <details ${account.status === 'needs_reconnect' ? html`open` : ''}>
                <summary>${account.status === 'disconnected' ? 'Connect again' : 'Reconnect'}</summary>
                <form method="post" action="/w/${ws.id}/channels/${account.id}/reconnect">
                  <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                  <label for="secret-${account.id}">New app password for @${account.handle}</label>
                  <input
                    id="secret-${account.id}"
                    name="secret"
                    type="password"
                    autocomplete="off"
                    required
                    maxlength="200"
                  />
                  <p><button type="submit">Reconnect @${account.handle}</button></p>
                </form>
              </details>
              ${
                account.status === 'disconnected'
                  ? ''
                  : html`<a class="button secondary" href="/w/${ws.id}/channels/${account.id}/disconnect"
                      >Disconnect @${account.handle}…</a
                    >`
              }
            </div>`
          : ''
    }
  </li>`;
}

function postRow(view: ChannelsView, post: PostView): SafeHtml {
  const account = view.accounts.find((candidate) => candidate.id === post.accountId);
  const when =
    post.status === 'published'
      ? minute(post.publishedAt)
      : post.status === 'scheduled' || post.status === 'publishing'
        ? minute(post.scheduledAt)
        : minute(post.updatedAt);
  const engagement = post.metrics
    ? CHANNEL_METRICS.filter((name) => post.metrics![name] !== null)
        .map((name) => `${post.metrics![name]} ${name}`)
        .join(' · ')
    : '';
  return html`<tr id="post-${post.id}">
    <td>${badge(post.status)}</td>
    <td>
      ${
        typeof post.options.title === 'string'
          ? html`<strong>${post.options.title}</strong
              >${typeof post.options.subreddit === 'string' ? html` <span class="muted">in r/${post.options.subreddit}</span>` : ''}<br />`
          : ''
      }
      <span class="post-text">${post.text.length > 140 ? `${post.text.slice(0, 139)}…` : post.text}</span>
      ${post.link ? html`<br /><span class="muted">Link: ${post.link.display}</span>` : ''}
      ${
        post.media.length
          ? html`<br /><span class="muted"
                >${count(post.media.length, post.media.some((item) => item.mimeType.startsWith('video/')) ? 'video' : 'image')}</span
              >`
          : ''
      }
      ${post.error && post.status !== 'published' ? html`<p class="reason">${post.error.message}</p>` : ''}
      ${post.removedBy ? html`<p class="reason">Removed on ${NETWORK_NAMES[post.network as ChannelNetwork] ?? post.network} by ${post.removedBy}: people no longer see it.</p>` : ''}
    </td>
    <td>
      ${account ? html`@${account.handle}<br /><span class="muted">${account.kindName ?? account.networkName}</span>` : post.accountId}
    </td>
    <td>${when}</td>
    <td>
      ${post.externalUrl && post.status === 'published' ? html`<a href="${post.externalUrl}" rel="noopener noreferrer">View post</a>` : ''}
      ${engagement ? html`<br /><span class="muted">${engagement}</span>` : ''}
    </td>
  </tr>`;
}

export function channelsPage(chrome: Chrome, view: ChannelsView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const active = byNetwork(view.accounts.filter((account) => account.status !== 'disconnected'));
  const disconnected = byNetwork(view.accounts.filter((account) => account.status === 'disconnected'));
  return shell(
    'Channels',
    chrome,
    html`<h1>Channels</h1>
      <p>
        Connect the brand's social accounts here. Agents with a channel profile can then draft, schedule and publish
        posts with them — always asking you first — but no agent can connect an account.
      </p>
      <h2>Connected accounts</h2>
      ${
        active.length
          ? html`<ul class="accounts">
              ${active.map((account) => accountCard(chrome, view, account))}
            </ul>`
          : html`<p class="card muted">No account is connected yet.</p>`
      }
      ${
        view.canManage
          ? html`<section class="card" id="connect" aria-labelledby="connect-title">
              <h2 id="connect-title">Connect an account</h2>
              <ul class="connect-list">
                ${view.networks
                  .filter((entry) => entry.method === 'oauth')
                  .map((entry) =>
                    entry.configured
                      ? html`<li>
                          <a class="button" href="/w/${ws.id}/channels/connect/${entry.network}"
                            >${CONNECT_LABELS[entry.network]?.button ?? `Connect ${entry.name}`}</a
                          >
                          <p class="muted">${CONNECT_LABELS[entry.network]?.note ?? ''}</p>
                        </li>`
                      : html`<li>
                          <strong>${entry.name}</strong>
                          <p class="muted">
                            Not set up yet: the platform's operator registers its ${entry.name} app first (see the
                            operators' guide, Channels).
                          </p>
                        </li>`,
                  )}
              </ul>
              <form method="post" action="/w/${ws.id}/channels" id="connect-bluesky">
                <h3>Bluesky</h3>
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <input type="hidden" name="network" value="bluesky" />
                <label for="channel-identifier">Handle</label>
                <input
                  id="channel-identifier"
                  name="identifier"
                  type="text"
                  required
                  maxlength="253"
                  placeholder="yourbrand.bsky.social"
                  autocomplete="username"
                />
                <label for="channel-secret">App password</label>
                <input id="channel-secret" name="secret" type="password" required maxlength="200" autocomplete="off" />
                <p class="muted">
                  Create one in Bluesky under Settings → Privacy and security → App passwords. Never use the account's
                  own password: the platform refuses it. The app password is encrypted at rest and shown to no one.
                </p>
                <p><button type="submit">Connect Bluesky</button></p>
              </form>
            </section>`
          : html`<p class="muted">Workspace admins connect accounts.</p>`
      }
      <h2>Posts</h2>
      <form method="get" action="/w/${ws.id}/channels" class="row filters">
        <div>
          <label for="post-status">Status</label>
          <select id="post-status" name="status">
            <option value="">All but deleted</option>
            ${POST_STATUSES.map((status) => html`<option value="${status}" ${view.status === status ? html`selected` : ''}>${status}</option>`)}
          </select>
        </div>
        <button class="secondary" type="submit">Show</button>
      </form>
      ${
        view.posts.length
          ? html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Status</th>
                      <th scope="col">Post</th>
                      <th scope="col">Account</th>
                      <th scope="col">When</th>
                      <th scope="col">On the network</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.posts.map((post) => postRow(view, post))}
                  </tbody>
                </table>
              </div>
              ${
                view.nextCursor
                  ? html`<p>
                      <a
                        href="/w/${ws.id}/channels?${new URLSearchParams({ ...(view.status ? { status: view.status } : {}), cursor: view.nextCursor }).toString()}"
                        >Older posts →</a
                      >
                    </p>`
                  : ''
              }`
          : html`<p class="card muted">No posts${view.status ? ` with status ${view.status}` : ''} yet.</p>`
      }
      ${
        disconnected.length
          ? html`<h2>Disconnected accounts</h2>
              <ul class="accounts">
                ${disconnected.map((account) => accountCard(chrome, view, account))}
              </ul>`
          : ''
      }`,
    notices,
  );
}

export function disconnectPage(chrome: Chrome, account: AccountView, scheduled: PostView[]): string {
  const ws = chrome.current!;
  return shell(
    `Disconnect @${account.handle}`,
    chrome,
    html`<div class="card" role="alertdialog" aria-labelledby="disconnect-title">
      <h1 id="disconnect-title">Disconnect @${account.handle}?</h1>
      <p>
        The platform signs out of ${account.networkName} and erases the app password. Posts already published stay on
        ${account.networkName}.
      </p>
      ${
        scheduled.length
          ? html`<p>
                <strong>${count(scheduled.length, 'scheduled post')} will be stopped.</strong> They are marked failed
                with the reason, and can be retried once an account is reconnected:
              </p>
              <ul>
                ${scheduled.map(
                  (post) =>
                    html`<li>
                      ${minute(post.scheduledAt)}: ${post.text.length > 80 ? `${post.text.slice(0, 79)}…` : post.text}
                    </li>`,
                )}
              </ul>`
          : html`<p>It has no scheduled posts.</p>`
      }
      <form method="post" action="/w/${ws.id}/channels/${account.id}/disconnect" class="row">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <button class="danger" type="submit">Disconnect @${account.handle}</button>
        <a href="/w/${ws.id}/channels">Keep it connected</a>
      </form>
    </div>`,
  );
}
