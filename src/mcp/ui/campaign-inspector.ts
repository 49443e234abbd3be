/**
 * The campaign inspector widget of the MCP Apps extension (`io.modelcontextprotocol/ui`), served as the resource
 * `ui://svc/campaign-inspector@1` (see inspector-meta.ts and ../resources.ts).
 *
 * The page is one self-contained HTML document: inline CSS, and one inline script — the widget
 * (inspector-page.ts) bundled with the ext-apps runtime it imports (`@modelcontextprotocol/ext-apps/app-with-deps`,
 * which includes its own zod and MCP protocol code) by the build step in inspector-bundle.ts. Hosts render it
 * in a sandboxed iframe with no same-origin server, so nothing may be fetched: the only channel out is the
 * host's postMessage bridge, and a Content-Security-Policy meta tag says so.
 */
import { loadInspectorWidget, WIDGET_SOURCE } from './inspector-bundle.ts';

export const INSPECTOR_MIME = 'text/html;profile=mcp-app';
/** The MCP Apps extension id (SEP-1865), under which servers and hosts advertise UI support. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/**
 * Makes JavaScript safe to place between `<script>` and `</script>`: `</script` (in a string, a regular
 * expression or a comment) is written `<\/script`, which means the same thing to JavaScript. `<!--` would put the
 * HTML parser into its "escaped" script states, and there is no rewrite of it that is safe in every JavaScript
 * context, so it is refused.
 */
export function inlineScriptText(code: string, origin: string): string {
  if (code.includes('<!--')) {
    throw new Error(`Cannot inline ${origin} in the campaign inspector: it contains "<!--".`);
  }
  return code.replace(/<\/(script)/gi, '<\\/$1');
}

const STYLE = `
:root {
  color-scheme: light dark;
  font-family: var(--font-sans, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: var(--font-text-md-size, 15px);
  line-height: var(--font-text-md-line-height, 1.45);
}
*, *::before, *::after { box-sizing: border-box; }
body {
  margin: 0;
  padding: 12px;
  background: var(--color-background-primary, Canvas);
  color: var(--color-text-primary, CanvasText);
}
h1 { font-size: var(--font-heading-md-size, 1.25rem); margin: 0 0 4px; }
h2 { font-size: var(--font-heading-sm-size, 1.1rem); margin: 12px 0 4px; }
h3 { font-size: var(--font-heading-xs-size, 1rem); margin: 16px 0 8px; }
h4 { font-size: 1rem; margin: 0; }
h1:focus, h2:focus { outline: none; }
[hidden] { display: none !important; }
.muted { color: var(--color-text-secondary, GrayText); }
.status {
  margin: 0 0 8px;
  padding: 6px 8px;
  border-radius: var(--border-radius-sm, 4px);
  background: var(--color-background-secondary, transparent);
  border: 1px solid var(--color-border-secondary, GrayText);
}
.status[data-kind="error"], .error { color: var(--color-text-danger, #b3261e); }
.status[data-kind="success"], .success { color: var(--color-text-success, #1b6e3a); }
ul.campaigns { list-style: none; margin: 0; padding: 0; }
.row { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; padding: 6px 0;
  border-bottom: 1px solid var(--color-border-tertiary, rgba(128, 128, 128, 0.3)); }
.badge { display: inline-block; padding: 0 6px; border-radius: var(--border-radius-full, 999px);
  border: 1px solid currentColor; font-size: 0.85em; }
.control { font-weight: var(--font-weight-semibold, 600); }
.card { border: 1px solid var(--color-border-primary, rgba(128, 128, 128, 0.5));
  border-radius: var(--border-radius-md, 6px); padding: 10px 12px; margin: 0 0 10px; }
.card-head { display: flex; gap: 8px; align-items: center; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
dt { font-weight: var(--font-weight-semibold, 600); }
dd { margin: 0; overflow-wrap: anywhere; }
.body-text { white-space: pre-wrap; }
.actions { display: flex; gap: 8px; margin-top: 8px; }
.edit { border: 1px solid var(--color-border-secondary, rgba(128, 128, 128, 0.5));
  border-radius: var(--border-radius-sm, 4px); margin: 8px 0 0; padding: 4px 10px 8px; }
legend { font-weight: var(--font-weight-semibold, 600); padding: 0 4px; }
.field { display: flex; flex-direction: column; gap: 2px; margin: 8px 0; }
input, textarea { font: inherit; color: inherit; background: var(--color-background-primary, Field);
  border: 1px solid var(--color-border-primary, GrayText); border-radius: var(--border-radius-sm, 4px); padding: 4px 6px; }
button { font: inherit; cursor: pointer; padding: 4px 12px; border-radius: var(--border-radius-sm, 4px);
  border: 1px solid var(--color-border-primary, ButtonBorder); background: var(--color-background-secondary, ButtonFace);
  color: var(--color-text-primary, ButtonText); }
button.primary { font-weight: var(--font-weight-semibold, 600); }
button.linkish { border: none; background: none; padding: 0; text-decoration: underline;
  color: var(--color-text-info, LinkText); font-weight: var(--font-weight-semibold, 600); }
button:disabled { cursor: progress; opacity: 0.6; }
:focus-visible { outline: 2px solid var(--color-ring-primary, Highlight); outline-offset: 2px; }
.result:empty { display: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--color-border-tertiary, rgba(128, 128, 128, 0.3)); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

const BODY = `
<main>
  <h1>Campaign inspector</h1>
  <p id="status" class="status" role="status" aria-live="polite" data-kind="connecting">Connecting to the host…</p>
  <section id="list-section" aria-labelledby="list-heading" hidden>
    <h2 id="list-heading" tabindex="-1">Campaigns</h2>
    <ul id="campaign-list" class="campaigns"></ul>
    <button id="list-more" type="button" hidden>Load more campaigns</button>
  </section>
  <section id="campaign-section" aria-labelledby="campaign-heading" hidden>
    <div class="actions">
      <button id="back" type="button">Back to campaigns</button>
      <button id="reload" type="button">Reload</button>
    </div>
    <h2 id="campaign-heading" tabindex="-1">Campaign</h2>
    <dl id="campaign-facts"></dl>
    <section aria-labelledby="variants-heading">
      <h3 id="variants-heading">Variants</h3>
      <div id="variants"></div>
    </section>
    <section aria-labelledby="deployments-heading">
      <h3 id="deployments-heading">Deployments</h3>
      <div id="deployments"></div>
    </section>
  </section>
</main>
`;

/** Nothing may be loaded from anywhere: inline script and style only; the postMessage bridge is not a fetch. */
const CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function buildInspectorHtml(): string {
  const script = inlineScriptText(loadInspectorWidget(), WIDGET_SOURCE);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Campaign inspector</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    `<body>${BODY}<script>\n${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

let cached: string | undefined;

/** The widget page, built once at first call (the server calls it at boot, so a broken build fails early). */
export function inspectorHtml(): string {
  cached ??= buildInspectorHtml();
  return cached;
}
