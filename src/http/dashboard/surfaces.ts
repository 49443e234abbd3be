/**
 * Surfaces and zones (`/w/:id/surfaces`): each surface (a brand-site page, an email, a social channel) with its
 * zones and the campaigns live in each, and forms to create a surface or a zone. Read with `query_surfaces`, and
 * what is live per zone with `liveCampaignsByZone` (a read); created with `manage_surfaces` (kit.tool): the tool
 * checks the role and writes the audit line, as for an agent. Deploying a campaign to a zone is on the
 * campaign's page.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { can } from '../../auth/permissions.ts';
import { liveCampaignsByZone, type ZoneLiveCampaigns } from '../../domain/campaigns/deployments.ts';
import { SURFACE_KINDS, ZONE_KINDS } from '../../domain/surfaces/surface.entity.ts';
import type { SurfaceView, ZoneView } from '../../domain/surfaces/surfaces.service.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { clearIfEmpty, keepIfEmpty, raw, type FormBody } from './form-fields.ts';
import { state, type DashboardKit } from './kit.ts';

const SURFACES_PER_PAGE = 20;
/** Zones are read in pages of 100, up to this many pages (a workspace's whole set). */
const MAX_READ_PAGES = 10;
/** A zone lists this many of its live campaigns by name (the latest deployed), then how many more. */
const LIVE_NAMES_PER_ZONE = 5;

const SURFACE_KIND_LABELS: Record<(typeof SURFACE_KINDS)[number], string> = {
  brand_page: 'Brand-site page',
  email: 'Email',
  social: 'Social channel',
};

interface SurfacesView {
  surfaces: SurfaceView[];
  nextCursor: string | null;
  cursor: string | undefined;
  zonesBySurface: Map<string, ZoneView[]>;
  /** Per zone id: how many campaigns are live there, and the latest few. */
  liveByZone: Map<string, ZoneLiveCampaigns>;
}

/** The zone's constraints in words ("headline ≤ 60, image 16:9"), or null when it has none. */
function limitsOf(zone: ZoneView): string | null {
  const { maxHeadlineLength, maxBodyLength, imageAspect } = zone.constraints;
  const parts = [
    maxHeadlineLength ? `headline ≤ ${maxHeadlineLength} characters` : null,
    maxBodyLength ? `body ≤ ${maxBodyLength} characters` : null,
    imageAspect ? `image ${imageAspect}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/** A positive whole number from a form box, or undefined for an empty box (the tool's schema judges the rest). */
function optionalInteger(body: FormBody, name: string): number | undefined {
  const value = raw(body, name);
  return value === '' ? undefined : Number(value);
}

export function surfaceRoutes(router: Router, kit: DashboardKit): void {
  const { sendHtml } = kit;

  /** Every page of a list action (`nextCursor` paging), up to MAX_READ_PAGES pages of 100. */
  async function readAll<T>(ctx: Context, tool: string, args: Record<string, unknown>, key: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_READ_PAGES; page += 1) {
      const answer = await kit.tool<Record<string, unknown>>(ctx, tool, {
        ...args,
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      items.push(...((answer[key] as T[] | undefined) ?? []));
      cursor = (answer.nextCursor as string | null | undefined) ?? undefined;
      if (!cursor) break;
    }
    return items;
  }

  const surfacesPage = async (ctx: Context, notices: Notice[] = []) => {
    const cursor =
      typeof ctx.query.cursor === 'string' && ctx.query.cursor ? ctx.query.cursor.slice(0, 200) : undefined;
    const [{ surfaces, nextCursor }, zones] = await Promise.all([
      kit.tool<{ surfaces: SurfaceView[]; nextCursor: string | null }>(ctx, 'query_surfaces', {
        operation: 'list_surfaces',
        limit: SURFACES_PER_PAGE,
        ...(cursor ? { cursor } : {}),
      }),
      readAll<ZoneView>(ctx, 'query_surfaces', { operation: 'list_zones' }, 'zones'),
    ]);
    const zonesBySurface = new Map<string, ZoneView[]>();
    for (const zone of zones) zonesBySurface.set(zone.surfaceId, [...(zonesBySurface.get(zone.surfaceId) ?? []), zone]);
    // What is live in the zones on this page: a count and the latest few names per zone, in one grouped read
    // (reading every active deployment through `query_campaigns deployments` hydrated hundreds of them a view).
    const shownZones = surfaces.flatMap((surface) => zonesBySurface.get(surface.id) ?? []).map((zone) => zone.id);
    const liveByZone = await liveCampaignsByZone(kit.scopeOf(ctx), shownZones, LIVE_NAMES_PER_ZONE);
    sendHtml(
      ctx,
      surfacesListPage(state(ctx).chrome, { surfaces, nextCursor, cursor, zonesBySurface, liveByZone }, notices),
    );
  };

  router.get('/w/:workspaceId/surfaces', ...kit.workspacePage('workspace:read'), (ctx) => surfacesPage(ctx));

  router.post('/w/:workspaceId/surfaces', ...kit.toolAction(surfacesPage), async (ctx) => {
    const body = ctx.request.body as FormBody;
    const kind = raw(body, 'kind');
    const { surface } = await kit.tool<{ surface: SurfaceView }>(ctx, 'manage_surfaces', {
      operation: 'create_surface',
      name: raw(body, 'name'),
      kind,
      path: kind === 'brand_page' ? clearIfEmpty(body, 'path') : null,
      channel: kind === 'social' ? clearIfEmpty(body, 'channel') : null,
      description: clearIfEmpty(body, 'description'),
    });
    await surfacesPage(ctx, [
      { kind: 'ok', text: `Created the surface “${surface.name}”. Add a zone to deploy to it.` },
    ]);
  });

  router.post('/w/:workspaceId/surfaces/zones', ...kit.toolAction(surfacesPage), async (ctx) => {
    const body = ctx.request.body as FormBody;
    const constraints = {
      maxHeadlineLength: optionalInteger(body, 'maxHeadlineLength'),
      maxBodyLength: optionalInteger(body, 'maxBodyLength'),
      imageAspect: keepIfEmpty(body, 'imageAspect'),
    };
    const { zone } = await kit.tool<{ zone: ZoneView }>(ctx, 'manage_surfaces', {
      operation: 'create_zone',
      surfaceId: raw(body, 'surfaceId'),
      name: raw(body, 'name'),
      key: raw(body, 'key'),
      kind: raw(body, 'kind'),
      constraints: Object.fromEntries(Object.entries(constraints).filter(([, value]) => value !== undefined)),
    });
    await surfacesPage(ctx, [{ kind: 'ok', text: `Created the zone “${zone.name}” (${zone.key}).` }]);
  });
}

const SURFACE_STYLES = html`<style>
  .surface-head {
    display: flex;
    justify-content: space-between;
    gap: 12px;
    flex-wrap: wrap;
    align-items: baseline;
  }
  .surface-head h2 {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .surface-form textarea,
  .surface-form input[type='number'] {
    width: 100%;
    max-width: 420px;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  .surface-form .pair {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(160px, 1fr));
    gap: 0 16px;
    max-width: 560px;
  }
  .hint {
    display: block;
    color: #4a515c;
    font-size: 0.9rem;
  }
</style>`;

function surfaceCard(chrome: Chrome, surface: SurfaceView, view: SurfacesView): SafeHtml {
  const zones = view.zonesBySurface.get(surface.id) ?? [];
  const where = surface.url
    ? html`<a href="${surface.url}">${surface.url}</a>`
    : surface.channel
      ? html`Channel: ${surface.channel}`
      : '';
  return html`<section class="card" aria-labelledby="surface-${surface.id}">
    <div class="surface-head">
      <h2 id="surface-${surface.id}">${surface.name}</h2>
      <span class="badge info"
        >${SURFACE_KIND_LABELS[surface.kind as keyof typeof SURFACE_KIND_LABELS] ?? surface.kind}</span
      >
    </div>
    <p class="truncate">${where}</p>
    ${surface.description ? html`<p class="muted">${surface.description}</p>` : ''}
    ${
      zones.length
        ? stackedTable(
            ['Zone', 'Kind', 'Limits', 'Live campaigns'],
            zones.map((zone) => {
              const live = view.liveByZone.get(zone.id);
              const more = live ? live.count - live.latest.length : 0;
              return [
                html`${zone.name}<br /><span class="muted">key ${zone.key}</span>`,
                zone.kind,
                limitsOf(zone) ?? html`<span class="muted">none</span>`,
                live
                  ? html`${live.latest.map(
                      (campaign, index) =>
                        html`${index ? ', ' : ''}<a href="/w/${chrome.current!.id}/campaigns/${campaign.id}"
                            >${campaign.name}</a
                          >`,
                    )}${more ? html` <span class="muted">and ${more} more (${live.count} live)</span>` : ''}`
                  : html`<span class="muted">nothing deployed</span>`,
              ];
            }),
          )
        : html`<p class="muted">No zones yet: campaigns are deployed to a zone.</p>`
    }
  </section>`;
}

function createForms(chrome: Chrome, surfaces: SurfaceView[]): SafeHtml {
  const ws = chrome.current!;
  return html`<section class="card" aria-labelledby="new-surface-title">
      <h2 id="new-surface-title">Create a surface</h2>
      <form method="post" action="/w/${ws.id}/surfaces" class="surface-form">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <label for="surface-name">Name</label>
        <span class="hint" id="surface-name-hint">Internal label, never shown on the brand site.</span>
        <input
          id="surface-name"
          name="name"
          type="text"
          required
          maxlength="120"
          aria-describedby="surface-name-hint"
        />
        <label for="surface-kind">Kind</label>
        <select id="surface-kind" name="kind">
          ${SURFACE_KINDS.map((kind) => html`<option value="${kind}">${SURFACE_KIND_LABELS[kind]}</option>`)}
        </select>
        <div class="pair">
          <div>
            <label for="surface-path">Page path (brand-site pages)</label>
            <span class="hint" id="surface-path-hint">e.g. /summer: public, the page is titled from it.</span>
            <input id="surface-path" name="path" type="text" maxlength="200" aria-describedby="surface-path-hint" />
          </div>
          <div>
            <label for="surface-channel">Network (social channels)</label>
            <span class="hint" id="surface-channel-hint">e.g. instagram</span>
            <input
              id="surface-channel"
              name="channel"
              type="text"
              maxlength="40"
              aria-describedby="surface-channel-hint"
            />
          </div>
        </div>
        <label for="surface-description">What it is for (internal)</label>
        <textarea id="surface-description" name="description" rows="2" maxlength="1000"></textarea>
        <p><button type="submit">Create surface</button></p>
      </form>
    </section>
    ${
      surfaces.length
        ? html`<section class="card" aria-labelledby="new-zone-title">
            <h2 id="new-zone-title">Create a zone</h2>
            <form method="post" action="/w/${ws.id}/surfaces/zones" class="surface-form">
              <input type="hidden" name="_csrf" value="${chrome.csrf}" />
              <label for="zone-surface">On the surface</label>
              <select id="zone-surface" name="surfaceId">
                ${surfaces.map((surface) => html`<option value="${surface.id}">${surface.name}</option>`)}
              </select>
              <div class="pair">
                <div>
                  <label for="zone-name">Name</label>
                  <input id="zone-name" name="name" type="text" required maxlength="120" />
                </div>
                <div>
                  <label for="zone-key">Key</label>
                  <span class="hint" id="zone-key-hint">Short, unique on the surface, e.g. hero</span>
                  <input
                    id="zone-key"
                    name="key"
                    type="text"
                    required
                    maxlength="60"
                    aria-describedby="zone-key-hint"
                  />
                </div>
                <div>
                  <label for="zone-kind">Kind</label>
                  <select id="zone-kind" name="kind">
                    ${ZONE_KINDS.map((kind) => html`<option value="${kind}">${kind.replace('_', ' ')}</option>`)}
                  </select>
                </div>
              </div>
              <fieldset>
                <legend>Limits the deployed copy must respect (optional)</legend>
                <div class="pair">
                  <div>
                    <label for="zone-headline">Longest headline</label>
                    <input id="zone-headline" name="maxHeadlineLength" type="number" min="1" step="1" />
                  </div>
                  <div>
                    <label for="zone-body">Longest body</label>
                    <input id="zone-body" name="maxBodyLength" type="number" min="1" step="1" />
                  </div>
                  <div>
                    <label for="zone-aspect">Image aspect</label>
                    <input id="zone-aspect" name="imageAspect" type="text" maxlength="5" placeholder="16:9" />
                  </div>
                </div>
              </fieldset>
              <p><button type="submit">Create zone</button></p>
            </form>
          </section>`
        : ''
    }`;
}

export function surfacesListPage(chrome: Chrome, view: SurfacesView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const editable = can(ws.role, 'content:write');
  const base = `/w/${ws.id}/surfaces`;
  const body = html`<h1>Surfaces of ${ws.name}</h1>
    <p class="muted">
      Where campaigns appear: pages of the brand site, emails and social channels, each with zones (the slots a campaign
      is deployed to).
    </p>
    ${view.surfaces.length ? view.surfaces.map((surface) => surfaceCard(chrome, surface, view)) : html`<p class="card">No surfaces yet.</p>`}
    <nav class="pager" aria-label="Pages of surfaces">
      ${view.cursor ? html`<a href="${base}">First page</a>` : html`<span></span>`}
      ${view.nextCursor ? html`<a href="${base}?cursor=${encodeURIComponent(view.nextCursor)}">Next page</a>` : ''}
    </nav>
    ${editable ? createForms(chrome, view.surfaces) : ''}`;
  return shell('Surfaces', chrome, body, notices, SURFACE_STYLES);
}
