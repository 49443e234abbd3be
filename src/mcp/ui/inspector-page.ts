/**
 * The campaign inspector widget (MCP Apps view, `io.modelcontextprotocol/ui`): browser code, bundled with the
 * ext-apps runtime into one script by `scripts/build-inspector.ts` (see inspector-bundle.ts) and inlined into
 * the page campaign-inspector.ts serves. Every piece of data reaches the page through textContent or text
 * nodes, never as HTML. Every action is an ordinary `tools/call` that the host proxies to the server, under the
 * signed-in person's role.
 *
 * The shapes below are what the widget reads of the tools' structured results (`query_campaigns`,
 * `manage_campaigns`), every field optional: a host may hand over any tool's result, and a field the server
 * stops sending must degrade the page, not break it.
 */
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  PostMessageTransport,
  type AppEventMap,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps/app-with-deps';

interface CampaignData {
  id?: string;
  name?: string;
  status?: string;
  objective?: string | null;
  channels?: string[];
  variantCount?: number;
  activeDeployments?: number;
}

interface VariantData {
  id: string;
  campaignId?: string;
  name: string;
  version: number;
  status?: string;
  isControl?: boolean;
  headline?: string;
  body?: string;
  callToAction?: string;
}

interface DeploymentData {
  zoneId?: string;
  surfaceId?: string | null;
  status?: string;
  priority?: number | null;
}

/** The union of what `query_campaigns` and `manage_campaigns` return, as far as the widget reads it. */
interface ToolData {
  action?: string;
  campaign?: CampaignData;
  campaignId?: string;
  campaigns?: CampaignData[];
  variant?: VariantData;
  variants?: VariantData[];
  deployments?: DeploymentData[];
  nextCursor?: string | null;
}

type ToolResult = AppEventMap['toolresult'];
type ListKind = 'variants' | 'deployments';

const PAGE_SIZE = 100;
/** The page's fixed elements (campaign-inspector.ts writes them); a missing one is a build mistake. */
function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The inspector page has no #${id}`);
  return node as T;
}

const state: {
  toolInput: Record<string, unknown>;
  campaigns: CampaignData[] | null;
  listCursor: string | null;
  campaign: CampaignData | null;
  variants: VariantData[];
  variantsCursor: string | null;
  deployments: DeploymentData[];
  deploymentsCursor: string | null;
  openToken: number;
} = {
  /** Arguments of the tool call that opened the widget (ui/notifications/tool-input). */
  toolInput: {},
  /** The campaign list, when the widget was opened by `query_campaigns list`. */
  campaigns: null,
  listCursor: null,
  campaign: null,
  variants: [],
  variantsCursor: null,
  deployments: [],
  deploymentsCursor: null,
  /** Answers to an older "open campaign" are dropped when the person has moved on. */
  openToken: 0,
};

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}-${++idCounter}`;

type Child = Node | string | null | undefined | false;
type Props = Record<string, unknown>;

/** Builds an element; `text` sets textContent, `on<event>` adds a listener, anything else is an attribute. */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = String(value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value as EventListener);
    } else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

function setStatus(message: string, kind: 'info' | 'error' | 'success' = 'info') {
  const status = byId('status');
  status.textContent = message;
  status.dataset.kind = kind;
}

/** The text of a failed tool result (`code: message`), as the server wrote it. */
function errorText(result: ToolResult): string {
  const first = Array.isArray(result?.content) ? result.content[0] : undefined;
  if (first?.type === 'text' && first.text) return first.text;
  return 'The tool reported an error without a message.';
}

class ToolError extends Error {}

/** Calls a server tool through the host; resolves to structuredContent, throws ToolError on isError. */
async function callTool(name: string, args: Record<string, unknown>): Promise<ToolData> {
  let result: ToolResult;
  try {
    result = await app.callServerTool({ name, arguments: args });
  } catch (error) {
    throw new ToolError(`The host could not run ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (result.isError) throw new ToolError(errorText(result));
  return (result.structuredContent ?? {}) as ToolData;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

// ---------------------------------------------------------------------------------------------------------
// Campaign list

function showList() {
  byId('campaign-section').hidden = true;
  byId('list-section').hidden = false;
  renderList();
}

function renderList() {
  const list = byId('campaign-list');
  list.replaceChildren();
  const campaigns = state.campaigns ?? [];
  if (!campaigns.length) list.append(el('li', { text: 'No campaigns yet.' }));
  for (const campaign of campaigns) {
    const detailsId = nextId('campaign-details');
    list.append(
      el(
        'li',
        { className: 'row' },
        el('button', {
          type: 'button',
          className: 'linkish',
          'aria-describedby': detailsId,
          text: campaign.name,
          onclick: () => campaign.id && openCampaign(campaign.id, campaign, { focus: true }),
        }),
        el(
          'span',
          { id: detailsId, className: 'muted' },
          el('span', { className: 'badge', text: campaign.status }),
          ` ${count(campaign.variantCount, 'variant')}, ${count(campaign.activeDeployments, 'active deployment')}`,
        ),
      ),
    );
  }
  const more = byId('list-more');
  more.hidden = !state.listCursor;
}

function count(n: unknown, noun: string): string {
  const value = typeof n === 'number' ? n : 0;
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}

async function loadMoreCampaigns() {
  const button = byId<HTMLButtonElement>('list-more');
  button.disabled = true;
  setStatus('Loading more campaigns…');
  try {
    const filters: Record<string, string> = {};
    for (const key of ['status', 'productId', 'search']) {
      const value = state.toolInput[key];
      if (typeof value === 'string') filters[key] = value;
    }
    const data = await callTool('query_campaigns', { action: 'list', ...filters, cursor: state.listCursor });
    state.campaigns = [...(state.campaigns ?? []), ...(data.campaigns ?? [])];
    state.listCursor = data.nextCursor ?? null;
    renderList();
    setStatus(`${count(state.campaigns.length, 'campaign')} shown.`);
  } catch (error) {
    setStatus(messageOf(error), 'error');
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// One campaign: header, variants, deployments

/** Shows one campaign; `focus` only when the person asked for it (a tool result must not steal focus). */
async function openCampaign(campaignId: string, known?: CampaignData, { focus = false } = {}) {
  const token = ++state.openToken;
  state.campaign = known ?? { id: campaignId };
  state.variants = [];
  state.deployments = [];
  state.variantsCursor = null;
  state.deploymentsCursor = null;
  byId('list-section').hidden = true;
  byId('campaign-section').hidden = false;
  byId('back').hidden = state.campaigns === null;
  renderCampaignHeader();
  byId('variants').replaceChildren(el('p', { className: 'muted', text: 'Loading variants…' }));
  byId('deployments').replaceChildren(el('p', { className: 'muted', text: 'Loading deployments…' }));
  setStatus('Loading the campaign…');
  if (focus) byId('campaign-heading').focus();

  const [campaign, variants, deployments] = await Promise.allSettled([
    callTool('query_campaigns', { action: 'get', campaignId }),
    callTool('query_campaigns', { action: 'variants', campaignId, limit: PAGE_SIZE }),
    callTool('query_campaigns', { action: 'deployments', campaignId, limit: PAGE_SIZE }),
  ]);
  if (token !== state.openToken) return;

  const problems: string[] = [];
  if (campaign.status === 'fulfilled' && campaign.value.campaign) state.campaign = campaign.value.campaign;
  else if (campaign.status === 'rejected') problems.push(messageOf(campaign.reason));
  renderCampaignHeader();

  if (variants.status === 'fulfilled') {
    state.variants = variants.value.variants ?? [];
    state.variantsCursor = variants.value.nextCursor ?? null;
    renderVariants();
  } else {
    problems.push(messageOf(variants.reason));
    byId('variants').replaceChildren(el('p', { className: 'error', text: messageOf(variants.reason) }));
  }

  if (deployments.status === 'fulfilled') {
    state.deployments = deployments.value.deployments ?? [];
    state.deploymentsCursor = deployments.value.nextCursor ?? null;
    renderDeployments();
  } else {
    problems.push(messageOf(deployments.reason));
    byId('deployments').replaceChildren(el('p', { className: 'error', text: messageOf(deployments.reason) }));
  }

  if (problems.length) setStatus(problems.join(' '), 'error');
  else
    setStatus(
      `Showing "${state.campaign.name ?? campaignId}": ${count(state.variants.length, 'variant')}, ${count(state.deployments.length, 'deployment')}.`,
    );
}

function renderCampaignHeader() {
  const campaign = state.campaign ?? {};
  byId('campaign-heading').textContent = campaign.name ?? campaign.id ?? 'Campaign';
  const facts = byId('campaign-facts');
  facts.replaceChildren();
  const add = (term: string, value: string | null | undefined) => {
    if (value === undefined || value === null || value === '') return;
    facts.append(el('dt', { text: term }), el('dd', { text: value }));
  };
  add('Status', campaign.status);
  add('Objective', campaign.objective);
  add('Channels', Array.isArray(campaign.channels) && campaign.channels.length ? campaign.channels.join(', ') : null);
  add('Variants', typeof campaign.variantCount === 'number' ? String(campaign.variantCount) : null);
  add('Active deployments', typeof campaign.activeDeployments === 'number' ? String(campaign.activeDeployments) : null);
  add('Campaign id', campaign.id);
}

async function loadMore(kind: ListKind) {
  const campaignId = state.campaign?.id;
  const cursor = kind === 'variants' ? state.variantsCursor : state.deploymentsCursor;
  if (!campaignId || !cursor) return;
  setStatus(`Loading more ${kind}…`);
  try {
    const data = await callTool('query_campaigns', { action: kind, campaignId, limit: PAGE_SIZE, cursor });
    if (kind === 'variants') {
      state.variants = [...state.variants, ...(data.variants ?? [])];
      state.variantsCursor = data.nextCursor ?? null;
      renderVariants();
    } else {
      state.deployments = [...state.deployments, ...(data.deployments ?? [])];
      state.deploymentsCursor = data.nextCursor ?? null;
      renderDeployments();
    }
    setStatus(`More ${kind} loaded.`);
  } catch (error) {
    setStatus(messageOf(error), 'error');
  }
}

function renderVariants() {
  const container = byId('variants');
  container.replaceChildren();
  if (!state.variants.length)
    container.append(el('p', { className: 'muted', text: 'This campaign has no variants yet.' }));
  for (const variant of state.variants) container.append(variantCard(variant));
  if (state.variantsCursor) {
    container.append(el('button', { type: 'button', text: 'Load more variants', onclick: () => loadMore('variants') }));
  }
}

/**
 * One variant: its copy, an Edit button, and the edit fields (hidden until asked for). The fields are a fieldset,
 * not a <form>: hosts sandbox the widget without `allow-forms`, which blocks form submission before any submit
 * event, so Save is a plain button (and Enter in a one-line field saves too).
 */
function variantCard(initial: VariantData): HTMLElement {
  let variant = initial;
  const headingId = nextId('variant-name');
  const formId = nextId('variant-form');
  const article = el('article', { className: 'card variant', 'aria-labelledby': headingId });
  const result = el('p', { className: 'result', role: 'status', 'aria-live': 'polite' });

  const fields = {
    headline: { label: 'Headline', multiline: false, max: 200 },
    body: { label: 'Body', multiline: true, max: 5000 },
    callToAction: { label: 'Call to action', multiline: false, max: 60 },
  } as const;
  type Field = keyof typeof fields;
  const fieldNames = Object.keys(fields) as Field[];
  const inputs = {} as Record<Field, HTMLInputElement | HTMLTextAreaElement>;
  const form = el('fieldset', { id: formId, className: 'edit', hidden: true });
  const legend = el('legend');
  form.append(legend);
  for (const name of fieldNames) {
    const field = fields[name];
    const inputId = nextId(`variant-${name}`);
    inputs[name] = field.multiline
      ? el('textarea', { id: inputId, name, rows: 4, maxlength: field.max })
      : el('input', { id: inputId, name, type: 'text', maxlength: field.max, autocomplete: 'off' });
    form.append(el('div', { className: 'field' }, el('label', { for: inputId, text: field.label }), inputs[name]));
  }
  const save = el('button', { type: 'button', className: 'primary', text: 'Save' });
  const cancel = el('button', { type: 'button', text: 'Cancel' });
  form.append(el('div', { className: 'actions' }, save, cancel));

  const edit = el('button', {
    type: 'button',
    'aria-expanded': 'false',
    'aria-controls': formId,
    text: 'Edit',
  });
  const view = el('div');

  function renderView() {
    edit.setAttribute('aria-label', `Edit ${variant.name}`);
    legend.textContent = `Edit ${variant.name}`;
    view.replaceChildren(
      el(
        'div',
        { className: 'card-head' },
        el('h4', { id: headingId, text: variant.name }),
        variant.isControl ? el('span', { className: 'badge control', text: 'Control' }) : null,
      ),
      el('p', {
        className: 'muted',
        text: `Version ${variant.version} · ${variant.status ?? 'unknown status'}${variant.isControl ? ' · control variant' : ''}`,
      }),
      el(
        'dl',
        { className: 'copy' },
        el('dt', { text: 'Headline' }),
        el('dd', { text: variant.headline }),
        el('dt', { text: 'Body' }),
        el('dd', { className: 'body-text', text: variant.body }),
        el('dt', { text: 'Call to action' }),
        el('dd', { text: variant.callToAction }),
      ),
    );
  }

  function openForm() {
    for (const name of fieldNames) inputs[name].value = variant[name] ?? '';
    form.hidden = false;
    edit.setAttribute('aria-expanded', 'true');
    result.textContent = '';
    inputs.headline.focus();
  }

  function closeForm() {
    form.hidden = true;
    edit.setAttribute('aria-expanded', 'false');
  }

  edit.addEventListener('click', () => (form.hidden ? openForm() : closeForm()));
  cancel.addEventListener('click', () => {
    closeForm();
    edit.focus();
  });

  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target instanceof window.HTMLInputElement) {
      event.preventDefault();
      if (!save.disabled) saveEdits();
    }
  });
  save.addEventListener('click', saveEdits);

  async function saveEdits() {
    save.disabled = true;
    form.setAttribute('aria-busy', 'true');
    result.className = 'result';
    result.textContent = 'Saving…';
    try {
      const data = await callTool('manage_campaigns', {
        action: 'update_variant',
        variantId: variant.id,
        headline: inputs.headline.value,
        body: inputs.body.value,
        callToAction: inputs.callToAction.value,
        expectedVersion: variant.version,
      });
      if (data.variant) variant = data.variant;
      state.variants = state.variants.map((v) => (v.id === variant.id ? variant : v));
      renderView();
      closeForm();
      result.className = 'result success';
      result.textContent = `Saved. ${variant.name} is now version ${variant.version}.`;
      setStatus(`Saved ${variant.name} (version ${variant.version}).`, 'success');
      edit.focus();
    } catch (error) {
      result.className = 'result error';
      result.textContent = messageOf(error);
      setStatus(`Could not save ${variant.name}.`, 'error');
    } finally {
      save.disabled = false;
      form.removeAttribute('aria-busy');
    }
  }

  renderView();
  article.append(view, el('div', { className: 'actions' }, edit), form, result);
  return article;
}

function renderDeployments() {
  const container = byId('deployments');
  container.replaceChildren();
  if (!state.deployments.length) {
    container.append(el('p', { className: 'muted', text: 'Not deployed to any zone.' }));
    return;
  }
  const body = el('tbody');
  for (const deployment of state.deployments) {
    body.append(
      el(
        'tr',
        {},
        el('td', { text: deployment.zoneId }),
        el('td', { text: deployment.surfaceId ?? '' }),
        el('td', {}, el('span', { className: 'badge', text: deployment.status })),
        el('td', { text: deployment.priority ?? '' }),
      ),
    );
  }
  container.append(
    el(
      'table',
      {},
      el('caption', { className: 'visually-hidden', text: 'Deployments of this campaign' }),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col', text: 'Zone' }),
          el('th', { scope: 'col', text: 'Surface' }),
          el('th', { scope: 'col', text: 'Status' }),
          el('th', { scope: 'col', text: 'Priority' }),
        ),
      ),
      body,
    ),
  );
  if (state.deploymentsCursor) {
    container.append(
      el('button', { type: 'button', text: 'Load more deployments', onclick: () => loadMore('deployments') }),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// The host: tool input and result, theming

function campaignIdOf(data: ToolData): string | null {
  if (data && typeof data === 'object') {
    if (data.campaign && typeof data.campaign.id === 'string') return data.campaign.id;
    if (typeof data.campaignId === 'string') return data.campaignId;
    if (Array.isArray(data.variants) && typeof data.variants[0]?.campaignId === 'string') {
      return data.variants[0].campaignId;
    }
  }
  return typeof state.toolInput.campaignId === 'string' ? state.toolInput.campaignId : null;
}

function handleToolResult(result: ToolResult) {
  if (result.isError) {
    setStatus(errorText(result), 'error');
    return;
  }
  const data = (result.structuredContent ?? {}) as ToolData;
  if (data.action === 'list' && Array.isArray(data.campaigns)) {
    state.campaigns = data.campaigns;
    state.listCursor = data.nextCursor ?? null;
    showList();
    setStatus(
      data.campaigns.length
        ? `${count(data.campaigns.length, 'campaign')}. Pick one to inspect it.`
        : 'No campaigns yet.',
    );
    return;
  }
  const campaignId = campaignIdOf(data);
  if (campaignId) {
    void openCampaign(campaignId, data.action === 'get' ? data.campaign : undefined);
    return;
  }
  const first = Array.isArray(result.content) ? result.content.find((c) => c.type === 'text') : undefined;
  const text = first?.type === 'text' ? first.text : undefined;
  setStatus(text || 'The tool result names no campaign to show.');
}

let hostContext: McpUiHostContext = {};

function applyHostContext(context: McpUiHostContext) {
  hostContext = { ...hostContext, ...context };
  try {
    if (hostContext.theme === 'light' || hostContext.theme === 'dark') applyDocumentTheme(hostContext.theme);
    if (hostContext.styles?.variables) applyHostStyleVariables(hostContext.styles.variables);
  } catch (error) {
    console.warn('Could not apply the host theme', error);
  }
}

byId('back').addEventListener('click', () => {
  state.openToken++;
  showList();
  setStatus(`${count((state.campaigns ?? []).length, 'campaign')}. Pick one to inspect it.`);
  byId('list-heading').focus();
});
byId('list-more').addEventListener('click', loadMoreCampaigns);
byId('reload').addEventListener('click', () => {
  if (state.campaign?.id) void openCampaign(state.campaign.id, state.campaign, { focus: true });
});

const app = new App({ name: 'campaign-inspector', version: '1.0.0' }, {}, { autoResize: true });
app.addEventListener('toolinput', (params) => {
  state.toolInput = params?.arguments ?? {};
  setStatus('Waiting for the tool result…');
});
app.addEventListener('toolresult', handleToolResult);
app.addEventListener('toolcancelled', (params) =>
  setStatus(`The tool call was cancelled${params?.reason ? `: ${params.reason}` : ''}.`, 'error'),
);
app.addEventListener('hostcontextchanged', applyHostContext);

app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => {
    applyHostContext(app.getHostContext() ?? {});
    if (byId('status').dataset.kind === 'connecting') setStatus('Connected. Waiting for a campaign result…');
  })
  .catch((error) => setStatus(`Could not connect to the host: ${messageOf(error)}`, 'error'));
