/**
 * Server-rendered HTML: an escaping tagged template and the one page layout (inline CSS, no external assets,
 * no JavaScript needed). Every interpolated value is escaped unless it is itself a `SafeHtml`.
 *
 * A leaf module with no imports, outside `http/`, because the dashboard, the authorization server's pages and
 * the brand-site renderers all write HTML and must escape it the same way without depending on each other.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

const STYLES = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0b57d0}
a:focus,button:focus,input:focus,select:focus{outline:3px solid #f9ab00;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:9}
header{background:#1b1f24;color:#fff;padding:12px 24px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
header a{color:#fff}header .brand{font-weight:700;text-decoration:none}
header nav{display:flex;gap:16px;flex-wrap:wrap}header form{margin-left:auto}
header.console{display:block;padding:0}header.console .bar{display:flex;gap:16px 24px;align-items:center;flex-wrap:wrap;padding:10px 24px}
header.console .bar form{margin-left:0}header.console .bar .who{margin-left:auto;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
header.console nav{gap:4px 20px;padding:0 24px 10px}header.console nav a{padding:4px 0;text-decoration:none;border-bottom:2px solid transparent}
header.console nav a:hover{border-bottom-color:#8a919c}header.console nav a[aria-current=page]{font-weight:700;border-bottom-color:#f9ab00}
main{max-width:960px;margin:24px auto;padding:0 24px}
h1{font-size:1.6rem;margin:0 0 16px}h2{font-size:1.2rem;margin:32px 0 12px}
.card{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:20px;margin-bottom:16px}
.card>h1:first-child,.card>h2:first-child{margin-top:0}
label{display:block;font-weight:600;margin:12px 0 4px}
input[type=text],input[type=email],input[type=password],select{width:100%;max-width:420px;padding:8px 10px;border:1px solid #8a919c;border-radius:6px;font:inherit}
button{font:inherit;padding:8px 16px;border-radius:6px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b57d0}button.danger{background:#b3261e;border-color:#b3261e}button.secondary.danger{background:#fff;color:#b3261e}
button.link{background:none;border:none;color:#fff;text-decoration:underline;padding:0}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:8px;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:#4a515c}
.notice{padding:12px 16px;border-radius:6px;margin-bottom:16px;border:1px solid}
.notice.ok{background:#e6f4ea;border-color:#34a853}.notice.error{background:#fce8e6;border-color:#b3261e}
.notice.warn{background:#fef7e0;border-color:#f9ab00}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.secret{display:block;background:#1b1f24;color:#e6edf3;padding:12px;border-radius:6px;margin:8px 0}
.muted{color:#4a515c;font-size:.9rem}.inline{display:inline}.row{display:flex;gap:12px;align-items:end;flex-wrap:wrap}
.filters{margin-bottom:16px}
fieldset{border:1px solid #d5d9e0;border-radius:6px;padding:12px 16px}legend{font-weight:600}
a.button{display:inline-block;padding:8px 16px;border-radius:6px;border:1px solid #0b57d0;text-decoration:none;background:#0b57d0;color:#fff}
a.button.secondary{background:#fff;color:#0b57d0}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-size:.8rem;font-weight:600;white-space:nowrap;background:#eceff3;color:#3c434d}
.badge.ok{background:#e6f4ea;color:#0d652d}.badge.warn{background:#fef7e0;color:#7a4f01}
.badge.error{background:#fce8e6;color:#8c1d18}.badge.info{background:#e8f0fe;color:#0b3d91}
.reason{margin:8px 0;padding:8px 12px;border-left:4px solid #b3261e;background:#fdf3f2;font-size:.95rem}
.table-wrap{overflow-x:auto;border-radius:8px;border:1px solid #d5d9e0}.table-wrap table{min-width:640px}
details>summary{cursor:pointer;color:#0b57d0;font-weight:600;padding:8px 0}
.accounts{list-style:none;padding:0;margin:0 0 16px;display:grid;gap:12px}.accounts .card{margin:0}
.account-head{display:flex;justify-content:space-between;gap:12px;align-items:flex-start;flex-wrap:wrap}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:8px 16px;margin:12px 0}
.facts dt{font-size:.8rem;color:#4a515c;text-transform:uppercase;letter-spacing:.04em}.facts dd{margin:0}
.actions{align-items:center}
.network-tag{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:4px;font-size:.75rem;font-weight:700;letter-spacing:.02em;background:#eceff3;color:#1b1f24;vertical-align:1px}
.network-tag.bluesky{background:#e3effd;color:#0a4a9c}.network-tag.meta{background:#e7edfa;color:#1c3f94}
.network-tag.reddit{background:#fdebe3;color:#8f2c00}.network-tag.tiktok{background:#e9f7f7;color:#0d4f4f}
.account-head strong{overflow-wrap:anywhere}
.connect-list{list-style:none;padding:0;margin:0 0 8px;display:grid;gap:16px}.connect-list li{margin:0}
.connect-list p{margin:6px 0 0}#connect h3{margin:24px 0 0;padding-top:16px;border-top:1px solid #e3e6ea}
.pager{display:flex;gap:16px;justify-content:space-between;align-items:center;margin:12px 0}
.truncate{overflow-wrap:anywhere}
@media (max-width:640px){
main{padding:0 12px;margin:16px auto}header{padding:12px}header form{margin-left:0}
header.console{padding:0}header.console .bar{padding:10px 12px}header.console .bar .who{margin-left:0}
header.console nav{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;padding:0 12px 8px}
table.stack thead{position:absolute;left:-9999px}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack tr{border-bottom:1px solid #d5d9e0;padding:8px 0}table.stack td{border:none;padding:4px 8px}
table.stack td[data-label]::before{content:attr(data-label);display:block;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#4a515c}
}
`;

export interface PageOptions {
  title: string;
  body: SafeHtml;
  header?: SafeHtml;
  /** Notices shown above the content; `role=alert` for errors so screen readers announce them. */
  notices?: { kind: 'ok' | 'error' | 'warn'; text: string }[];
  /** Extra elements for `<head>` (a page's own `<style>`, a `<meta http-equiv="refresh">` while a job runs). */
  head?: SafeHtml;
}

export function page(options: PageOptions): string {
  const notices = (options.notices ?? []).map(
    (notice) =>
      html`<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">
        ${notice.text}
      </div>`,
  );
  return `<!DOCTYPE html>${html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${options.title} · Campaign platform</title>
      <style>
        ${new SafeHtml(STYLES)}
      </style>
      ${options.head ?? ''}
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      ${options.header ?? html`<header><span class="brand">Campaign platform</span></header>`}
      <main id="main">${notices} ${options.body}</main>
    </body>
  </html>`}`;
}
