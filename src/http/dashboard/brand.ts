/**
 * The brand kit (`/w/:id/brand`): colours with their contrast on the brand site, fonts, logo and rules; the
 * public profile; the voice with its banned phrases; the concierge's greeting and FAQ; and a preview of the
 * brand site. Read with `query_brand get`, saved section by section with `manage_brand update_*` (kit.tool), so
 * the role check, the schemas, the version check and the audit line are the MCP tool's. Viewers see the kit
 * without forms.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { can } from '../../auth/permissions.ts';
import { brandContrastChecks, type ContrastCheck } from '../../domain/brand/brand-contrast.ts';
import type { BrandView } from '../../domain/brand/brand.service.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { brandSiteUrl } from '../hosts.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { checked, clearIfEmpty, integer, keepIfEmpty, lines, raw, type FormBody } from './form-fields.ts';
import { state, type DashboardKit } from './kit.ts';

/** Empty FAQ rows offered below the saved ones, to add entries without JavaScript. */
const BLANK_FAQ_ROWS = 2;

type Section = 'brandbook' | 'profile' | 'voice' | 'concierge';

/** Each section's form, read into the `manage_brand` patch of that section. */
const PATCHES: Record<Section, (body: FormBody) => Record<string, unknown>> = {
  brandbook: (body) => ({
    colors: {
      primary: raw(body, 'primary'),
      secondary: raw(body, 'secondary'),
      accent: raw(body, 'accent'),
      background: raw(body, 'background'),
      text: raw(body, 'text'),
    },
    fonts: { heading: keepIfEmpty(body, 'headingFont'), body: keepIfEmpty(body, 'bodyFont') },
    logoUrl: clearIfEmpty(body, 'logoUrl'),
    rules: lines(body, 'rules'),
  }),
  profile: (body) => ({
    displayName: keepIfEmpty(body, 'displayName'),
    tagline: clearIfEmpty(body, 'tagline'),
    description: clearIfEmpty(body, 'description'),
    website: clearIfEmpty(body, 'website'),
    contactEmail: clearIfEmpty(body, 'contactEmail'),
  }),
  voice: (body) => ({
    tone: clearIfEmpty(body, 'tone'),
    personality: raw(body, 'personality')
      .split(',')
      .map((trait) => trait.trim())
      .filter(Boolean),
    doSay: lines(body, 'doSay'),
    dontSay: lines(body, 'dontSay'),
    sampleCopy: clearIfEmpty(body, 'sampleCopy'),
  }),
  concierge: (body) => ({
    enabled: checked(body, 'enabled'),
    greeting: clearIfEmpty(body, 'greeting'),
    escalation: clearIfEmpty(body, 'escalation'),
    faq: faqRows(body),
  }),
};

const SAVED: Record<Section, string> = {
  brandbook: 'Saved the colours, fonts, logo and rules.',
  profile: 'Saved the public profile.',
  voice: 'Saved the voice and banned phrases.',
  concierge: 'Saved the concierge settings and FAQ.',
};

/** The FAQ rows of the form (`faq_question_N`, `faq_answer_N`), rows with an empty question dropped. */
function faqRows(body: FormBody): { question: string; answer: string }[] {
  const rows: { question: string; answer: string }[] = [];
  for (let index = 0; body[`faq_question_${index}`] !== undefined; index += 1) {
    const question = raw(body, `faq_question_${index}`);
    if (question) rows.push({ question, answer: raw(body, `faq_answer_${index}`) });
  }
  return rows;
}

export function brandRoutes(router: Router, kit: DashboardKit): void {
  const { em, sendHtml } = kit;
  const { workspaces } = kit.container.services;

  const brandPage = async (ctx: Context, notices: Notice[] = []) => {
    const { brand } = await kit.tool<{ brand: BrandView }>(ctx, 'query_brand', { action: 'get' });
    const workspace = await workspaces.requireWorkspace(em(), state(ctx).workspace!.id);
    const siteUrl = brandSiteUrl(kit.container.config, workspace.slug);
    // The preview frames the workspace's own brand site, and only that origin: the rest of the dashboard keeps
    // `default-src 'none'`. The frame is sandboxed without scripts (see the page), so it records no visit.
    sendHtml(ctx, brandKitPage(state(ctx).chrome, brand, siteUrl, notices), 200, [
      `frame-src ${new URL(siteUrl).origin}`,
    ]);
  };

  router.get('/w/:workspaceId/brand', ...kit.workspacePage('workspace:read'), (ctx) => brandPage(ctx));

  for (const section of Object.keys(PATCHES) as Section[]) {
    router.post(`/w/:workspaceId/brand/${section}`, ...kit.toolAction(brandPage), async (ctx) => {
      const body = ctx.request.body as FormBody;
      await kit.tool(ctx, 'manage_brand', {
        action: `update_${section}`,
        [section]: PATCHES[section](body),
        expectedVersion: integer(body, 'expectedVersion'),
      });
      await brandPage(ctx, [{ kind: 'ok', text: `${SAVED[section]} The brand site is being republished.` }]);
    });
  }
}

/** One field of a section: an input for editors, a read-only fact for viewers. */
interface Field {
  name: string;
  label: string;
  value: string;
  kind?: 'text' | 'textarea' | 'color' | 'email' | 'url';
  hint?: string;
}

function fieldView(field: Field, editable: boolean, idPrefix: string): SafeHtml {
  const id = `${idPrefix}-${field.name}`;
  if (!editable) {
    return html`<dt>${field.label}</dt>
      <dd class="${field.kind === 'textarea' ? 'multiline' : ''}">
        ${field.value || html`<span class="muted">not set</span>`}
      </dd>`;
  }
  const hint = field.hint ? html`<span class="hint" id="${id}-hint">${field.hint}</span>` : '';
  const described = field.hint ? html`aria-describedby="${id}-hint"` : '';
  const input =
    field.kind === 'textarea'
      ? html`<textarea id="${id}" name="${field.name}" rows="4" ${described}>${field.value}</textarea>`
      : html`<input
          id="${id}"
          name="${field.name}"
          type="${field.kind ?? 'text'}"
          value="${field.value}"
          ${described}
        />`;
  // A colour picker shows only a swatch: the saved code is written beside it.
  const code = field.kind === 'color' ? html` <code class="colour-code">${field.value}</code>` : '';
  return html`<div class="field"><label for="${id}">${field.label}</label>${hint}${input}${code}</div>`;
}

function sectionCard(
  chrome: Chrome,
  brand: BrandView,
  options: {
    section: Section;
    title: string;
    intro: string;
    fields: Field[];
    /** Shown before the fields. */
    lead?: SafeHtml;
    /** Shown after the fields. */
    extra?: SafeHtml;
    button: string;
  },
): SafeHtml {
  const ws = chrome.current!;
  const editable = can(ws.role, 'content:write');
  const fields = options.fields.map((field) => fieldView(field, editable, options.section));
  const body = editable
    ? html`<form method="post" action="/w/${ws.id}/brand/${options.section}">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <input type="hidden" name="expectedVersion" value="${brand.version}" />
        ${options.lead ?? ''} ${fields} ${options.extra ?? ''}
        <p><button type="submit">${options.button}</button></p>
      </form>`
    : html`${options.lead ?? ''}
        <dl class="kit">${fields}</dl>
        ${options.extra ?? ''}`;
  return html`<section class="card" aria-labelledby="${options.section}-title">
    <h2 id="${options.section}-title">${options.title}</h2>
    <p class="muted">${options.intro}</p>
    ${body}
  </section>`;
}

function contrastTable(checks: ContrastCheck[]): SafeHtml {
  const failing = checks.filter((check) => !check.passes);
  return html`${
    failing.length
      ? html`<div class="notice warn" role="status">
          <strong>Contrast warning:</strong> ${failing.length === 1 ? 'one pair is' : `${failing.length} pairs are`}
          below ${failing[0]!.required}:1 (WCAG AA for body text): ${failing.map((check) => check.pair).join('; ')}. The
          brand site will substitute a readable colour there, so it will not look exactly like this kit.
        </div>`
      : html`<p class="badge ok">Every text pair reads (WCAG AA, 4.5:1 or more).</p>`
  }
  ${stackedTable(
    ['Pair on the brand site', 'Sample', 'Contrast', 'Result'],
    checks.map((check) => [
      check.pair,
      // The brand's own pair, drawn as it would look (it may be unreadable: that is what the row warns about).
      // Decorative: the ratio and verdict beside it say the same in text, so the letters are generated content.
      html`<span
        class="sample"
        style="color:${check.foreground};background:${check.background}"
        aria-hidden="true"
      ></span>`,
      `${check.ratio.toFixed(2)}:1`,
      check.passes
        ? html`<span class="badge ok">Reads</span>`
        : html`<span class="badge error">Too low (needs ${check.required}:1)</span>`,
    ]),
  )}`;
}

function faqFields(brand: BrandView, editable: boolean): SafeHtml {
  const faq = brand.concierge.faq;
  if (!editable) {
    return faq.length
      ? html`<h3>FAQ</h3>
          <dl class="faq">
            ${faq.map(
              (entry) =>
                html`<dt>${entry.question}</dt>
                  <dd class="multiline">${entry.answer}</dd>`,
            )}
          </dl>`
      : html`<p class="muted">No FAQ entries.</p>`;
  }
  const rows = [...faq, ...Array.from({ length: BLANK_FAQ_ROWS }, () => ({ question: '', answer: '' }))];
  return html`<fieldset>
    <legend>FAQ the concierge quotes to visitors</legend>
    <p class="hint">Leave a question empty to remove its entry.</p>
    ${rows.map(
      (entry, index) =>
        html`<div class="faq-row">
          <label for="faq-question-${index}">Question ${index + 1}</label>
          <input id="faq-question-${index}" name="faq_question_${index}" type="text" value="${entry.question}" />
          <label for="faq-answer-${index}">Answer ${index + 1}</label>
          <textarea id="faq-answer-${index}" name="faq_answer_${index}" rows="3">${entry.answer}</textarea>
        </div>`,
    )}
  </fieldset>`;
}

const BRAND_STYLES = html`<style>
  .kit-grid textarea,
  .kit-grid input[type='url'],
  .kit-grid input[type='text'],
  .kit-grid input[type='email'] {
    width: 100%;
    max-width: 560px;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  .kit-grid input[type='color'] {
    width: 64px;
    height: 40px;
    padding: 2px;
    border: 1px solid #8a919c;
    border-radius: 6px;
  }
  .on-this-page {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 16px;
    margin-bottom: 16px;
  }
  .colour-code {
    vertical-align: 14px;
    margin-left: 6px;
    font-size: 0.9rem;
  }
  .colours {
    display: grid;
    align-items: end;
    grid-template-columns: repeat(auto-fill, minmax(140px, 1fr));
    gap: 8px 16px;
  }
  .hint {
    display: block;
    color: #4a515c;
    font-size: 0.9rem;
    margin-bottom: 4px;
  }
  td .sample::before {
    content: 'Aa Sample';
  }
  .sample {
    display: inline-block;
    white-space: nowrap;
    min-width: 2.5em;
    min-height: 1.5em;
    padding: 4px 10px;
    border-radius: 4px;
    border: 1px solid #d5d9e0;
    font-weight: 600;
  }
  dl.kit,
  dl.faq {
    display: grid;
    grid-template-columns: minmax(120px, 200px) 1fr;
    gap: 6px 16px;
    margin: 0;
  }
  dl.kit dt,
  dl.faq dt {
    font-weight: 600;
  }
  dl.kit dd,
  dl.faq dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .multiline {
    white-space: pre-line;
  }
  .faq-row {
    border-top: 1px solid #e3e6ea;
    padding-top: 8px;
    margin-top: 8px;
  }
  .preview-frame {
    width: 100%;
    height: 480px;
    border: 1px solid #d5d9e0;
    border-radius: 8px;
    background: #fff;
  }
  @media (max-width: 640px) {
    dl.kit,
    dl.faq {
      grid-template-columns: 1fr;
    }
    dl.kit dd,
    dl.faq dd {
      margin-bottom: 8px;
    }
    .preview-frame {
      height: 360px;
    }
  }
</style>`;

export function brandKitPage(chrome: Chrome, brand: BrandView, siteUrl: string, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const editable = can(ws.role, 'content:write');
  const { brandbook, profile, voice, concierge } = brand;
  const colourFields: Field[] = (
    [
      ['primary', 'Primary (links, headings, buttons)'],
      ['secondary', 'Secondary (page-head band)'],
      ['accent', 'Accent'],
      ['background', 'Page background'],
      ['text', 'Body text'],
    ] as const
  ).map(([name, label]) => ({ name, label, value: brandbook.colors[name], kind: 'color' as const }));
  const colours = editable
    ? html`<div class="colours">${colourFields.map((field) => fieldView(field, true, 'brandbook'))}</div>`
    : html`<dl class="kit">
        ${colourFields.map(
          (field) =>
            html`<dt>${field.label}</dt>
              <dd>
                <span class="sample" style="background:${field.value}" aria-hidden="true">&nbsp;&nbsp;&nbsp;</span>
                ${field.value}
              </dd>`,
        )}
      </dl>`;

  const body = html`<h1>Brand kit of ${ws.name}</h1>
    <p class="muted">
      Version
      ${brand.version}${brand.updatedAt ? html`, last changed ${brand.updatedAt.slice(0, 16).replace('T', ' ')} UTC` : ', never changed (defaults)'}.
      ${editable ? 'Each section saves on its own and republishes the brand site.' : 'Your role (viewer) reads the kit; editors change it.'}
    </p>
    <nav class="on-this-page" aria-label="Sections of the brand kit">
      <a href="#preview-title">Preview</a> <a href="#contrast-title">Contrast</a>
      <a href="#brandbook-title">Colours and type</a> <a href="#profile-title">Public profile</a>
      <a href="#voice-title">Voice</a> <a href="#concierge-title">Concierge and FAQ</a>
    </nav>
    <div class="kit-grid">
      <section class="card" aria-labelledby="preview-title">
        <h2 id="preview-title">Brand site preview</h2>
        <p>
          The published home page at <a href="${siteUrl}/">${siteUrl}</a>. After a save it shows the change once the
          site is republished (a few seconds); reload this page to see it.
        </p>
        <!-- Sandboxed without scripts: the preview records no visit in the brand's analytics. -->
        <iframe
          class="preview-frame"
          src="${siteUrl}/"
          title="Preview of the ${brand.profile.displayName} brand site home page"
          sandbox=""
          loading="lazy"
        ></iframe>
      </section>
      <section class="card" aria-labelledby="contrast-title">
        <h2 id="contrast-title">Contrast of the colours</h2>
        ${contrastTable(brandContrastChecks(brandbook.colors))}
      </section>
      ${sectionCard(chrome, brand, {
        section: 'brandbook',
        title: 'Colours, fonts, logo and rules',
        intro: 'Colours, fonts and logo style the public brand site; rules guide generated copy and stay internal.',
        fields: [
          {
            name: 'headingFont',
            label: 'Heading font',
            value: brandbook.fonts.heading,
            hint: 'A CSS font list, e.g. Georgia, serif',
          },
          { name: 'bodyFont', label: 'Body font', value: brandbook.fonts.body, hint: 'e.g. system-ui, sans-serif' },
          {
            name: 'logoUrl',
            label: 'Logo URL',
            value: brandbook.logoUrl ?? '',
            kind: 'url',
            hint: 'A public https address; empty removes the logo.',
          },
          {
            name: 'rules',
            label: 'Brand rules',
            value: brandbook.rules.join('\n'),
            kind: 'textarea',
            hint: 'One rule per line (internal, at most 30).',
          },
        ],
        lead: html`<h3>Colours</h3>
          ${colours}
          <h3>Type, logo and rules</h3>`,
        button: 'Save colours, fonts and logo',
      })}
      ${sectionCard(chrome, brand, {
        section: 'profile',
        title: 'Public profile',
        intro: 'Shown on the brand site and in its structured data.',
        fields: [
          { name: 'displayName', label: 'Brand name', value: profile.displayName },
          { name: 'tagline', label: 'Tagline', value: profile.tagline ?? '' },
          { name: 'description', label: 'Description', value: profile.description ?? '', kind: 'textarea' },
          { name: 'website', label: 'Website', value: profile.website ?? '', kind: 'url' },
          { name: 'contactEmail', label: 'Contact email', value: profile.contactEmail ?? '', kind: 'email' },
        ],
        button: 'Save public profile',
      })}
      ${sectionCard(chrome, brand, {
        section: 'voice',
        title: 'Voice and banned phrases',
        intro: 'Internal guidance for generated copy; never published.',
        fields: [
          { name: 'tone', label: 'Tone', value: voice.tone ?? '', hint: 'e.g. warm, plain-spoken, confident' },
          {
            name: 'personality',
            label: 'Personality traits',
            value: voice.personality.join(', '),
            hint: 'Separated by commas, at most 10.',
          },
          {
            name: 'doSay',
            label: 'Phrases to use',
            value: voice.doSay.join('\n'),
            kind: 'textarea',
            hint: 'One per line.',
          },
          {
            name: 'dontSay',
            label: 'Banned phrases',
            value: voice.dontSay.join('\n'),
            kind: 'textarea',
            hint: 'One per line; generated copy avoids them.',
          },
          { name: 'sampleCopy', label: 'Sample copy', value: voice.sampleCopy ?? '', kind: 'textarea' },
        ],
        button: 'Save voice and banned phrases',
      })}
      ${sectionCard(chrome, brand, {
        section: 'concierge',
        title: 'Concierge',
        intro: 'The ask box on the brand site: the greeting and FAQ are public, the concierge quotes them to visitors.',
        fields: [
          { name: 'greeting', label: 'Greeting', value: concierge.greeting ?? '' },
          {
            name: 'escalation',
            label: 'When it does not know',
            value: concierge.escalation ?? '',
            hint: 'What visitors are told to do, e.g. "Write to hello@example.com".',
          },
        ],
        extra: html`${
          editable
            ? html`<p>
                <input
                  id="concierge-enabled"
                  name="enabled"
                  type="checkbox"
                  value="on"
                  ${concierge.enabled ? html`checked` : ''}
                />
                <label class="inline" for="concierge-enabled">Concierge answers visitors on the brand site</label>
              </p>`
            : html`<p>The concierge is <strong>${concierge.enabled ? 'on' : 'off'}</strong>.</p>`
        }
        ${faqFields(brand, editable)}`,
        button: 'Save concierge and FAQ',
      })}
    </div>`;
  return shell('Brand kit', chrome, body, notices, BRAND_STYLES);
}
