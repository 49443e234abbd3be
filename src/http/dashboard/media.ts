/**
 * Generated media (`/w/:id/media`): variant images, render outputs (stills, videos) and film cuts, each with
 * the campaign and variant that use it. Read-only for every role (media are made by generations, renders and
 * films, whose pages start them). No MCP tool lists media, so the page reads `listWorkspaceMedia`, the domain's
 * one reader of the three places media are recorded.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  listWorkspaceMedia,
  MEDIA_PER_SOURCE,
  type MediaItem,
  type MediaSource,
} from '../../domain/media/media-library.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

const SOURCE_LABELS: Record<MediaSource, string> = {
  variant_image: 'Variant image',
  render: 'Render',
  film: 'Film',
};

const FILTERS: readonly (MediaSource | 'all')[] = ['all', 'variant_image', 'render', 'film'];

export function mediaLibraryRoutes(router: Router, kit: DashboardKit): void {
  const { sendHtml } = kit;
  // The platform serves its own media at `{platform_url}/media/<key>`: the dashboard's origin.
  const ownMedia = `${new URL(kit.container.config.urls.platform).origin}/media/`;

  const mediaPage = async (ctx: Context, notices: Notice[] = []) => {
    const filter = FILTERS.find((source) => source === ctx.query.source) ?? 'all';
    const items = await listWorkspaceMedia(kit.scopeOf(ctx));
    const shown = filter === 'all' ? items : items.filter((item) => item.source === filter);
    // Thumbnails of the platform's own images only ('self' is the platform host, where /media/ is served);
    // images at other addresses (a shop's CDN) are linked, never loaded, so the dashboard fetches nothing else.
    sendHtml(ctx, mediaListPage(state(ctx).chrome, { items: shown, filter, ownMedia }, notices), 200, [
      "img-src 'self'",
    ]);
  };

  router.get('/w/:workspaceId/media', ...kit.workspacePage('workspace:read'), (ctx) => mediaPage(ctx));
}

const MEDIA_STYLES = html`<style>
  .media-grid {
    list-style: none;
    padding: 0;
    margin: 0;
    display: grid;
    grid-template-columns: repeat(auto-fill, minmax(220px, 1fr));
    gap: 16px;
  }
  .media-grid li {
    margin: 0;
    padding: 12px;
    display: flex;
    flex-direction: column;
    gap: 6px;
  }
  .thumb {
    width: 100%;
    aspect-ratio: 4 / 3;
    object-fit: cover;
    border-radius: 6px;
    background: #eceff3;
  }
  .thumb-placeholder {
    width: 100%;
    aspect-ratio: 4 / 3;
    border-radius: 6px;
    background: #eceff3;
    display: flex;
    align-items: center;
    justify-content: center;
    color: #3c434d;
    font-weight: 600;
    text-align: center;
    padding: 8px;
  }
  .media-grid .badge {
    align-self: flex-start;
  }
  .media-grid .label {
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .tabs {
    display: flex;
    gap: 16px;
    flex-wrap: wrap;
    margin-bottom: 16px;
  }
  .tabs a[aria-current='page'] {
    font-weight: 700;
    text-decoration: none;
    border-bottom: 3px solid #0b57d0;
  }
</style>`;

function describe(item: MediaItem): string {
  const size = item.width && item.height ? `${item.width}×${item.height}` : null;
  const duration = item.durationSeconds ? `${Math.round(item.durationSeconds)} s` : null;
  return [item.mimeType === 'video/mp4' ? 'video' : item.mimeType ? 'image' : null, size, duration]
    .filter(Boolean)
    .join(' · ');
}

function mediaCard(chrome: Chrome, item: MediaItem, ownMedia: string): SafeHtml {
  const ws = chrome.current!;
  const isVideo = item.mimeType?.startsWith('video/') ?? false;
  const preview =
    item.url.startsWith(ownMedia) && !isVideo
      ? html`<img class="thumb" src="${item.url}" alt="${item.label}" loading="lazy" />`
      : html`<span class="thumb-placeholder">${isVideo ? 'Video' : 'Image at another address'}</span>`;
  const usedIn = item.usedIn
    ? html`Used in
        <a href="/w/${ws.id}/campaigns/${item.usedIn.campaignId}">${item.usedIn.campaignName}</a
        >${item.usedIn.variantName ? html`, variant ${item.usedIn.variantName}` : ''}`
    : html`<span class="muted">Not used by a campaign</span>`;
  return html`<li class="card">
    ${preview}
    <span class="badge">${SOURCE_LABELS[item.source]}</span>
    <span class="label">${item.label}</span>
    <span class="muted">${describe(item)}${describe(item) ? ' · ' : ''}${item.createdAt.slice(0, 10)}</span>
    <span>${usedIn}</span>
    <a href="${item.url}" rel="noopener noreferrer"
      >Open ${isVideo ? 'video' : 'image'}<span class="skip">: ${item.label}</span></a
    >
  </li>`;
}

export function mediaListPage(
  chrome: Chrome,
  view: { items: MediaItem[]; filter: MediaSource | 'all'; ownMedia: string },
  notices: Notice[] = [],
): string {
  const ws = chrome.current!;
  const base = `/w/${ws.id}/media`;
  const body = html`<h1>Media of ${ws.name}</h1>
    <p class="muted">
      What generations, renders and films made, newest first (the latest ${MEDIA_PER_SOURCE} of each kind), and the
      campaigns that use it.
    </p>
    <nav class="tabs" aria-label="Kinds of media">
      ${FILTERS.map(
        (source) =>
          html`<a
            href="${source === 'all' ? base : `${base}?source=${source}`}"
            ${view.filter === source ? html`aria-current="page"` : ''}
            >${source === 'all' ? 'All media' : `${SOURCE_LABELS[source]}s`}</a
          >`,
      )}
    </nav>
    ${
      view.items.length
        ? html`<ul class="media-grid">
            ${view.items.map((item) => mediaCard(chrome, item, view.ownMedia))}
          </ul>`
        : html`<p class="card">No media yet. Generations, renders and films add their images and videos here.</p>`
    }`;
  return shell('Media', chrome, body, notices, MEDIA_STYLES);
}
