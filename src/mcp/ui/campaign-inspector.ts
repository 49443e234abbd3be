/**
 * The campaign inspector widget of the MCP Apps extension (`io.modelcontextprotocol/ui`), served as the resource
 * `ui://svc/campaign-inspector@1` (see inspector-meta.ts and ../resources.ts).
 *
 * The page is one self-contained HTML document: inline CSS, and one inline `<script type="module">` holding
 * the ext-apps browser bundle (`@modelcontextprotocol/ext-apps/app-with-deps`, which includes its own zod and
 * MCP protocol code) followed by the widget (inspector-page.js). Hosts render it in a sandboxed iframe with no
 * same-origin server, so nothing may be fetched: the only channel out is the host's postMessage bridge, and a
 * Content-Security-Policy meta tag says so.
 *
 * A module script cannot `export`, so the bundle's final `export{a as App,…}` statement becomes a local binding,
 * `const ExtApps = Object.freeze({"App": a, …});`, which the widget reads. The widget runs inside its own block
 * so its names cannot collide with the bundle's minified top-level names. The rewrite is checked at build
 * time: if an upgrade of the package changes the bundle's shape (no final export list, imports, no App or
 * PostMessageTransport), building the page throws instead of serving a page that fails in the browser.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INSPECTOR_MIME = 'text/html;profile=mcp-app';
/** The MCP Apps extension id (SEP-1865), under which servers and hosts advertise UI support. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

const BUNDLE_SPECIFIER = '@modelcontextprotocol/ext-apps/app-with-deps';
/** The name the rewritten export list is bound to, visible to the widget code. */
const BINDING = 'ExtApps';
const REQUIRED_EXPORTS = ['App', 'PostMessageTransport'] as const;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** One export specifier: `local`, `local as exported`, or `local as "string name"`. */
const SPECIFIER = /^([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*|"[^"\\]*"|'[^'\\]*'))?$/;
/** The bundle's last statement: `export{…};`, optionally followed by a source-map comment. */
const FINAL_EXPORT = /\bexport\s*\{([^{}]*)\}\s*;?\s*(?:\/\/[#@]\s*sourceMappingURL=\S*\s*)?$/;
/**
 * What the bundle must not contain before its final export: module loads (network fetches from inside the
 * sandbox, and they would not resolve anyway) or other exports (which the rewrite would not see).
 */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/\bimport\s*(?:\{|\*|["'])/, 'contains a static import, so it is no longer self-contained'],
  [/\bimport\s+[A-Za-z_$][\w$]*\s*(?:,|from\b)/, 'contains a static import, so it is no longer self-contained'],
  [/\bimport\s*\(/, 'contains a dynamic import(), so it is no longer self-contained'],
  [/\bimport\s*\.\s*meta\b/, 'uses import.meta, so it is no longer self-contained'],
  [
    /\bexport\s*(?:\{|\*|default\b|const\b|let\b|var\b|function\b|class\b|async\b)/,
    'has more than one export statement',
  ],
];

/**
 * Turns an ES module bundle whose only export is its final `export{…}` statement into plain module code that
 * binds the exports to `const <binding> = Object.freeze({…});`. Throws if the shape is not the expected one or
 * if one of `required` is not exported.
 */
export function rewriteBundleExports(
  source: string,
  options: { binding: string; required: readonly string[]; origin: string },
): string {
  const { binding, required, origin } = options;
  const fail = (why: string) =>
    new Error(`Cannot build the campaign inspector widget from ${origin}: ${why}. Check the ext-apps upgrade.`);

  const match = FINAL_EXPORT.exec(source);
  if (!match) throw fail('the bundle does not end with a single `export{…}` statement');
  const head = source.slice(0, match.index);
  for (const [pattern, why] of FORBIDDEN) {
    if (pattern.test(head)) throw fail(`the bundle ${why}`);
  }
  if (new RegExp(`\\b${binding}\\b`).test(head)) throw fail(`the bundle already uses the name ${binding}`);

  const entries = new Map<string, string>();
  for (const raw of match[1]!.split(',')) {
    const specifier = raw.trim();
    if (!specifier) continue;
    const parts = SPECIFIER.exec(specifier);
    if (!parts) throw fail(`cannot read the export specifier "${specifier.slice(0, 80)}"`);
    const local = parts[1]!;
    const quoted = parts[2];
    const exported = quoted === undefined ? local : /^["']/.test(quoted) ? quoted.slice(1, -1) : quoted;
    if (entries.has(exported)) throw fail(`"${exported}" is exported twice`);
    entries.set(exported, local);
  }
  const missing = required.filter((name) => !entries.has(name));
  if (missing.length) throw fail(`the bundle no longer exports ${missing.join(', ')}`);
  for (const local of entries.values()) {
    if (!IDENTIFIER.test(local)) throw fail(`"${local}" is not an identifier`);
  }

  const members = [...entries].map(([exported, local]) => `${JSON.stringify(exported)}:${local}`).join(',');
  return `${head.trimEnd()}\nconst ${binding}=Object.freeze({${members}});\n`;
}

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
  const bundlePath = fileURLToPath(import.meta.resolve(BUNDLE_SPECIFIER));
  const bundle = rewriteBundleExports(readFileSync(bundlePath, 'utf8'), {
    binding: BINDING,
    required: REQUIRED_EXPORTS,
    origin: bundlePath,
  });
  const widgetPath = path.join(import.meta.dirname, 'inspector-page.js');
  const widget = readFileSync(widgetPath, 'utf8');
  const script = `${inlineScriptText(bundle, bundlePath)}\n{\n${inlineScriptText(widget, widgetPath)}\n}\n`;
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
    `<body>${BODY}<script type="module">\n${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

let cached: string | undefined;

/** The widget page, built once at first call (the server calls it at boot, so a broken bundle fails early). */
export function inspectorHtml(): string {
  cached ??= buildInspectorHtml();
  return cached;
}
