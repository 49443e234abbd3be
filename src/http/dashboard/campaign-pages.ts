/**
 * The Campaigns pages of the console (`campaigns.ts` has the routes): the list, a campaign with its variants
 * shown as the brand site renders them, the variant editor (with the "someone else changed it" notice), the
 * confirmation pages that say what will change publicly, and the generation pages (the brief, the credit
 * quote, live progress).
 *
 * Views only: they take what the tools answered and the signed-in person's role, and never call anything.
 */
import type { z } from 'zod';
import { roleAtLeast } from '../../domain/workspaces/roles.ts';
import type {
  CampaignOut,
  DeploymentOut,
  GenerationOut,
  QuoteOut,
  SurfaceOut,
  VariantOut,
  ZoneOut,
} from '../../mcp/schemas.ts';
import { altStates } from '../../public/brand-site/render/fragments.ts';
import { writeHtmlFragment } from '../../public/brand-site/render/html.ts';
import { safeUrl } from '../../public/brand-site/render/text.ts';
import { sitePaths } from '../../public/brand-site/site-model.ts';
import { count } from '../../views/count.ts';
import { html, SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';

export type Campaign = z.infer<typeof CampaignOut>;
export type Variant = z.infer<typeof VariantOut>;
export type Deployment = z.infer<typeof DeploymentOut>;
export type Generation = z.infer<typeof GenerationOut>;
export type Quote = z.infer<typeof QuoteOut>;
export type Surface = z.infer<typeof SurfaceOut>;
export type Zone = z.infer<typeof ZoneOut>;

export const LIST_STATUSES = ['draft', 'generating', 'ready', 'published', 'archived'] as const;
export const GENERATION_STEP_NAMES: Record<string, string> = {
  brief: 'the brief (then copy, images and variants)',
  copy: 'the copy (then images and variants)',
  images: 'the images (then variants)',
  variants: 'the variants only',
};

/** A generation that has not ended yet: its page refreshes itself until it has. */
export const RUNNING = new Set(['queued', 'in_progress', 'input_required', 'cancelling']);

/**
 * The page styles of the campaign pages. The `cp-*` rules follow the brand site's own variant styles
 * (public/brand-site/render/html.ts) so a variant looks here as it does there.
 */
const STYLES = html`<style>
  textarea,
  input[type='number'],
  input[type='search'] {
    width: 100%;
    max-width: 640px;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  input[type='number'] {
    max-width: 120px;
  }
  textarea:focus {
    outline: 3px solid #f9ab00;
    outline-offset: 2px;
  }
  .variants {
    list-style: none;
    padding: 0;
    margin: 0 0 16px;
    display: grid;
    gap: 16px;
    grid-template-columns: repeat(auto-fill, minmax(280px, 1fr));
  }
  .variants > li {
    margin: 0;
    display: flex;
    flex-direction: column;
  }
  .variant-head {
    display: flex;
    justify-content: space-between;
    gap: 8px;
    align-items: baseline;
    flex-wrap: wrap;
    margin-bottom: 8px;
  }
  .cp-preview {
    border: 1px dashed #b9c0ca;
    border-radius: 8px;
    padding: 16px;
    background: #fffdf8;
    flex: 1;
  }
  .cp-variant {
    overflow-wrap: anywhere;
  }
  .cp-image {
    display: block;
    width: 100%;
    height: auto;
    border-radius: 6px;
    margin-bottom: 12px;
  }
  .cp-headline {
    font-size: 1.25rem;
    margin: 0 0 8px;
  }
  .cp-action {
    margin: 12px 0 0;
  }
  .cp-cta {
    display: inline-block;
    padding: 8px 16px;
    border-radius: 6px;
    background: #1b1f24;
    color: #fff;
    text-decoration: none;
    font-weight: 600;
  }
  .progress {
    width: 100%;
    max-width: 480px;
    height: 12px;
  }
  .steps {
    display: flex;
    gap: 8px;
    flex-wrap: wrap;
    list-style: none;
    padding: 0;
  }
  .changes li {
    margin: 6px 0;
    /* A brand-site address is one long word: on a phone it must wrap, not run out of the card. */
    overflow-wrap: anywhere;
  }
  .quote-lines td:last-child,
  .quote-lines th:last-child {
    text-align: right;
  }
  .current {
    border-left: 4px solid #f9ab00;
    padding: 8px 12px;
    background: #fffbea;
  }
  .actions {
    margin: 16px 0;
    gap: 16px;
    align-items: center;
  }
  .filters select,
  .filters input {
    height: 42px;
  }
  .zone-picker select {
    max-width: none;
  }
  input[type='datetime-local'] {
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
    max-width: 100%;
  }
  input[aria-invalid='true'],
  textarea[aria-invalid='true'] {
    border-color: #b3261e;
    border-width: 2px;
  }
  .field-error {
    color: #8c1d18;
    font-weight: 600;
    margin: 4px 0 0;
  }
  .section-head {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: 12px;
    flex-wrap: wrap;
    margin: 32px 0 12px;
  }
  .section-head h2 {
    margin: 0;
  }
  .variant-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 16px;
    margin: 12px 0 0;
  }
  .schedule .row {
    align-items: flex-start;
  }
  .schedule .row > div {
    min-width: 0;
  }
  .checks label {
    font-weight: 400;
    display: flex;
    gap: 8px;
    align-items: center;
    margin: 6px 0;
  }
</style>`;

/** A campaign's run in words: "2026-12-01 09:00 UTC to 2026-12-31 00:00 UTC", "from …", "until …". */
function schedule(campaign: Pick<Campaign, 'startsAt' | 'endsAt'>): string {
  if (campaign.startsAt && campaign.endsAt) return `${minute(campaign.startsAt)} to ${minute(campaign.endsAt)}`;
  if (campaign.startsAt) return `From ${minute(campaign.startsAt)}`;
  if (campaign.endsAt) return `Until ${minute(campaign.endsAt)}`;
  return 'No start or end';
}

const minute = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

const STATUS_BADGE: Record<string, string> = {
  draft: 'muted',
  generating: 'info',
  ready: 'info',
  published: 'ok',
  archived: 'muted',
  active: 'ok',
  paused: 'warn',
  ended: 'muted',
  scheduled: 'info',
  queued: 'info',
  in_progress: 'info',
  input_required: 'warn',
  cancelling: 'warn',
  complete: 'ok',
  failed: 'error',
  cancelled: 'muted',
};

export const badge = (status: string) =>
  html`<span class="badge ${STATUS_BADGE[status] ?? 'muted'}">${status.replace(/_/g, ' ')}</span>`;

const hidden = (name: string, value: string | number | boolean | null | undefined) =>
  value === undefined || value === null ? '' : html`<input type="hidden" name="${name}" value="${String(value)}" />`;

const csrfField = (chrome: Chrome) => hidden('_csrf', chrome.csrf);

/** Whether the signed-in person may change campaigns (the tools check again; this only hides the forms). */
export const mayEdit = (chrome: Chrome) => roleAtLeast(chrome.current!.role, 'editor');

const base = (chrome: Chrome) => `/w/${chrome.current!.id}/campaigns`;

// ---------------------------------------------------------------------------------------------------------
// The list

export interface CampaignListView {
  campaigns: Campaign[];
  status: string | null;
  search: string;
  cursor: string | null;
  nextCursor: string | null;
}

export function campaignListPage(chrome: Chrome, view: CampaignListView, notices: Notice[] = []): string {
  const filtered = Boolean(view.status || view.search || view.cursor);
  // A workspace without campaigns gets the empty state alone: no filters to use, one way to start.
  const empty = !filtered && view.campaigns.length === 0;
  const query = (cursor: string | null) => {
    const params = new URLSearchParams();
    if (view.status) params.set('status', view.status);
    if (view.search) params.set('q', view.search);
    if (cursor) params.set('cursor', cursor);
    const text = params.toString();
    return text ? `?${text}` : '';
  };
  const rows = view.campaigns.map((campaign) => [
    html`<a href="${base(chrome)}/${campaign.id}"><strong>${campaign.name}</strong></a
      >${campaign.objective ? html`<br /><span class="muted truncate">${clip(campaign.objective, 120)}</span>` : ''}`,
    badge(campaign.status),
    count(campaign.variantCount, 'variant'),
    campaign.activeDeployments
      ? count(campaign.activeDeployments, 'live placement')
      : html`<span class="muted">none</span>`,
    minute(campaign.updatedAt),
  ]);
  return shell(
    'Campaigns',
    chrome,
    html`<div class="row" style="justify-content:space-between;align-items:center">
        <h1 style="margin:0">Campaigns</h1>
        ${mayEdit(chrome) && !empty ? html`<a class="button" href="${base(chrome)}/new">New campaign from a brief</a>` : ''}
      </div>
      ${
        empty
          ? ''
          : html`<form
              method="get"
              action="${base(chrome)}"
              class="row filters"
              role="search"
              aria-label="Filter campaigns"
            >
              <div>
                <label for="filter-status">Status</label>
                <select id="filter-status" name="status" style="width:auto">
                  <option value="">Any status</option>
                  ${LIST_STATUSES.map((status) => html`<option value="${status}" ${view.status === status ? html`selected` : ''}>${status}</option>`)}
                </select>
              </div>
              <div style="flex:1;min-width:200px">
                <label for="filter-q">Name contains</label>
                <input id="filter-q" type="search" name="q" value="${view.search}" maxlength="200" />
              </div>
              <div><button class="secondary" type="submit">Show campaigns</button></div>
            </form>`
      }
      ${
        rows.length
          ? stackedTable(['Campaign', 'Status', 'Variants', 'On the brand site', 'Last change'], rows)
          : filtered
            ? html`<p class="card">
                No campaign matches these filters. <a href="${base(chrome)}">Show all campaigns</a>.
              </p>`
            : html`<div class="card">
                <h2>No campaigns yet</h2>
                <p>
                  A campaign is a set of variants (headline, text, call to action, image) that the brand site shows and
                  tests against each other.
                  ${mayEdit(chrome) ? 'Start one from a brief: describe what it should achieve and for whom, and the AI writes the variants (you see the credit price first).' : 'Editors and owners can start one from a brief; agents can create them too.'}
                </p>
                ${mayEdit(chrome) ? html`<p><a class="button" href="${base(chrome)}/new">New campaign from a brief</a></p>` : ''}
              </div>`
      }
      <nav class="pager" aria-label="Pages">
        ${view.cursor ? html`<a href="${base(chrome)}${query(null)}">First page</a>` : html`<span></span>`}
        ${view.nextCursor ? html`<a href="${base(chrome)}${query(view.nextCursor)}">Next page</a>` : ''}
      </nav>`,
    notices,
    STYLES,
  );
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

// ---------------------------------------------------------------------------------------------------------
// A campaign

export interface CampaignDetailView {
  campaign: Campaign;
  variants: Variant[];
  deployments: Deployment[];
  generation: Generation | null;
  /** Zones by id, with their surface, to name placements. */
  zones: Map<string, { zone: Zone; surface: Surface | undefined }>;
  /** The workspace's brand site origin, for the variants' default call-to-action links. */
  brandSite: string;
  /** Where generated media is served (the platform's `/media/`): only those images are shown here. */
  mediaBase: string;
}

/**
 * A variant as the brand site renders it: the brand site's own fragment writer (`writeHtmlFragment`), given
 * the same content the site gives it. Only images the platform serves itself are shown (the page's CSP allows
 * no other origin); another image is named by its alt text instead.
 */
export function variantPreview(variant: Variant, campaign: Campaign, brandSite: string, mediaBase: string): SafeHtml {
  const first = variant.imageRefs.map((ref) => ({ ref, src: safeUrl(ref.url) })).find((image) => image.src);
  const alt = typeof first?.ref.alt === 'string' ? first.ref.alt : '';
  const ownImage = first?.src && first.src.startsWith(`${mediaBase}/media/`) ? first.src : null;
  const fragment = writeHtmlFragment(
    {
      headline: variant.headline,
      body: variant.body,
      cta: {
        text: variant.callToAction || 'Learn more',
        href: safeUrl(variant.ctaUrl) ?? `${brandSite}${sitePaths.campaign(campaign.slug)}`,
      },
      image: ownImage ? { src: ownImage, alt } : null,
      imageCarries: { headline: altStates(alt, variant.headline), body: altStates(alt, variant.body) },
    },
    { level: 3, image: true },
  );
  const drawn = ownImage && altStates(alt, variant.headline);
  return html`<div class="cp-preview">
    ${new SafeHtml(fragment)}
    ${drawn ? html`<p class="muted">Headline, drawn in the image: “${variant.headline}”</p>` : ''}
    ${first?.src && !ownImage ? html`<p class="muted">Image from another site (not loaded here): ${alt || first.src}</p>` : ''}
  </div>`;
}

export function placementName(
  view: Pick<CampaignDetailView, 'zones'>,
  zoneId: string,
): { zone: string; page: string; url: string | null } {
  const entry = view.zones.get(zoneId);
  return {
    zone: entry?.zone.name ?? 'a zone that no longer exists',
    page: entry?.surface?.name ?? 'an unknown page',
    url: entry?.surface?.url ?? null,
  };
}

/** A step of a generation, named, with where it stands: done, running now, still to come, or where it stopped. */
function stepBadge(generation: Generation, step: string): SafeHtml {
  const index = generation.steps.indexOf(step);
  const current = generation.step ? generation.steps.indexOf(generation.step) : -1;
  const state =
    generation.status === 'complete' || index < current
      ? { kind: 'ok', text: 'done' }
      : index === current
        ? RUNNING.has(generation.status)
          ? { kind: 'info', text: 'running' }
          : { kind: 'error', text: generation.status.replace('_', ' ') }
        : { kind: 'muted', text: 'to do' };
  return html`<span class="badge ${state.kind}">${step}: ${state.text}</span>`;
}

function generationCard(chrome: Chrome, view: CampaignDetailView): SafeHtml {
  const generation = view.generation;
  if (!generation) {
    return html`<section class="card" aria-labelledby="gen-title">
      <h2 id="gen-title">Generation</h2>
      <p class="muted">This campaign was not generated by the AI (its variants were written by hand or by an agent).</p>
      ${mayEdit(chrome) && view.campaign.status !== 'archived' ? html`<p><a href="${base(chrome)}/${view.campaign.id}/regenerate">Generate variants for it…</a></p>` : ''}
    </section>`;
  }
  const running = RUNNING.has(generation.status);
  const percent = Math.round(generation.progress * 100);
  return html`<section class="card" aria-labelledby="gen-title">
    <h2 id="gen-title">Generation ${badge(generation.status)}</h2>
    ${
      running
        ? html`<p role="status">
              ${generation.step ? html`Working on the <strong>${generation.step}</strong> — ` : ''}${percent}% done.
              This page refreshes itself every few seconds.
            </p>
            ${generation.message ? html`<p class="muted">Latest: ${generation.message}</p>` : ''}
            <progress class="progress" max="100" value="${percent}" aria-label="Generation progress">
              ${percent}%
            </progress>`
        : generation.status === 'complete'
          ? html`<p>
              Finished ${minute(generation.finishedAt)}: ${count(generation.variantIds.length, 'variant')}
              written${generation.creditsCaptured !== null ? html`, ${count(generation.creditsCaptured, 'credit')} spent` : ''}.
            </p>`
          : html`<p class="reason">
              ${generation.error?.message ?? `The generation ${generation.status.replace('_', ' ')}.`}
            </p>`
    }
    <ol class="steps" aria-label="Steps">
      ${generation.steps.map((step) => html`<li>${stepBadge(generation, step)}</li>`)}
    </ol>
    <p class="muted">
      Started ${minute(generation.createdAt)}
      (${generation.mode === 'regenerate' ? 'regeneration' : 'first generation'}).
    </p>
    ${
      mayEdit(chrome) && !running && view.campaign.status !== 'archived'
        ? html`<p><a href="${base(chrome)}/${view.campaign.id}/regenerate">Regenerate from a step…</a></p>`
        : ''
    }
  </section>`;
}

export function campaignDetailPage(chrome: Chrome, view: CampaignDetailView, notices: Notice[] = []): string {
  const { campaign } = view;
  const here = `${base(chrome)}/${campaign.id}`;
  const running = view.generation && RUNNING.has(view.generation.status);
  const editable = mayEdit(chrome) && campaign.status !== 'generating' && campaign.status !== 'archived';
  const actions: SafeHtml[] = [];
  if (mayEdit(chrome)) {
    if (campaign.status === 'ready' && view.variants.some((variant) => variant.status === 'active'))
      actions.push(html`<a class="button" href="${here}/publish">Publish ${campaign.name}…</a>`);
    if (campaign.status === 'published')
      actions.push(html`<a class="button" href="${here}/deploy">Place on a brand-site zone…</a>`);
    if (campaign.status !== 'archived' && campaign.status !== 'generating')
      actions.push(html`<a class="button secondary" href="${here}/archive">Archive…</a>`);
    if (campaign.status === 'archived')
      actions.push(html`<a class="button secondary" href="${here}/restore">Restore…</a>`);
  }
  const shares = trafficShares(view.variants);
  // A campaign has at most 10 variants (the service refuses an 11th).
  const mayAdd = editable && view.variants.length < 10;
  return shell(
    campaign.name,
    chrome,
    html`<p><a href="${base(chrome)}">← All campaigns</a></p>
      <h1>${campaign.name} ${badge(campaign.status)}</h1>
      <dl class="facts">
        <div>
          <dt>Objective (internal)</dt>
          <dd>${campaign.objective ?? '—'}</dd>
        </div>
        <div>
          <dt>Public summary</dt>
          <dd>${campaign.publicSummary ?? 'From the active variant'}</dd>
        </div>
        <div>
          <dt>Schedule (UTC)</dt>
          <dd>${schedule(campaign)}</dd>
        </div>
        <div>
          <dt>Published</dt>
          <dd>${minute(campaign.publishedAt)}</dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>${minute(campaign.updatedAt)}</dd>
        </div>
      </dl>
      ${editable ? html`<p><a href="${here}/edit">Change name, summary and schedule…</a></p>` : ''}
      ${actions.length ? html`<div class="row actions">${actions}</div>` : ''} ${generationCard(chrome, view)}
      <div class="section-head">
        <h2>Variants</h2>
        ${mayAdd ? html`<a class="button secondary" href="${here}/variants/new">Add a variant…</a>` : ''}
      </div>
      ${
        view.variants.length
          ? html`<p class="muted">
                Each variant as the brand site shows it; visitors are split between the active ones by weight.
              </p>
              <ul class="variants">
                ${view.variants.map(
                  (variant) =>
                    html`<li class="card" id="variant-${variant.id}">
                      <div class="variant-head">
                        <strong
                          >${variant.name}${variant.isControl ? html` <span class="muted">(control)</span>` : ''}</strong
                        >
                        <span
                          >${badge(variant.status)}
                          <span class="muted"
                            >${shareText(shares, variant)}, weight ${variant.weight}, v${variant.version}</span
                          ></span
                        >
                      </div>
                      ${variantPreview(variant, campaign, view.brandSite, view.mediaBase)}
                      ${
                        editable
                          ? html`<p class="variant-actions">
                              <a href="${here}/variants/${variant.id}/edit">Edit ${variant.name}</a>
                              <a href="${here}/variants/${variant.id}/traffic"
                                >${variant.status === 'paused' ? 'Resume' : 'Pause'}, weight or control of
                                ${variant.name}…</a
                              >
                              <a href="${here}/variants/${variant.id}/delete">Delete ${variant.name}…</a>
                            </p>`
                          : ''
                      }
                    </li>`,
                )}
              </ul>`
          : html`<p class="card muted">
              ${running ? 'The variants appear here when the generation finishes.' : mayAdd ? 'No variants yet: add one by hand, or generate them.' : 'No variants yet.'}
            </p>`
      }
      <h2>Where it is shown</h2>
      ${
        view.deployments.length
          ? stackedTable(
              ['Zone', 'Page', 'Status', 'Priority', 'Since', ...(mayEdit(chrome) ? ['Change'] : [])],
              view.deployments.map((deployment) => {
                const place = placementName(view, deployment.zoneId);
                const change = (verb: string, path: string) =>
                  html`<a href="${here}/placements/${deployment.id}/${path}">${verb} in ${place.zone}…</a>`;
                return [
                  place.zone,
                  place.url ? html`${place.page}<br /><a href="${place.url}">${place.url}</a>` : place.page,
                  badge(deployment.status),
                  deployment.priority,
                  minute(deployment.createdAt),
                  ...(mayEdit(chrome)
                    ? [
                        deployment.status === 'ended'
                          ? html`<span class="muted">—</span>`
                          : html`${deployment.status === 'paused' ? change('Resume', 'resume') : change('Pause', 'pause')}<br />${change('End', 'end')}`,
                      ]
                    : []),
                ];
              }),
            )
          : html`<p class="card muted">
              Not placed on any brand-site
              zone.${campaign.status === 'published' ? ' Its own page on the brand site is live.' : ''}
            </p>`
      }`,
    notices,
    // While a generation runs the page reloads itself (no script needed), at its own address: a notice of the
    // action that led here is not repeated.
    html`${STYLES}${running ? html`<meta http-equiv="refresh" content="3; url=${here}" />` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Editing a variant

export interface VariantEditView {
  campaign: Campaign;
  variant: Variant;
  /** What the person typed, when it could not be saved. */
  draft?: { headline: string; body: string; callToAction: string; expectedVersion: number };
  /** Someone else saved first: the variant as it is now (`variant`) is shown next to the person's draft. */
  conflict?: boolean;
}

export function variantEditPage(chrome: Chrome, view: VariantEditView, notices: Notice[] = []): string {
  const { campaign, variant } = view;
  const values = view.draft && !view.conflict ? view.draft : variant;
  const action = `${base(chrome)}/${campaign.id}/variants/${variant.id}`;
  return shell(
    `Edit ${variant.name}`,
    chrome,
    html`<p><a href="${base(chrome)}/${campaign.id}">← ${campaign.name}</a></p>
      <h1>Edit ${variant.name} of ${campaign.name}</h1>
      ${
        view.conflict && view.draft
          ? html`<section class="card" aria-labelledby="conflict-title">
              <h2 id="conflict-title">Someone else changed this variant</h2>
              <p>
                While you were editing, ${variant.name} was saved by someone else (it is now version ${variant.version};
                you started from version ${view.draft.expectedVersion}). Nothing of yours was saved. This is the text as
                it is now:
              </p>
              <div class="current">
                <p><strong>Headline:</strong> ${variant.headline}</p>
                <p><strong>Text:</strong> ${variant.body}</p>
                <p><strong>Button:</strong> ${variant.callToAction}</p>
              </div>
              <p>Your edit was:</p>
              <div class="current">
                <p><strong>Headline:</strong> ${view.draft.headline}</p>
                <p><strong>Text:</strong> ${view.draft.body}</p>
                <p><strong>Button:</strong> ${view.draft.callToAction}</p>
              </div>
              <p>The form below now holds the current text: reapply your change and save again.</p>
            </section>`
          : ''
      }
      <form method="post" action="${action}" class="card">
        ${csrfField(chrome)} ${hidden('expectedVersion', variant.version)}
        <label for="headline">Headline</label>
        <input
          id="headline"
          type="text"
          name="headline"
          value="${values.headline}"
          maxlength="200"
          required
          ${imageWords(variant) ? html`aria-describedby="headline-image"` : ''}
        />
        ${
          imageWords(variant)
            ? html`<p class="muted" id="headline-image">
                This variant's image was generated with words drawn into it (described as “${imageWords(variant)}”).
                Saving new copy does not redraw the image; regenerate from the images step for that.
              </p>`
            : ''
        }
        <label for="body">Text</label>
        <textarea id="body" name="body" rows="6" maxlength="5000" required>${values.body}</textarea>
        <label for="cta">Button text</label>
        <input id="cta" type="text" name="callToAction" value="${values.callToAction}" maxlength="60" required />
        <p class="muted">
          ${campaign.status === 'published' ? 'The campaign is published: saving changes what visitors of the brand site see at once.' : 'The campaign is not published: visitors see nothing until it is.'}
        </p>
        <p class="row actions">
          <button type="submit">Save ${variant.name}</button> <a href="${base(chrome)}/${campaign.id}">Cancel</a>
        </p>
      </form>`,
    notices,
    STYLES,
  );
}

/** The words a generated image of the variant shows (its alt text starts with them), if any. */
function imageWords(variant: Variant): string | null {
  const alt = variant.imageRefs.find((ref) => typeof ref.alt === 'string' && ref.alt)?.alt;
  return typeof alt === 'string' && typeof variant.imageRefs[0]?.mediaId === 'string' ? alt : null;
}

// ---------------------------------------------------------------------------------------------------------
// Field errors of a form: the tool's validation issues, each shown under its field

/** A form's fields in error: field name (the tool's argument) → the tool's message. */
export type FieldErrors = Record<string, string>;

/** The attributes that tie a field to its error: `aria-invalid` and `aria-describedby` (with its own help). */
function invalid(errors: FieldErrors, field: string, help?: string): SafeHtml {
  const described = [help, errors[field] ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${errors[field] ? html`aria-invalid="true"` : ''}
  ${described ? html`aria-describedby="${described}"` : ''}`;
}

function fieldError(errors: FieldErrors, field: string): SafeHtml | string {
  return errors[field] ? html`<p class="field-error" id="${field}-error">${errors[field]}</p>` : '';
}

// ---------------------------------------------------------------------------------------------------------
// Traffic shares

/**
 * The share of visitors each active variant gets, in whole percent, as the brand site splits them
 * (public/brand-site/assemble.ts): by weight among the active variants with a weight above 0, or evenly when
 * every active variant weighs 0. Paused variants get none.
 */
export function trafficShares(variants: readonly Pick<Variant, 'id' | 'status' | 'weight'>[]): Map<string, number> {
  const active = variants.filter((variant) => variant.status === 'active');
  const weighted = active.filter((variant) => variant.weight > 0);
  const pool = weighted.length ? weighted : active.map((variant) => ({ ...variant, weight: 1 }));
  const total = pool.reduce((sum, variant) => sum + variant.weight, 0);
  return new Map(pool.map((variant) => [variant.id, Math.round((variant.weight / total) * 100)]));
}

const shareText = (shares: Map<string, number>, variant: Pick<Variant, 'id' | 'status'>) =>
  variant.status !== 'active' ? 'no visitors (paused)' : `${shares.get(variant.id) ?? 0}% of visitors`;

// ---------------------------------------------------------------------------------------------------------
// Adding a variant

export interface VariantNewView {
  campaign: Campaign;
  /** How many variants it has now (the first one added becomes the control). */
  existing: number;
  values: { name: string; headline: string; body: string; callToAction: string };
  errors?: FieldErrors;
}

export function variantNewPage(chrome: Chrome, view: VariantNewView, notices: Notice[] = []): string {
  const { campaign, values } = view;
  const errors = view.errors ?? {};
  return shell(
    `Add a variant to ${campaign.name}`,
    chrome,
    html`<p><a href="${base(chrome)}/${campaign.id}">← ${campaign.name}</a></p>
      <h1>Add a variant to ${campaign.name}</h1>
      <form method="post" action="${base(chrome)}/${campaign.id}/variants" class="card">
        ${csrfField(chrome)}
        <label for="headline">Headline</label>
        <input
          id="headline"
          type="text"
          name="headline"
          value="${values.headline}"
          maxlength="200"
          required
          ${invalid(errors, 'headline')}
        />
        ${fieldError(errors, 'headline')}
        <label for="body">Text</label>
        <textarea id="body" name="body" rows="6" maxlength="5000" required ${invalid(errors, 'body')}>
${values.body}</textarea>
        ${fieldError(errors, 'body')}
        <label for="cta">Button text</label>
        <input
          id="cta"
          type="text"
          name="callToAction"
          value="${values.callToAction}"
          maxlength="60"
          required
          ${invalid(errors, 'callToAction')}
        />
        ${fieldError(errors, 'callToAction')}
        <label for="variant-name">Label (optional)</label>
        <input
          id="variant-name"
          type="text"
          name="name"
          value="${values.name}"
          maxlength="100"
          ${invalid(errors, 'name', 'variant-name-help')}
        />
        <p class="muted" id="variant-name-help">
          How the console and analytics name it; left empty, it is named by letter (Variant A, B, …). Visitors never see
          it.
        </p>
        ${fieldError(errors, 'name')}
        <p class="muted">
          ${
            view.existing === 0
              ? 'It becomes the control, the baseline the A/B comparison measures the others against.'
              : campaign.status === 'published'
                ? 'The campaign is published: the new variant is active at weight 50 and visitors start seeing it at once. Pause it or change its weight afterwards.'
                : 'It starts active at weight 50; visitors see nothing until the campaign is published.'
          }
        </p>
        <p class="row actions">
          <button type="submit">Add the variant</button> <a href="${base(chrome)}/${campaign.id}">Cancel</a>
        </p>
      </form>`,
    notices,
    STYLES,
  );
}

// ---------------------------------------------------------------------------------------------------------
// A variant's traffic: active or paused, its weight, the control

export interface TrafficValues {
  variantStatus: string;
  weight: string;
  isControl: boolean;
  expectedVersion: number;
}

export interface VariantTrafficView {
  campaign: Campaign;
  variant: Variant;
  /** Every variant of the campaign (the shares are among them). */
  variants: Variant[];
  /** What the person chose, when it could not be saved. */
  draft?: TrafficValues;
  /** Someone else saved first: the variant as it is now is shown next to the person's choice. */
  conflict?: boolean;
  errors?: FieldErrors;
}

export function variantTrafficPage(chrome: Chrome, view: VariantTrafficView, notices: Notice[] = []): string {
  const { campaign, variant } = view;
  const errors = view.errors ?? {};
  const values: TrafficValues =
    view.draft && !view.conflict
      ? view.draft
      : {
          variantStatus: variant.status,
          weight: String(variant.weight),
          isControl: variant.isControl,
          expectedVersion: variant.version,
        };
  const shares = trafficShares(view.variants);
  const others = view.variants.filter((other) => other.id !== variant.id);
  const control = view.variants.find((other) => other.isControl);
  const setting = (status: string, weight: number | string, isControl: boolean) =>
    html`${status === 'active' ? 'active' : 'paused'}, weight ${weight}${isControl ? ', the control' : ''}`;
  return shell(
    `Traffic for ${variant.name}`,
    chrome,
    html`<p><a href="${base(chrome)}/${campaign.id}">← ${campaign.name}</a></p>
      <h1>Traffic for ${variant.name} of ${campaign.name}</h1>
      ${
        view.conflict && view.draft
          ? html`<section class="card" aria-labelledby="conflict-title">
              <h2 id="conflict-title">Someone else changed this variant</h2>
              <p>
                While you were choosing, ${variant.name} was saved by someone else (it is now version
                ${variant.version}; you started from version ${view.draft.expectedVersion}). Nothing of yours was saved.
              </p>
              <div class="current">
                <p><strong>Now:</strong> ${setting(variant.status, variant.weight, variant.isControl)}</p>
                <p>
                  <strong>Your choice:</strong>
                  ${setting(view.draft.variantStatus, view.draft.weight, view.draft.isControl || variant.isControl)}
                </p>
              </div>
              <p>The form below now holds the current settings: choose again and save.</p>
            </section>`
          : ''
      }
      <section class="card" aria-labelledby="split-title">
        <h2 id="split-title">How visitors are split now</h2>
        <ul class="changes">
          ${view.variants.map(
            (other) =>
              html`<li>
                <strong>${other.name}</strong>${other.isControl ? ' (control)' : ''}: ${shareText(shares, other)}
                <span class="muted">(weight ${other.weight})</span>
              </li>`,
          )}
        </ul>
        <p class="muted">
          Each visitor is shown one active variant, by weight among the active ones, and keeps seeing the same one.
          ${campaign.status === 'published' ? 'The campaign is published: a change applies to the brand site at once.' : 'The campaign is not published: visitors see nothing until it is.'}
        </p>
      </section>
      <form method="post" action="${base(chrome)}/${campaign.id}/variants/${variant.id}/traffic" class="card">
        ${csrfField(chrome)} ${hidden('expectedVersion', variant.version)}
        <fieldset class="checks">
          <legend>Shown to visitors</legend>
          <label
            ><input
              type="radio"
              name="variantStatus"
              value="active"
              ${values.variantStatus === 'active' ? html`checked` : ''}
            />
            Active: visitors are split between it and the other active variants</label
          >
          <label
            ><input
              type="radio"
              name="variantStatus"
              value="paused"
              ${values.variantStatus === 'paused' ? html`checked` : ''}
            />
            Paused: no visitor is shown it until it is resumed</label
          >
        </fieldset>
        ${fieldError(errors, 'variantStatus')}
        <label for="weight">Weight (0–100)</label>
        <input
          id="weight"
          type="number"
          name="weight"
          min="0"
          max="100"
          step="1"
          value="${values.weight}"
          required
          ${invalid(errors, 'weight', 'weight-help')}
        />
        <p class="muted" id="weight-help">
          Its share is its weight divided by the sum of the active variants' weights. At 0 it gets no visitors while
          another active variant weighs more than 0.
        </p>
        ${fieldError(errors, 'weight')}
        ${
          variant.isControl
            ? html`<p>
                <strong>${variant.name} is the control</strong>: the A/B comparison measures the other variants against
                it. To change that, make another variant the control from its own traffic page.
              </p>`
            : html`<fieldset class="checks">
                <legend>Control</legend>
                <label
                  ><input type="checkbox" name="isControl" value="yes" ${values.isControl ? html`checked` : ''} /> Make
                  ${variant.name} the control (the baseline the A/B comparison measures the others
                  against)${control ? `, instead of ${control.name}` : ''}</label
                >
              </fieldset>`
        }
        <p class="row actions">
          <button type="submit">Save traffic for ${variant.name}</button>
          <a href="${base(chrome)}/${campaign.id}">Cancel</a>
        </p>
        ${others.length ? '' : html`<p class="muted">It is the campaign's only variant.</p>`}
      </form>`,
    notices,
    STYLES,
  );
}

// ---------------------------------------------------------------------------------------------------------
// The campaign's name, objective, public summary and schedule

export interface CampaignEditValues {
  name: string;
  objective: string;
  publicSummary: string;
  /** `YYYY-MM-DDTHH:MM` in UTC (a `datetime-local` field), or what the person typed. */
  startsAt: string;
  endsAt: string;
}

/** An ISO date-time as a `datetime-local` value in UTC (`2026-12-01T09:00`), or empty. */
export const localUtc = (iso: string | null | undefined) => (iso ? iso.slice(0, 16) : '');

export function campaignEditPage(
  chrome: Chrome,
  view: { campaign: Campaign; values: CampaignEditValues; errors?: FieldErrors },
  notices: Notice[] = [],
): string {
  const { campaign, values } = view;
  const errors = view.errors ?? {};
  const published = campaign.status === 'published';
  return shell(
    `Change ${campaign.name}`,
    chrome,
    html`<p><a href="${base(chrome)}/${campaign.id}">← ${campaign.name}</a></p>
      <h1>Change ${campaign.name}</h1>
      <form method="post" action="${base(chrome)}/${campaign.id}/edit" class="card">
        ${csrfField(chrome)}
        <label for="campaign-name">Name</label>
        <input
          id="campaign-name"
          type="text"
          name="name"
          value="${values.name}"
          maxlength="200"
          required
          ${invalid(errors, 'name', 'campaign-name-help')}
        />
        <p class="muted" id="campaign-name-help">
          Public: the title of its brand-site page and cards. Its address (${`/campaigns/${campaign.slug}`}) stays the
          same.
        </p>
        ${fieldError(errors, 'name')}
        <label for="objective">Objective (internal)</label>
        <textarea
          id="objective"
          name="objective"
          rows="3"
          maxlength="2000"
          ${invalid(errors, 'objective', 'objective-help')}
        >
${values.objective}</textarea>
        <p class="muted" id="objective-help">What it should achieve. Never shown on the brand site.</p>
        ${fieldError(errors, 'objective')}
        <label for="publicSummary">Public summary</label>
        <textarea
          id="publicSummary"
          name="publicSummary"
          rows="3"
          maxlength="1000"
          ${invalid(errors, 'publicSummary', 'publicSummary-help')}
        >
${values.publicSummary}</textarea>
        <p class="muted" id="publicSummary-help">
          Public: the lead of its brand-site page, its lists, llms.txt and what the concierge says. Write it for
          shoppers. Left empty, the active variant's copy is used.
        </p>
        ${fieldError(errors, 'publicSummary')}
        <fieldset class="schedule">
          <legend>Schedule (UTC, optional)</legend>
          <div class="row">
            <div>
              <label for="startsAt">Starts</label>
              <input
                id="startsAt"
                type="datetime-local"
                name="startsAt"
                value="${values.startsAt}"
                ${invalid(errors, 'startsAt')}
              />
              ${fieldError(errors, 'startsAt')}
            </div>
            <div>
              <label for="endsAt">Ends</label>
              <input
                id="endsAt"
                type="datetime-local"
                name="endsAt"
                value="${values.endsAt}"
                ${invalid(errors, 'endsAt', 'schedule-help')}
              />
              ${fieldError(errors, 'endsAt')}
            </div>
          </div>
          <p class="muted" id="schedule-help">
            The brand site shows the dates on the campaign's page. When it ends, its page, cards and placements are
            taken down (a visitor following an old link is told it has ended). Leave empty for no start or end.
          </p>
        </fieldset>
        <p class="muted">
          ${published ? 'The campaign is published: saving republishes the brand site with these changes.' : 'The campaign is not published: visitors see nothing until it is.'}
        </p>
        <p class="row actions">
          <button type="submit">Save ${campaign.name}</button> <a href="${base(chrome)}/${campaign.id}">Cancel</a>
        </p>
      </form>`,
    notices,
    STYLES,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Confirmations

export interface ConfirmView {
  title: string;
  campaign: Campaign;
  /** Sentences saying what will change, publicly first. */
  changes: (string | SafeHtml)[];
  action: string;
  fields: Record<string, string | number | boolean | null | undefined>;
  button: string;
  danger?: boolean;
  /** Shown above the form (e.g. the zone picker). */
  before?: SafeHtml;
  /** Why there is nothing to confirm yet (no zone chosen): shown instead of the button. */
  notYet?: string;
}

export function confirmPage(chrome: Chrome, view: ConfirmView, notices: Notice[] = []): string {
  return shell(
    view.title,
    chrome,
    html`<p><a href="${base(chrome)}/${view.campaign.id}">← ${view.campaign.name}</a></p>
      <h1>${view.title}</h1>
      ${view.before ?? ''}
      <section class="card" aria-labelledby="changes-title">
        <h2 id="changes-title">What will change</h2>
        <ul class="changes">
          ${view.changes.map((change) => html`<li>${change}</li>`)}
        </ul>
        ${
          view.notYet
            ? ''
            : mayEdit(chrome)
              ? html`<form method="post" action="${view.action}">
                  ${csrfField(chrome)} ${Object.entries(view.fields).map(([name, value]) => hidden(name, value))}
                  <p class="row actions">
                    <button type="submit" class="${view.danger ? 'danger' : ''}">${view.button}</button>
                    <a href="${base(chrome)}/${view.campaign.id}">Cancel</a>
                  </p>
                </form>`
              : html`<p class="muted">Your role (${chrome.current!.role}) can see this but not do it.</p>`
        }
      </section>`,
    notices,
    STYLES,
  );
}

/** The zone picker of "Place on a brand-site zone": a GET form, so choosing a zone shows its confirmation. */
export function zonePicker(
  chrome: Chrome,
  campaign: Campaign,
  zones: { zone: Zone; surface: Surface | undefined }[],
  chosen: string | null,
): SafeHtml {
  if (!zones.length) {
    return html`<p class="card">
      The workspace has no zones yet. A zone is a slot on a brand-site page (a hero, a card); create pages and zones in
      the library, or ask an agent to.
    </p>`;
  }
  return html`<form method="get" action="${base(chrome)}/${campaign.id}/deploy" class="card zone-picker">
    <div>
      <label for="zone" style="margin-top:0">Zone</label>
      <select id="zone" name="zoneId">
        ${zones.map(
          ({ zone, surface }) =>
            html`<option value="${zone.id}" ${chosen === zone.id ? html`selected` : ''}>
              ${zone.name} on ${surface?.name ?? 'a page'}${surface?.url ? ` (${surface.url})` : ''}
            </option>`,
        )}
      </select>
    </div>
    <p><button class="secondary" type="submit">Show what changes</button></p>
  </form>`;
}

// ---------------------------------------------------------------------------------------------------------
// Generation: the brief, the quote

export interface BriefValues {
  intent: string;
  name: string;
  productIds: string[];
  variantCount: number;
  includeImages: boolean;
}

/** How many variants and whether to make images: the same two fields on the brief and the regenerate form. */
function variantFields(values: { variantCount: number; includeImages: boolean }): SafeHtml {
  return html`<label for="variantCount">How many variants (1–5)</label>
    <input
      id="variantCount"
      type="number"
      name="variantCount"
      min="1"
      max="5"
      value="${values.variantCount}"
      required
    />
    <fieldset class="checks">
      <legend>Images</legend>
      <label>
        <input type="checkbox" name="includeImages" value="yes" ${values.includeImages ? html`checked` : ''} />
        <span>Also create one AI image per variant (costs more credits)</span>
      </label>
    </fieldset>`;
}

export function briefPage(
  chrome: Chrome,
  products: { id: string; title: string }[],
  values: BriefValues,
  notices: Notice[] = [],
): string {
  return shell(
    'New campaign from a brief',
    chrome,
    html`<p><a href="${base(chrome)}">← All campaigns</a></p>
      <h1>New campaign from a brief</h1>
      <form method="post" action="${base(chrome)}/generate" class="card">
        ${csrfField(chrome)}
        <label for="intent">What should the campaign achieve, and for whom?</label>
        <textarea id="intent" name="intent" rows="4" maxlength="2000" required aria-describedby="intent-help">
${values.intent}</textarea>
        <p class="muted" id="intent-help">
          In your words, e.g. "Sell our linen shirts to people planning a summer holiday".
        </p>
        <label for="name">Campaign name (optional)</label>
        <input id="name" type="text" name="name" value="${values.name}" maxlength="200" />
        ${
          products.length
            ? html`<fieldset class="checks">
                <legend>Products to promote (optional)</legend>
                ${products.map(
                  (product) =>
                    html`<label
                      ><input
                        type="checkbox"
                        name="productIds"
                        value="${product.id}"
                        ${values.productIds.includes(product.id) ? html`checked` : ''}
                      />
                      ${product.title}</label
                    >`,
                )}
              </fieldset>`
            : ''
        }
        ${variantFields(values)}
        <p><button type="submit">Show the price</button></p>
        <p class="muted">Nothing is spent until you confirm the price on the next page.</p>
      </form>`,
    notices,
    STYLES,
  );
}

export interface QuoteView {
  campaign: Campaign | null;
  quote: Quote;
  /** The exact arguments the quote was made for: repeated with its id to confirm. */
  fields: Record<string, string | number | boolean | null | undefined>;
  /** Extra repeated fields (several product ids). */
  productIds: string[];
  action: string;
  what: string;
  back: string;
}

export function quotePage(chrome: Chrome, view: QuoteView, notices: Notice[] = []): string {
  const { quote } = view;
  return shell(
    'Confirm the price',
    chrome,
    html`<p><a href="${view.back}">← Back</a></p>
      <h1>Confirm the price</h1>
      <section class="card" aria-labelledby="quote-title">
        <h2 id="quote-title">${view.what} costs ${count(quote.credits, 'credit')}</h2>
        <table class="quote-lines">
          <caption class="muted" style="text-align:left">
            What the price covers
          </caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Credits</th>
            </tr>
          </thead>
          <tbody>
            ${quote.covers.map(
              (line) =>
                html`<tr>
                  <td>${line.description}</td>
                  <td>${line.credits}</td>
                </tr>`,
            )}
            <tr>
              <th scope="row">Total</th>
              <td><strong>${quote.credits}</strong></td>
            </tr>
          </tbody>
        </table>
        <p>
          The workspace has <strong>${count(quote.available, 'credit')}</strong> available.
          ${quote.sufficient ? 'That is enough.' : html`<strong>That is not enough</strong>: ask an owner to add credits first.`}
        </p>
        <p class="muted">Nothing has been spent yet. This price holds until ${minute(quote.expiresAt)}.</p>
        ${
          quote.sufficient
            ? html`<form method="post" action="${view.action}">
                ${csrfField(chrome)} ${hidden('quoteId', quote.id)}
                ${Object.entries(view.fields).map(([name, value]) => hidden(name, value))}
                ${view.productIds.map((id) => hidden('productIds', id))}
                <p class="row actions">
                  <button type="submit">Confirm and spend ${count(quote.credits, 'credit')}</button>
                  <a href="${view.back}">Cancel</a>
                </p>
              </form>`
            : ''
        }
      </section>`,
    notices,
    STYLES,
  );
}

export interface RegenerateValues {
  fromStep: string;
  variantCount: number;
  includeImages: boolean;
}

export function regeneratePage(
  chrome: Chrome,
  campaign: Campaign,
  values: RegenerateValues,
  steps: readonly string[],
  notices: Notice[] = [],
): string {
  return shell(
    `Regenerate ${campaign.name}`,
    chrome,
    html`<p><a href="${base(chrome)}/${campaign.id}">← ${campaign.name}</a></p>
      <h1>Regenerate ${campaign.name}</h1>
      <form method="post" action="${base(chrome)}/${campaign.id}/regenerate" class="card">
        ${csrfField(chrome)}
        <fieldset class="checks">
          <legend>Start again from</legend>
          ${steps.map(
            (step) =>
              html`<label
                ><input
                  type="radio"
                  name="fromStep"
                  value="${step}"
                  ${values.fromStep === step ? html`checked` : ''}
                  required
                />
                ${GENERATION_STEP_NAMES[step] ?? step}</label
              >`,
          )}
        </fieldset>
        ${variantFields(values)}
        <p class="muted">Earlier steps are reused. The new variants replace what the regenerated steps made.</p>
        <p><button type="submit">Show the price</button></p>
      </form>`,
    notices,
    STYLES,
  );
}
