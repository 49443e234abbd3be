/**
 * The Campaigns pages (`campaign-pages.ts` has the views): the list, a campaign, editing a variant, publishing,
 * placing on a zone, archiving, and generating from a brief (quote first, then confirm) or regenerating a step.
 *
 * Every read and every action goes through the tools (`kit.tool`): `query_campaigns`, `manage_campaigns`,
 * `generate_campaign`, `query_surfaces`, `query_products`, `get_platform_info`. So a page applies exactly the
 * permission, validation, domain rules and audit line of the same MCP call; POSTs use `kit.toolAction`, which
 * leaves the role check to the tool so a refusal is audited as `denied` just as the agent's would be.
 *
 * Actions answer with a redirect (303) to the campaign, carrying a `done` key the page turns into a notice, so
 * reloading a page never repeats an action.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { GENERATION_STEPS } from '../../domain/credits/price-list.ts';
import { AppError, NotFoundError } from '../../errors.ts';
import {
  briefPage,
  campaignDetailPage,
  campaignEditPage,
  campaignListPage,
  confirmPage,
  LIST_STATUSES,
  localUtc,
  mayEdit,
  placementName,
  quotePage,
  regeneratePage,
  trafficShares,
  variantEditPage,
  variantNewPage,
  variantTrafficPage,
  zonePicker,
  type BriefValues,
  type Campaign,
  type CampaignDetailView,
  type CampaignEditValues,
  type Deployment,
  type FieldErrors,
  type Generation,
  type Quote,
  type Surface,
  type TrafficValues,
  type Variant,
  type Zone,
} from './campaign-pages.ts';
import { html } from '../../views/html.ts';
import { renderErrorsWith, renderJson } from '../middleware/error-boundary.ts';
import { forbiddenPage, notFoundPage, type Notice } from './chrome.ts';
import { clearIfEmpty } from './form-fields.ts';
import { state, type DashboardKit } from './kit.ts';

/** What a finished action says on the campaign page it redirects to. */
const DONE: Record<string, string> = {
  saved: 'Variant saved.',
  published: 'Published. The brand site is being republished; it shows the campaign within a few seconds.',
  deployed: 'Placed on the zone. The brand site is being republished.',
  archived: 'Archived. It no longer appears on the brand site.',
  restored: 'Restored as ready. Publish it to show it on the brand site again.',
  paused: 'Placement paused. The zone no longer shows this campaign.',
  resumed: 'Placement resumed. The brand site is being republished.',
  ended: 'Placement ended. The zone no longer shows this campaign.',
  variant_added: 'Variant added.',
  variant_deleted: 'Variant deleted.',
  traffic: 'Traffic saved.',
  details: 'Campaign saved.',
  started: 'Generation started. This page follows its progress.',
  already_running: 'A generation was already running for this campaign; nothing was spent.',
};

type GenerateAnswer =
  | { status: 'quote_required'; quote: Quote }
  | { status: 'started' | 'already_running'; campaignId: string; generation: Generation };

type Body = Record<string, string | string[] | undefined>;

const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));
const many = (value: string | string[] | undefined): string[] => (Array.isArray(value) ? value : value ? [value] : []);

/** The brief form's values, read the same way for the quote and for its confirmation (the quote hashes them). */
function briefValues(body: Body): BriefValues {
  return {
    intent: one(body.intent).trim(),
    name: one(body.name).trim(),
    productIds: many(body.productIds),
    variantCount: Number(one(body.variantCount)) || 3,
    includeImages: one(body.includeImages) === 'yes',
  };
}

/** The `generate_campaign start` arguments of a brief: an empty name or product list is left out. */
function briefArguments(values: BriefValues): Record<string, unknown> {
  return {
    intent: values.intent,
    ...(values.name ? { name: values.name } : {}),
    ...(values.productIds.length ? { productIds: values.productIds } : {}),
    variantCount: values.variantCount,
    includeImages: values.includeImages,
  };
}

/** A form of these pages, rendered again (with the person's input) with notices and the fields in error. */
type FormRender = (ctx: Context, notices?: Notice[], errors?: FieldErrors) => Promise<void>;

/** The labels the forms give the tool's argument names, for the notice of a refused form. */
const FIELD_LABELS: Record<string, string> = {
  headline: 'Headline',
  body: 'Text',
  callToAction: 'Button text',
  variantStatus: 'Shown to visitors',
  weight: 'Weight',
  isControl: 'Control',
  objective: 'Objective',
  publicSummary: 'Public summary',
  startsAt: 'Starts',
  endsAt: 'Ends',
};

/** The fields an error names in its details (`issues`: a validation error's, or `checkSchedule`'s conflict). */
function issuesOf(error: AppError): { field: string; message: string }[] {
  const issues = error.details?.issues;
  return Array.isArray(issues) ? (issues as { field: string; message: string }[]) : [];
}

/**
 * A form the tool refused for its arguments (`validation_failed` with its issues) is rendered again with the
 * person's input, the tool's message for each field under that field, and a notice naming them (400). Nothing
 * was changed (the tool validates before it acts). Any other error is left to the caller: false.
 */
async function withFieldErrors(ctx: Context, error: unknown, render: FormRender, nameLabel = 'Name'): Promise<boolean> {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return false;
  const issues = issuesOf(error);
  if (!issues.length) return false;
  const errors: FieldErrors = {};
  for (const issue of issues) errors[issue.field] ??= issue.message;
  const named = Object.entries(errors).map(
    ([field, message]) => `${field === 'name' ? nameLabel : (FIELD_LABELS[field] ?? field)}: ${message}`,
  );
  await render(ctx, [{ kind: 'error', text: `Not saved. Check the form: ${named.join('; ')}.` }], errors);
  ctx.status = 400;
  return true;
}

/**
 * A `datetime-local` value read as UTC (the console shows every time in UTC): `2026-12-01T09:00` becomes
 * `2026-12-01T09:00:00Z`; empty is null (no start or end). Anything else goes to the tool as typed, and the
 * tool refuses it with its own message.
 */
function isoOfLocalUtc(value: string): string | null {
  const text = value.trim();
  if (!text) return null;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(text)) return `${text}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text)) return `${text}Z`;
  return text;
}

/** The variant the service makes the control when the control is deleted: the oldest one left. */
const oldest = (variants: Variant[]) => variants.reduce((a, b) => (b.createdAt < a.createdAt ? b : a));

export function campaignRoutes(router: Router, kit: DashboardKit): void {
  const { sendHtml } = kit;
  /**
   * A page that shows variants also allows images from this origin only: generated images are served by the
   * platform itself at `{platform_url}/media/…` (the dashboard's own host), and the variant preview shows only
   * those (campaign-pages.ts), so no other origin is ever allowed.
   */
  const sendWithOwnMedia = (ctx: Context, body: string, status?: number) => {
    sendHtml(ctx, body, status, ["img-src 'self'"]);
  };
  /**
   * The guards of a campaign page (GET): a signed-in member; a campaign, variant or placement that does not
   * exist (or an id that cannot be one) answers the dashboard's "not found" page rather than the API's JSON.
   */
  const campaignPage = [
    ...kit.workspacePage('workspace:read'),
    renderErrorsWith((ctx, error, status) => {
      if (error.code === 'internal_error') return renderJson(ctx, error, status);
      const missing = status === 404 || error.code === 'validation_failed';
      sendHtml(
        ctx,
        missing
          ? notFoundPage(state(ctx).chrome, 'That campaign, variant or placement does not exist.')
          : forbiddenPage(state(ctx).chrome, error.message),
        missing ? 404 : status,
      );
    }),
  ];
  const path = '/w/:workspaceId/campaigns';
  const base = (ctx: Context) => `/w/${state(ctx).workspace!.id}/campaigns`;
  const query = <T>(ctx: Context, args: Record<string, unknown>) => kit.tool<T>(ctx, 'query_campaigns', args);

  async function campaignOf(ctx: Context, campaignId: string): Promise<Campaign> {
    return (await query<{ campaign: Campaign }>(ctx, { action: 'get', campaignId })).campaign;
  }

  async function variantsOf(ctx: Context, campaignId: string): Promise<Variant[]> {
    return (await query<{ variants: Variant[] }>(ctx, { action: 'variants', campaignId, limit: 100 })).variants;
  }

  async function variantOf(ctx: Context, campaign: Campaign, variantId: string): Promise<Variant> {
    const variant = (await variantsOf(ctx, campaign.id)).find((candidate) => candidate.id === variantId);
    if (!variant) throw new NotFoundError('Variant', variantId);
    return variant;
  }

  /** Every zone of the workspace with its page (surface), for the picker and to name placements. */
  async function zonesOf(ctx: Context): Promise<Map<string, { zone: Zone; surface: Surface | undefined }>> {
    const [{ surfaces }, { zones }] = await Promise.all([
      kit.tool<{ surfaces: Surface[] }>(ctx, 'query_surfaces', { operation: 'list_surfaces', limit: 100 }),
      kit.tool<{ zones: Zone[] }>(ctx, 'query_surfaces', { operation: 'list_zones', limit: 100 }),
    ]);
    const byId = new Map(surfaces.map((surface) => [surface.id, surface]));
    return new Map(zones.map((zone) => [zone.id, { zone, surface: byId.get(zone.surfaceId) }]));
  }

  async function brandSiteOf(ctx: Context): Promise<string> {
    const { organization } = await kit.tool<{ organization: { brandSiteUrl: string } }>(ctx, 'get_platform_info', {
      topic: 'organization',
    });
    return organization.brandSiteUrl;
  }

  async function detailView(ctx: Context, campaignId: string): Promise<CampaignDetailView> {
    const campaign = await campaignOf(ctx, campaignId);
    const [variants, { deployments }, { generation }, zones, brandSite] = await Promise.all([
      variantsOf(ctx, campaignId),
      query<{ deployments: Deployment[] }>(ctx, { action: 'deployments', campaignId, limit: 100 }),
      query<{ generation: Generation | null }>(ctx, { action: 'generation_status', campaignId }),
      zonesOf(ctx),
      brandSiteOf(ctx),
    ]);
    return {
      campaign,
      variants,
      deployments,
      generation,
      zones,
      brandSite,
      mediaBase: kit.container.config.urls.platform,
    };
  }

  /** A campaign page, with the notice of the action that redirected here (or the error of one that failed). */
  const detail = async (ctx: Context, notices: Notice[] = []) => {
    const done = DONE[String(ctx.query.done ?? '')];
    const view = await detailView(ctx, ctx.params.campaignId!);
    sendWithOwnMedia(
      ctx,
      campaignDetailPage(state(ctx).chrome, view, done ? [{ kind: 'ok', text: done }, ...notices] : notices),
    );
  };

  const list = async (ctx: Context, notices: Notice[] = []) => {
    const status = LIST_STATUSES.find((candidate) => candidate === ctx.query.status) ?? null;
    const search = String(ctx.query.q ?? '').slice(0, 200);
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor ? ctx.query.cursor : null;
    const page = await query<{ campaigns: Campaign[]; nextCursor: string | null }>(ctx, {
      action: 'list',
      ...(status ? { status } : {}),
      ...(search.trim() ? { search: search.trim() } : {}),
      ...(cursor ? { cursor } : {}),
      limit: 25,
    });
    sendHtml(
      ctx,
      campaignListPage(
        state(ctx).chrome,
        { campaigns: page.campaigns, status, search, cursor, nextCursor: page.nextCursor ?? null },
        notices,
      ),
    );
  };

  /** Pages whose only content is a form for editors: others are told their role cannot do this. */
  const editorsOnly = (ctx: Context, what: string): boolean => {
    if (mayEdit(state(ctx).chrome)) return true;
    sendHtml(ctx, forbiddenPage(state(ctx).chrome, `Your role (${state(ctx).workspace!.role}) cannot ${what}.`), 403);
    return false;
  };

  const productsOf = async (ctx: Context) =>
    (
      await kit.tool<{ products: { id: string; title: string }[] }>(ctx, 'query_products', {
        action: 'list',
        limit: 100,
      })
    ).products;

  // ---- The list and a campaign -------------------------------------------------------------------------

  router.get(path, ...campaignPage, (ctx) => list(ctx));

  // ---- Generation from a brief: the form, the quote, the confirmation ------------------------------------

  const brief = async (ctx: Context, notices: Notice[] = []) => {
    // A fresh form starts with images on, as the tool's own default.
    const values =
      ctx.method === 'POST' ? briefValues(ctx.request.body as Body) : { ...briefValues({}), includeImages: true };
    sendHtml(ctx, briefPage(state(ctx).chrome, await productsOf(ctx), values, notices));
  };
  router.get(`${path}/new`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'start a generation')) await brief(ctx);
  });

  router.post(`${path}/generate`, ...kit.toolAction(brief), async (ctx) => {
    const body = ctx.request.body as Body;
    const values = briefValues(body);
    const quoteId = one(body.quoteId) || undefined;
    const answer = await kit.tool<GenerateAnswer>(ctx, 'generate_campaign', {
      mode: 'start',
      ...briefArguments(values),
      ...(quoteId ? { quoteId } : {}),
    });
    if (answer.status === 'quote_required') {
      sendHtml(
        ctx,
        quotePage(state(ctx).chrome, {
          campaign: null,
          quote: answer.quote,
          what: `Generating ${values.variantCount === 1 ? 'one variant' : `${values.variantCount} variants`}${values.includeImages ? ' with images' : ''}`,
          fields: {
            intent: values.intent,
            name: values.name || undefined,
            variantCount: values.variantCount,
            includeImages: values.includeImages ? 'yes' : undefined,
          },
          productIds: values.productIds,
          action: `${base(ctx)}/generate`,
          back: `${base(ctx)}/new`,
        }),
      );
      return;
    }
    ctx.redirect(`${base(ctx)}/${answer.campaignId}?done=${answer.status}`);
    ctx.status = 303;
  });

  // Registered after `/new`, which it would otherwise take for a campaign id.
  router.get(`${path}/:campaignId`, ...campaignPage, (ctx) => detail(ctx));

  // ---- Regenerating from a step ----------------------------------------------------------------------------

  const regenerateForm = async (ctx: Context, notices: Notice[] = []) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    const { generation } = await query<{ generation: Generation | null }>(ctx, {
      action: 'generation_status',
      campaignId: campaign.id,
    });
    // Without a finished generation there is nothing to reuse: only the whole run (from the brief) is possible.
    const steps = generation?.status === 'complete' ? GENERATION_STEPS : (['brief'] as const);
    const body = ctx.method === 'POST' ? (ctx.request.body as Body) : {};
    sendHtml(
      ctx,
      regeneratePage(
        state(ctx).chrome,
        campaign,
        {
          fromStep: one(body.fromStep) || ((steps as readonly string[]).includes('copy') ? 'copy' : 'brief'),
          variantCount: Number(one(body.variantCount)) || 3,
          includeImages: ctx.method === 'POST' ? one(body.includeImages) === 'yes' : true,
        },
        steps,
        notices,
      ),
    );
  };
  router.get(`${path}/:campaignId/regenerate`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'regenerate a campaign')) await regenerateForm(ctx);
  });

  router.post(`${path}/:campaignId/regenerate`, ...kit.toolAction(regenerateForm), async (ctx) => {
    const body = ctx.request.body as Body;
    const campaignId = ctx.params.campaignId!;
    const args = {
      mode: 'regenerate',
      campaignId,
      fromStep: one(body.fromStep),
      variantCount: Number(one(body.variantCount)) || 3,
      includeImages: one(body.includeImages) === 'yes',
    };
    const quoteId = one(body.quoteId) || undefined;
    const answer = await kit.tool<GenerateAnswer>(ctx, 'generate_campaign', {
      ...args,
      ...(quoteId ? { quoteId } : {}),
    });
    if (answer.status === 'quote_required') {
      const campaign = await campaignOf(ctx, campaignId);
      sendHtml(
        ctx,
        quotePage(state(ctx).chrome, {
          campaign,
          quote: answer.quote,
          what: `Regenerating ${campaign.name} from ${args.fromStep}`,
          fields: {
            fromStep: args.fromStep,
            variantCount: args.variantCount,
            includeImages: args.includeImages ? 'yes' : undefined,
          },
          productIds: [],
          action: `${base(ctx)}/${campaignId}/regenerate`,
          back: `${base(ctx)}/${campaignId}/regenerate`,
        }),
      );
      return;
    }
    ctx.redirect(`${base(ctx)}/${answer.campaignId}?done=${answer.status}`);
    ctx.status = 303;
  });

  // ---- Editing a variant -----------------------------------------------------------------------------------

  const editForm = async (ctx: Context, notices: Notice[] = []) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    const variant = await variantOf(ctx, campaign, ctx.params.variantId!);
    const body = ctx.method === 'POST' ? (ctx.request.body as Body) : null;
    const draft = body
      ? {
          headline: one(body.headline),
          body: one(body.body),
          callToAction: one(body.callToAction),
          expectedVersion: Number(one(body.expectedVersion)),
        }
      : undefined;
    sendHtml(ctx, variantEditPage(state(ctx).chrome, { campaign, variant, ...(draft ? { draft } : {}) }, notices));
  };
  router.get(`${path}/:campaignId/variants/:variantId/edit`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'edit variants')) await editForm(ctx);
  });

  router.post(`${path}/:campaignId/variants/:variantId`, ...kit.toolAction(editForm), async (ctx) => {
    const body = ctx.request.body as Body;
    const draft = {
      headline: one(body.headline),
      body: one(body.body),
      callToAction: one(body.callToAction),
      expectedVersion: Number(one(body.expectedVersion)),
    };
    try {
      await kit.tool(ctx, 'manage_campaigns', {
        action: 'update_variant',
        variantId: ctx.params.variantId!,
        headline: draft.headline,
        body: draft.body,
        callToAction: draft.callToAction,
        expectedVersion: draft.expectedVersion,
      });
    } catch (error) {
      // Someone saved first: show what the variant says now next to the person's edit; nothing was changed.
      if (!(error instanceof AppError && error.code === 'conflict' && error.details?.currentVersion)) throw error;
      const campaign = await campaignOf(ctx, ctx.params.campaignId!);
      const variant = await variantOf(ctx, campaign, ctx.params.variantId!);
      sendHtml(
        ctx,
        variantEditPage(state(ctx).chrome, { campaign, variant, draft, conflict: true }, [
          { kind: 'error', text: 'Not saved: someone else changed this variant while you were editing it.' },
        ]),
        409,
      );
      return;
    }
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=saved#variant-${ctx.params.variantId}`);
    ctx.status = 303;
  });

  // ---- Adding a variant ------------------------------------------------------------------------------------

  const newVariantForm = async (ctx: Context, notices: Notice[] = [], errors?: FieldErrors) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    const body = ctx.method === 'POST' ? (ctx.request.body as Body) : {};
    const values = {
      name: one(body.name),
      headline: one(body.headline),
      body: one(body.body),
      callToAction: one(body.callToAction),
    };
    sendHtml(
      ctx,
      variantNewPage(
        state(ctx).chrome,
        { campaign, existing: campaign.variantCount, values, ...(errors ? { errors } : {}) },
        notices,
      ),
    );
  };
  router.get(`${path}/:campaignId/variants/new`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'add variants')) await newVariantForm(ctx);
  });

  router.post(`${path}/:campaignId/variants`, ...kit.toolAction(newVariantForm), async (ctx) => {
    const body = ctx.request.body as Body;
    const name = one(body.name).trim();
    let answer: { variant: Variant };
    try {
      answer = await kit.tool<{ variant: Variant }>(ctx, 'manage_campaigns', {
        action: 'create_variant',
        campaignId: ctx.params.campaignId!,
        ...(name ? { name } : {}),
        headline: one(body.headline),
        body: one(body.body),
        callToAction: one(body.callToAction),
      });
    } catch (error) {
      if (!(await withFieldErrors(ctx, error, newVariantForm, 'Label'))) throw error;
      return;
    }
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=variant_added#variant-${answer.variant.id}`);
    ctx.status = 303;
  });

  // ---- A variant's traffic: active or paused, weight, control ------------------------------------------------

  /** The traffic form's values as posted (the weight as typed, so a refused one is shown again as it was). */
  const trafficDraft = (body: Body): TrafficValues => ({
    variantStatus: one(body.variantStatus),
    weight: one(body.weight).trim(),
    isControl: one(body.isControl) === 'yes',
    expectedVersion: Number(one(body.expectedVersion)),
  });

  /** The URL's campaign, its variants and the URL's variant among them (else "not found"). */
  const trafficSubject = async (ctx: Context) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    const variants = await variantsOf(ctx, campaign.id);
    const variant = variants.find((candidate) => candidate.id === ctx.params.variantId);
    if (!variant) throw new NotFoundError('Variant', ctx.params.variantId!);
    return { campaign, variants, variant };
  };

  const trafficForm = async (ctx: Context, notices: Notice[] = [], errors?: FieldErrors) => {
    const { campaign, variants, variant } = await trafficSubject(ctx);
    const draft = ctx.method === 'POST' ? trafficDraft(ctx.request.body as Body) : undefined;
    sendHtml(
      ctx,
      variantTrafficPage(
        state(ctx).chrome,
        { campaign, variant, variants, ...(draft ? { draft } : {}), ...(errors ? { errors } : {}) },
        notices,
      ),
    );
  };
  router.get(`${path}/:campaignId/variants/:variantId/traffic`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'change variants')) await trafficForm(ctx);
  });

  router.post(`${path}/:campaignId/variants/:variantId/traffic`, ...kit.toolAction(trafficForm), async (ctx) => {
    const draft = trafficDraft(ctx.request.body as Body);
    try {
      await kit.tool(ctx, 'manage_campaigns', {
        action: 'update_variant',
        variantId: ctx.params.variantId!,
        ...(draft.variantStatus ? { variantStatus: draft.variantStatus } : {}),
        // An empty weight is left out (unchanged); anything else goes to the tool as a number, which decides.
        ...(draft.weight ? { weight: Number(draft.weight) } : {}),
        // Only ever set: a campaign keeps a control until another variant is made the control.
        ...(draft.isControl ? { isControl: true } : {}),
        expectedVersion: draft.expectedVersion,
      });
    } catch (error) {
      if (await withFieldErrors(ctx, error, trafficForm)) return;
      // Someone saved first: show the variant as it is now next to the person's choice; nothing was changed.
      if (!(error instanceof AppError && error.code === 'conflict' && error.details?.currentVersion)) throw error;
      const { campaign, variants, variant } = await trafficSubject(ctx);
      sendHtml(
        ctx,
        variantTrafficPage(state(ctx).chrome, { campaign, variant, variants, draft, conflict: true }, [
          { kind: 'error', text: 'Not saved: someone else changed this variant while you were choosing.' },
        ]),
        409,
      );
      return;
    }
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=traffic#variant-${ctx.params.variantId}`);
    ctx.status = 303;
  });

  // ---- Deleting a variant: a confirmation that says what changes publicly, then the POST ---------------------

  router.get(`${path}/:campaignId/variants/:variantId/delete`, ...campaignPage, async (ctx) => {
    const view = await detailView(ctx, ctx.params.campaignId!);
    const variant = view.variants.find((candidate) => candidate.id === ctx.params.variantId);
    if (!variant) throw new NotFoundError('Variant', ctx.params.variantId!);
    const { campaign } = view;
    const published = campaign.status === 'published';
    const remaining = view.variants.filter((other) => other.id !== variant.id);
    const activeLeft = remaining.filter((other) => other.status === 'active');
    // The tool refuses this one (a published campaign keeps an active variant): say so before anyone tries.
    const refused = published && variant.status === 'active' && activeLeft.length === 0;
    const shares = trafficShares(remaining);
    const live = view.deployments.filter((deployment) => deployment.status === 'active');
    const changes: string[] = [];
    if (refused) {
      changes.push(
        `${variant.name} is the only active variant of this published campaign, so it cannot be deleted: the brand site would have nothing to show. Add or resume another variant first, or archive the campaign.`,
      );
    } else if (!published) {
      changes.push(`The campaign is not published, so nothing changes on the brand site.`);
    } else if (variant.status !== 'active') {
      changes.push(`${variant.name} is paused, so no visitor sees it now: nothing visible changes on the brand site.`);
    } else {
      changes.push(
        `The brand site is republished without ${variant.name} ("${variant.headline}"): visitors who were shown it are shown ${activeLeft.map((other) => other.name).join(' or ')} instead${activeLeft.length > 1 ? `, split ${activeLeft.map((other) => `${other.name} ${shares.get(other.id) ?? 0}%`).join(', ')}` : ''}.`,
        `That applies to its page (${view.brandSite}/campaigns/${campaign.slug})${live.length ? ` and ${live.length === 1 ? 'its placement' : `its ${live.length} placements`} (${live.map((deployment) => `zone ${placementName(view, deployment.zoneId).zone}`).join(', ')})` : ''}.`,
      );
    }
    if (!refused && variant.isControl && remaining.length)
      changes.push(
        `${variant.name} is the control of the A/B comparison; ${oldest(remaining).name} becomes the control.`,
      );
    if (!refused) changes.push(`Its copy and settings are deleted; agents and people can no longer see or edit it.`);
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `Delete ${variant.name} of ${campaign.name}`,
        campaign,
        before: html`<section class="card" aria-labelledby="variant-title">
          <h2 id="variant-title">${variant.name}</h2>
          <p><strong>Headline:</strong> ${variant.headline}</p>
          <p><strong>Text:</strong> ${variant.body}</p>
          <p><strong>Button:</strong> ${variant.callToAction}</p>
        </section>`,
        changes,
        ...(refused ? { notYet: 'the only active variant' } : {}),
        action: `${base(ctx)}/${campaign.id}/variants/${variant.id}/delete`,
        fields: {},
        button: `Delete ${variant.name}`,
        danger: true,
      }),
    );
  });

  router.post(`${path}/:campaignId/variants/:variantId/delete`, ...kit.toolAction(detail), async (ctx) => {
    await kit.tool(ctx, 'manage_campaigns', { action: 'delete_variant', variantId: ctx.params.variantId! });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=variant_deleted`);
    ctx.status = 303;
  });

  // ---- The campaign's name, objective, public summary and schedule -------------------------------------------

  const campaignForm = async (ctx: Context, notices: Notice[] = [], errors?: FieldErrors) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    const body = ctx.method === 'POST' ? (ctx.request.body as Body) : null;
    const values: CampaignEditValues = body
      ? {
          name: one(body.name),
          objective: one(body.objective),
          publicSummary: one(body.publicSummary),
          startsAt: one(body.startsAt),
          endsAt: one(body.endsAt),
        }
      : {
          name: campaign.name,
          objective: campaign.objective ?? '',
          publicSummary: campaign.publicSummary ?? '',
          startsAt: localUtc(campaign.startsAt),
          endsAt: localUtc(campaign.endsAt),
        };
    sendHtml(ctx, campaignEditPage(state(ctx).chrome, { campaign, values, ...(errors ? { errors } : {}) }, notices));
  };
  router.get(`${path}/:campaignId/edit`, ...campaignPage, async (ctx) => {
    if (editorsOnly(ctx, 'change campaigns')) await campaignForm(ctx);
  });

  router.post(`${path}/:campaignId/edit`, ...kit.toolAction(campaignForm), async (ctx) => {
    const body = ctx.request.body as Body;
    try {
      await kit.tool(ctx, 'manage_campaigns', {
        action: 'update',
        campaignId: ctx.params.campaignId!,
        name: one(body.name),
        // An emptied field clears it: no objective, the summary taken from the active variant, no start or end.
        objective: clearIfEmpty(body, 'objective'),
        publicSummary: clearIfEmpty(body, 'publicSummary'),
        startsAt: isoOfLocalUtc(one(body.startsAt)),
        endsAt: isoOfLocalUtc(one(body.endsAt)),
      });
    } catch (error) {
      if (await withFieldErrors(ctx, error, campaignForm)) return;
      // The schedule's own rule (the service's, not the schema's): shown at the end date, with the tool's words.
      if (!(
        error instanceof AppError &&
        error.code === 'conflict' &&
        issuesOf(error).some((issue) => issue.field === 'endsAt')
      ))
        throw error;
      await campaignForm(
        ctx,
        [{ kind: 'error', text: `Not saved: the end must be after the start (${error.message}).` }],
        {
          endsAt: 'must be after the start',
        },
      );
      ctx.status = 409;
      return;
    }
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=details`);
    ctx.status = 303;
  });

  // ---- Publish, place on a zone, archive: a confirmation page, then the POST --------------------------------

  router.get(`${path}/:campaignId/publish`, ...campaignPage, async (ctx) => {
    const view = await detailView(ctx, ctx.params.campaignId!);
    const active = view.variants.filter((variant) => variant.status === 'active');
    const page = `${view.brandSite}/campaigns/${view.campaign.slug}`;
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `Publish ${view.campaign.name}`,
        campaign: view.campaign,
        changes: [
          `The campaign gets a public page on the brand site: ${page}`,
          active.length === 1
            ? `${active[0]!.name} ("${active[0]!.headline}") will be shown to every visitor.`
            : `Visitors will be split between ${active.map((variant) => `${variant.name} ("${variant.headline}")`).join(', ')}, by weight.`,
          'It is listed on the brand site, in its llms.txt and in what the concierge answers.',
          'It is not placed in any page zone until you place it.',
        ],
        action: `${base(ctx)}/${view.campaign.id}/publish`,
        fields: {},
        button: `Publish ${view.campaign.name}`,
      }),
    );
  });

  router.post(`${path}/:campaignId/publish`, ...kit.toolAction(detail), async (ctx) => {
    await kit.tool(ctx, 'manage_campaigns', { action: 'publish', campaignId: ctx.params.campaignId! });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=published`);
    ctx.status = 303;
  });

  router.get(`${path}/:campaignId/deploy`, ...campaignPage, async (ctx) => {
    const view = await detailView(ctx, ctx.params.campaignId!);
    const zoneId = typeof ctx.query.zoneId === 'string' ? ctx.query.zoneId : null;
    const chosen = zoneId ? view.zones.get(zoneId) : undefined;
    const picker = zonePicker(state(ctx).chrome, view.campaign, [...view.zones.values()], zoneId);
    const active = view.variants.filter((variant) => variant.status === 'active');
    const place = chosen ? placementName(view, chosen.zone.id) : null;
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `Place ${view.campaign.name} on a zone`,
        campaign: view.campaign,
        before: picker,
        changes: place
          ? [
              `${active.map((variant) => variant.name).join(' or ') || 'Its active variant'} will be shown on ${place.url ?? place.page} in zone ${place.zone}${active.length > 1 ? ' (each visitor sees one, split by weight)' : ''}.`,
              ...active.map((variant) => `${variant.name}: "${variant.headline}" — ${variant.callToAction}`),
              'If another campaign is placed in the same zone, the one with the higher priority is shown (this one gets priority 0).',
            ]
          : ['Choose a zone above to see exactly what will change.'],
        ...(place ? {} : { notYet: 'no zone chosen' }),
        action: `${base(ctx)}/${view.campaign.id}/deploy`,
        fields: chosen ? { zoneId: chosen.zone.id } : {},
        button: `Place on ${place?.zone ?? 'the zone'}`,
      }),
    );
  });

  router.post(`${path}/:campaignId/deploy`, ...kit.toolAction(detail), async (ctx) => {
    const body = ctx.request.body as Body;
    await kit.tool(ctx, 'manage_campaigns', {
      action: 'deploy',
      campaignId: ctx.params.campaignId!,
      zoneId: one(body.zoneId),
    });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=deployed`);
    ctx.status = 303;
  });

  router.get(`${path}/:campaignId/archive`, ...campaignPage, async (ctx) => {
    const view = await detailView(ctx, ctx.params.campaignId!);
    const live = view.deployments.filter((deployment) => deployment.status === 'active');
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `Archive ${view.campaign.name}`,
        campaign: view.campaign,
        changes: [
          view.campaign.status === 'published'
            ? `Its page on the brand site (${view.brandSite}/campaigns/${view.campaign.slug}) stops being shown, and it leaves the brand site's lists.`
            : 'It is not published, so nothing changes on the brand site.',
          ...live.map((deployment) => {
            const place = placementName(view, deployment.zoneId);
            return `It is taken out of zone ${place.zone} on ${place.url ?? place.page}.`;
          }),
          'Agents and people can no longer edit it until it is restored; its placements stay ended after a restore.',
        ],
        action: `${base(ctx)}/${view.campaign.id}/archive`,
        fields: {},
        button: `Archive ${view.campaign.name}`,
        danger: true,
      }),
    );
  });

  router.post(`${path}/:campaignId/archive`, ...kit.toolAction(detail), async (ctx) => {
    await kit.tool(ctx, 'manage_campaigns', {
      action: 'update',
      campaignId: ctx.params.campaignId!,
      status: 'archived',
    });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=archived`);
    ctx.status = 303;
  });

  router.get(`${path}/:campaignId/restore`, ...campaignPage, async (ctx) => {
    const campaign = await campaignOf(ctx, ctx.params.campaignId!);
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `Restore ${campaign.name}`,
        campaign,
        changes: [
          'It comes back as ready: editable, but not published. Nothing on the brand site changes until you publish it again.',
          'The placements it had stay ended; place it again after publishing.',
        ],
        action: `${base(ctx)}/${campaign.id}/restore`,
        fields: {},
        button: `Restore ${campaign.name}`,
      }),
    );
  });

  router.post(`${path}/:campaignId/restore`, ...kit.toolAction(detail), async (ctx) => {
    await kit.tool(ctx, 'manage_campaigns', { action: 'update', campaignId: ctx.params.campaignId!, status: 'ready' });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=restored`);
    ctx.status = 303;
  });

  // ---- Pausing, resuming or ending a placement ---------------------------------------------------------------

  router.get(`${path}/:campaignId/placements/:deploymentId/:change`, ...campaignPage, async (ctx) => {
    const change = PLACEMENT_CHANGES[ctx.params.change!];
    const view = await detailView(ctx, ctx.params.campaignId!);
    const deployment = view.deployments.find((candidate) => candidate.id === ctx.params.deploymentId);
    if (!change || !deployment) throw new NotFoundError('Placement', ctx.params.deploymentId!);
    const place = placementName(view, deployment.zoneId);
    const where = `zone ${place.zone} on ${place.url ?? place.page}`;
    sendHtml(
      ctx,
      confirmPage(state(ctx).chrome, {
        title: `${change.verb} the placement in ${place.zone}`,
        campaign: view.campaign,
        changes: [change.says(view.campaign.name, where)],
        action: `${base(ctx)}/${view.campaign.id}/placements/${deployment.id}/${ctx.params.change}`,
        fields: {},
        button: `${change.verb} ${view.campaign.name} in ${place.zone}`,
        danger: change.status === 'ended',
      }),
    );
  });

  router.post(`${path}/:campaignId/placements/:deploymentId/:change`, ...kit.toolAction(detail), async (ctx) => {
    const change = PLACEMENT_CHANGES[ctx.params.change!];
    if (!change) throw new NotFoundError('Placement change', ctx.params.change!);
    await kit.tool(ctx, 'manage_campaigns', {
      action: 'update_deployment',
      deploymentId: ctx.params.deploymentId!,
      deploymentStatus: change.status,
    });
    ctx.redirect(`${base(ctx)}/${ctx.params.campaignId}?done=${change.done}`);
    ctx.status = 303;
  });
}

/** What each placement change sets, and the sentence its confirmation says. */
const PLACEMENT_CHANGES: Record<
  string,
  { verb: string; status: 'active' | 'paused' | 'ended'; done: string; says: (name: string, where: string) => string }
> = {
  pause: {
    verb: 'Pause',
    status: 'paused',
    done: 'paused',
    says: (name, where) =>
      `${where} stops showing ${name} (another campaign placed there, if any, is shown instead). You can resume it later.`,
  },
  resume: {
    verb: 'Resume',
    status: 'active',
    done: 'resumed',
    says: (name, where) => `${where} shows ${name} again.`,
  },
  end: {
    verb: 'End',
    status: 'ended',
    done: 'ended',
    says: (name, where) =>
      `${where} stops showing ${name} for good. To show it there again, place it on the zone again.`,
  },
};
