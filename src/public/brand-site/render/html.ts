/**
 * The HTML writer: a page's content model as a complete document, and a variant as the HTML fragment spliced
 * into a slot. Every piece of text goes through `escapeHtml`: product titles can come from any web page and
 * are data, never markup. Links inside the site stay root-relative so a page works on the brand subdomain and
 * on a custom domain alike; the canonical link names the one absolute URL.
 *
 * A page is self-contained: one inline stylesheet in the brand's colours and fonts (system font stacks behind
 * them, nothing fetched), the platform's own two scripts (the beacon, and the ask box's enhancement), and a
 * Content-Security-Policy that allows exactly that — the stylesheet by its hash, scripts and requests to this
 * origin only, forms posting here only. The layout is mobile-first: one column, widening into two at 48rem.
 */
import { createHash } from 'node:crypto';
import { colord, extend, type Colord } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';
import mixPlugin from 'colord/plugins/mix';
import type { Brandbook } from '../../../domain/brand/brand.entity.ts';
import { DEFAULT_BRANDBOOK } from '../../../domain/brand/brand-defaults.ts';
import { escapeHtml } from '../../../views/html.ts';
import { BRAND_PATHS, sitePaths, type PagePart } from '../site-model.ts';
import type {
  AskContext,
  Block,
  CardItem,
  Fact,
  Feature,
  ImageItem,
  JsonLdNode,
  LinkItem,
  PageContent,
  SlotStyle,
  VariantContent,
} from './content.ts';
import { PartsBuilder } from './parts.ts';
import { absoluteUrl, isSitePath } from './text.ts';

extend([a11yPlugin, mixPlugin]);

/** What every page of the site shares around its content. */
export interface HtmlChrome {
  origin: string;
  brandName: string;
  logoUrl: string | null;
  /** The inline stylesheet (see `brandStylesheet`). */
  css: string;
  lang: string;
  /** The concierge's ask box, or null when the brand turned its concierge off. */
  ask: { greeting: string | null } | null;
  /** How to reach the brand (footer, and the ask page when the concierge does not know). */
  contact: Fact[];
}

const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

function colour(value: string | undefined, fallback: string): string {
  return value && HEX_COLOUR.test(value) ? value : fallback;
}

/**
 * A CSS font-family list, or the default when the value has anything but names, quotes, commas and spaces
 * (a `;`, `}` or `<` could end the declaration or the `<style>` element).
 */
function fontFamily(value: string | undefined, fallback: string): string {
  const trimmed = value?.trim();
  return trimmed && /^[A-Za-z0-9 ,'"\-.]+$/.test(trimmed) ? trimmed : fallback;
}

/** WCAG AA for body text. */
const READABLE = 4.5;
const WHITE = '#ffffff';
const INK = '#111111';

/** The first candidate readable on `background`, else whichever of white and near-black reads better. */
function readableOn(background: Colord, candidates: string[]): string {
  const found = candidates.find((candidate) => colord(candidate).contrast(background) >= READABLE);
  if (found) return found;
  return colord(WHITE).contrast(background) >= colord(INK).contrast(background) ? WHITE : INK;
}

/**
 * The brand book's colours as a palette whose every text/background pair is readable (WCAG AA): the brand's
 * own colour where it passes, a corrected one where it does not. A brand book may name any colours, and a
 * pale primary on a white page would make links and headings unreadable.
 */
function palette(brandbook: Pick<Brandbook, 'colors'>) {
  const defaults = DEFAULT_BRANDBOOK.colors;
  const colors = brandbook.colors ?? defaults;
  const primary = colour(colors.primary, defaults.primary);
  const secondary = colour(colors.secondary, defaults.secondary);
  const accent = colour(colors.accent, defaults.accent);
  const background = colour(colors.background, defaults.background);
  const page = colord(background);
  const text = readableOn(page, [colour(colors.text, defaults.text)]);
  const link = readableOn(page, [primary, text]);
  // The band behind page heads: the brand's secondary colour when the text and links read on it too.
  const secondaryReads = [text, link].every((fore) => colord(fore).contrast(secondary) >= READABLE);
  const surface = secondaryReads ? secondary : colord(primary).mix(background, 0.9).toHex();
  const muted = colord(text).mix(background, 0.25).toHex();
  return {
    primary,
    secondary,
    accent,
    background,
    text,
    link,
    surface,
    onPrimary: readableOn(colord(primary), [secondary, background]),
    onAccent: readableOn(colord(accent), [background]),
    muted: colord(muted).contrast(page) >= READABLE && colord(muted).contrast(surface) >= READABLE ? muted : text,
    line: colord(text).mix(background, 0.82).toHex(),
    field: colord(text).mix(background, 0.45).toHex(),
  };
}

/** The site's stylesheet in the brand's colours and fonts; values are checked, never pasted in as given. */
export function brandStylesheet(brandbook: Pick<Brandbook, 'colors' | 'fonts'>): string {
  const defaults = DEFAULT_BRANDBOOK;
  const c = palette(brandbook);
  const heading = fontFamily(brandbook.fonts?.heading, defaults.fonts.heading);
  const body = fontFamily(brandbook.fonts?.body, defaults.fonts.body);
  return [
    `:root{--primary:${c.primary};--secondary:${c.secondary};--accent:${c.accent};--background:${c.background};` +
      `--text:${c.text};--link:${c.link};--surface:${c.surface};--on-primary:${c.onPrimary};` +
      `--on-accent:${c.onAccent};--muted:${c.muted};--line:${c.line};--field:${c.field};` +
      '--radius:14px;--wrap:72rem;--gap:clamp(1rem,3vw,2rem)}',
    '*,*::before,*::after{box-sizing:border-box}',
    'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
    `body{margin:0;font-family:${body};font-size:1.0625rem;line-height:1.6;color:var(--text);background:var(--background)}`,
    `h1,h2,h3{font-family:${heading};line-height:1.15;margin:0 0 .5em;letter-spacing:-.01em;text-wrap:balance}`,
    'h1{font-size:clamp(2.1rem,6vw,3.6rem)}h2{font-size:clamp(1.5rem,3.6vw,2.2rem);margin-top:2.5rem}h3{font-size:1.2rem}',
    'p{margin:0 0 1em;max-width:65ch}img{max-width:100%;height:auto;display:block}',
    'a{color:var(--link);text-underline-offset:.18em;text-decoration-thickness:1px}a:hover{text-decoration-thickness:2px}',
    ':focus-visible{outline:3px solid var(--accent);outline-offset:3px}',
    '.skip{position:absolute;left:-999px;top:8px;z-index:9}.skip:focus{left:8px;background:var(--background);color:var(--text);padding:8px 12px}',
    '.wrap{max-width:var(--wrap);margin:0 auto;padding:0 clamp(1.1rem,4vw,2.5rem)}',
    // Header: the brand's name and logo on its primary colour.
    '.site-header{background:var(--primary);color:var(--on-primary)}',
    '.bar{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1.5rem;padding-top:.9rem;padding-bottom:.9rem}',
    `.brand{display:flex;align-items:center;gap:.7rem;color:inherit;text-decoration:none;font-family:${heading};font-weight:700;font-size:1.3rem;letter-spacing:.01em}`,
    '.brand img{height:2.4rem;width:auto;border-radius:6px}',
    '.site-nav{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}',
    '.site-nav a{color:inherit;text-decoration:none;font-weight:600;font-size:.98rem;padding:.35rem 0;border-bottom:2px solid transparent}',
    '.site-nav a:hover{border-bottom-color:currentColor}',
    // Page head: the title (and its picture) on the brand's band.
    '.page-head{background:var(--surface);padding:clamp(1.75rem,5vw,3.5rem) 0}',
    '.head-grid{display:grid;gap:var(--gap);align-items:center}',
    '.head-media img,.feature-media img{width:100%;aspect-ratio:4/3;object-fit:cover;border-radius:var(--radius);background:var(--line)}',
    '.head-text>:last-child{margin-bottom:0}.head-text h1{color:var(--link)}',
    '.head-text h1.label{font-family:inherit;font-size:.85rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--muted);margin-bottom:.75rem}',
    '.head-text .cp-headline{font-size:clamp(2.1rem,6vw,3.4rem);margin-top:0;color:var(--link)}',
    '.head-text .cp-slot~.lead{font-size:1.05rem;margin-top:1.75rem;padding-top:1.25rem;border-top:1px solid var(--line)}',
    '.head-text .cp-slot~.facts{margin-top:.5rem}',
    '.lead{font-size:clamp(1.15rem,2.4vw,1.4rem);line-height:1.45}',
    // Sections of the page body.
    '.page-body{padding-top:.5rem;padding-bottom:3rem}.page-body>h2:first-child{margin-top:2rem}',
    '.empty{color:var(--muted);font-style:italic}',
    '.facts{display:grid;grid-template-columns:max-content 1fr;align-items:baseline;gap:.35rem 1.25rem;margin:1.25rem 0;max-width:40rem}',
    '.facts dt{font-weight:600;color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}',
    '.facts .price{font-size:1.6rem;font-weight:700;line-height:1.2;color:var(--text)}',
    '.links{padding-left:1.2rem}.links li{margin:.35rem 0}.note{color:var(--muted)}',
    '.gallery,.thumbs{display:grid;grid-template-columns:repeat(auto-fill,minmax(6rem,1fr));gap:.75rem;margin:1rem 0 0}',
    '.gallery img,.head-media .thumbs img{aspect-ratio:1;object-fit:cover;border-radius:10px;width:100%}',
    // Cards: campaigns and products.
    '.cards{list-style:none;margin:1.25rem 0 0;padding:0;display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,16rem),1fr))}',
    '.card{position:relative;display:flex;flex-direction:column;border:1px solid var(--line);border-radius:var(--radius);overflow:hidden;background:var(--background)}',
    '.card:hover{box-shadow:0 6px 24px rgb(0 0 0/.08)}.card img{aspect-ratio:4/3;object-fit:cover;width:100%}',
    `.card-art{aspect-ratio:4/3;display:grid;place-items:center;background:var(--surface);color:var(--link);font-family:${heading};font-size:4rem;font-weight:700}`,
    '.card-body{padding:1rem 1.15rem 1.2rem}.card h3{margin:0 0 .35rem;font-size:1.15rem}',
    '.card h3 a{color:var(--text);text-decoration:none}.card h3 a::after{content:"";position:absolute;inset:0}',
    '.card h3 a:focus-visible{outline:none}.card:focus-within{outline:3px solid var(--accent);outline-offset:2px}',
    '.card p{margin:0;color:var(--muted);font-size:.95rem}',
    // Variants, the home hero and calls to action.
    '.cp-slot{margin:0}.cp-variant>:last-child{margin-bottom:0}.cp-headline{margin-top:0}',
    '.page-body .cp-variant{border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin:1rem 0}',
    '.cp-image{border-radius:10px;margin-bottom:1rem;width:100%}',
    '.cp-action{margin:1.5rem 0 0}',
    '.cp-cta,.button{display:inline-flex;align-items:center;justify-content:center;min-height:3rem;padding:.7rem 1.6rem;border:0;border-radius:999px;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:700;text-decoration:none;cursor:pointer}',
    '.cp-cta:hover,.button:hover{filter:brightness(1.08)}',
    '.feature{padding:clamp(2rem,5vw,3.5rem) 0 1rem}',
    '.feature-grid{display:grid;gap:var(--gap);align-items:center}',
    '.eyebrow{font-size:.85rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--muted);margin-bottom:.75rem}',
    '.feature .cp-headline{font-size:clamp(1.9rem,5vw,3rem)}.more{margin-top:1rem}',
    // The ask box and the answer.
    '.ask-section{padding:0 0 3.5rem}.page-head+.ask-section,.feature+.ask-section{padding-top:2.5rem}.ask-box{background:var(--surface);border-radius:var(--radius);padding:clamp(1.25rem,4vw,2.5rem)}',
    '.ask-box h2{margin-top:0}.ask-form label{display:block;font-weight:600;margin-bottom:.4rem}',
    '.ask-row{display:flex;flex-wrap:wrap;gap:.75rem}',
    '.ask-row input{flex:1 1 11rem;min-width:0;min-height:3rem;font:inherit;color:var(--text);background:var(--background);padding:.6rem 1rem;border:2px solid var(--field);border-radius:12px}',
    '.ask-row input:focus-visible{outline:3px solid var(--accent);outline-offset:1px}',
    '.ask-hint{font-size:.9rem;color:var(--muted);margin:.6rem 0 0}',
    '.answer{background:var(--background);border-radius:12px;padding:1.25rem 1.4rem;margin-top:1.25rem;border:1px solid var(--line)}',
    '.answer:empty{display:none}.answer>:last-child{margin-bottom:0}.answer h3{font-size:1rem;margin:1.1rem 0 .4rem}',
    '.asked{font-weight:600}.cite{font-size:.8em;vertical-align:super;line-height:0;margin-left:.15em}',
    '.sources{padding-left:1.4rem;margin:0 0 .5rem}.suggestions{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:0}',
    '.suggestions form{margin:0}.chip{font:inherit;font-size:.95rem;color:var(--link);background:var(--background);border:1px solid var(--field);border-radius:999px;padding:.45rem .95rem;min-height:2.75rem;cursor:pointer;text-align:left}',
    '.chip:hover{border-color:var(--link)}.unknown{border-left:4px solid var(--accent)}',
    // Footer.
    '.site-footer{border-top:1px solid var(--line);padding:2rem 0 2.5rem;font-size:.95rem;color:var(--muted)}',
    '.site-footer a{color:var(--link)}.site-footer .brand-name{font-weight:700;color:var(--text)}',
    '.contact{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;list-style:none;padding:0;margin:.5rem 0 1rem}',
    // Wider screens: the page head and the hero in two columns, picture first.
    '@media (min-width:48rem){.head-grid.has-media,.feature-grid.has-media{grid-template-columns:1fr 1fr}' +
      '.feature-grid.has-media{gap:clamp(2rem,5vw,4rem)}}',
    '@media (prefers-reduced-motion:no-preference){.card{transition:box-shadow .2s}}',
  ].join('\n');
}

/** The CSP source that allows exactly this stylesheet (`<style>` text, hashed as the browser will). */
function styleSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

/**
 * The page's Content-Security-Policy: images from anywhere (product photos live on shops' CDNs), the one
 * inline stylesheet, scripts and requests to this origin only, forms only to this origin's `/ask`. Sent as a
 * meta element because the stored page is the whole response (custom domains and the fast path serve it as is).
 */
function contentSecurityPolicy(css: string): string {
  return [
    "default-src 'none'",
    'img-src * data:',
    `style-src ${styleSource(css)}`,
    "script-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');
}

function anchor(href: string, text: string, options: { untrusted?: boolean; attributes?: string } = {}): string {
  const rel = isSitePath(href) ? '' : options.untrusted ? ' rel="nofollow ugc noopener"' : ' rel="noopener"';
  const extra = options.attributes ? ` ${options.attributes}` : '';
  return `<a href="${escapeHtml(href)}"${rel}${extra}>${escapeHtml(text)}</a>`;
}

/** Free text as paragraphs; single newlines become line breaks; `leadClass` marks the first paragraph. */
function paragraphs(text: string, leadClass?: string): string {
  const lead = leadClass ? `<p class="${leadClass}">` : '<p>';
  if (!text.includes('\n')) {
    const line = text.replace(/\s+/g, ' ').trim();
    return line ? `${lead}${escapeHtml(line)}</p>` : '';
  }
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => escapeHtml(line.replace(/\s+/g, ' ').trim()))
        .filter(Boolean)
        .join('<br>'),
    )
    .filter(Boolean)
    .map((paragraph, position) => `${position === 0 ? lead : '<p>'}${paragraph}</p>`)
    .join('\n');
}

function factValue(fact: Fact): string {
  if (fact.href) return anchor(fact.href, fact.value, { untrusted: fact.untrusted });
  if (fact.datetime) return `<time datetime="${escapeHtml(fact.datetime)}">${escapeHtml(fact.value)}</time>`;
  return escapeHtml(fact.value);
}

function linkItem(link: LinkItem): string {
  const note = link.note ? `<span class="note">: ${escapeHtml(link.note)}</span>` : '';
  return `<li>${anchor(link.href, link.text, { untrusted: link.untrusted })}${note}</li>`;
}

function imageTag(
  item: ImageItem,
  options: { className?: string; eager?: boolean; decorative?: boolean } = {},
): string {
  const className = options.className ? ` class="${options.className}"` : '';
  const alt = options.decorative ? '' : item.alt;
  // The picture at the top of a page is what the visitor sees first: fetched at once, not lazily.
  const loading = options.eager ? ' fetchpriority="high"' : ' loading="lazy"';
  return `<img${className} src="${escapeHtml(item.src)}" alt="${escapeHtml(alt)}"${loading}>`;
}

/**
 * A card: the whole card is the link (its title's link covers it), the picture is decoration. Without a
 * picture the card gets a tile with its initial in the brand's colours, so a grid of cards stays even.
 */
function card(item: CardItem): string {
  const initial = [...item.text.trim()][0]?.toUpperCase() ?? '';
  const image = item.image
    ? imageTag(item.image, { decorative: true })
    : `<div class="card-art" aria-hidden="true">${escapeHtml(initial)}</div>`;
  const note = item.note ? `<p>${escapeHtml(item.note)}</p>` : '';
  return (
    `<li class="card">${image}<div class="card-body"><h3>${anchor(item.href, item.text, { untrusted: item.untrusted })}</h3>` +
    `${note}</div></li>`
  );
}

function writeBlock(block: Block, parts: PartsBuilder): void {
  if (block.only === 'markdown') return;
  switch (block.kind) {
    case 'heading': {
      const id = block.anchor ? ` id="${escapeHtml(block.anchor)}"` : '';
      parts.text(`<h${block.level}${id}>${escapeHtml(block.text)}</h${block.level}>\n`);
      return;
    }
    case 'text':
      parts.text(`${paragraphs(block.text, block.lead ? 'lead' : undefined)}\n`);
      return;
    case 'facts':
      parts.text(
        `<dl class="facts">${block.facts
          .map(
            (fact) =>
              `<dt>${escapeHtml(fact.label)}</dt><dd${fact.highlight ? ' class="price"' : ''}>${factValue(fact)}</dd>`,
          )
          .join('')}</dl>\n`,
      );
      return;
    case 'links':
      parts.text(`<ul class="links">\n${block.links.map((link) => `${linkItem(link)}\n`).join('')}</ul>\n`);
      return;
    case 'cards':
      parts.text(`<ul class="cards" role="list">\n${block.cards.map((item) => `${card(item)}\n`).join('')}</ul>\n`);
      return;
    case 'images':
      parts.text(`<div class="gallery">${block.images.map((item) => imageTag(item)).join('')}</div>\n`);
      return;
    case 'empty':
      parts.text(`<p class="empty">${escapeHtml(block.text)}</p>\n`);
      return;
    case 'slot':
      parts.slot(block.slot);
      parts.text('\n');
      return;
    case 'answer':
      parts.text(answerHtml(block));
      return;
  }
}

/**
 * JSON-LD as the text of a `<script>` element: `<` is written as `\u003c`, so no string in the data (a
 * product title with `</script>`) can close the element or open a comment.
 */
export function jsonLdScriptText(nodes: JsonLdNode[]): string {
  return JSON.stringify({ '@context': 'https://schema.org', '@graph': nodes }).replace(/</g, '\\u003c');
}

/** The home page's hero: the lead campaign's product photo beside the visitor's variant of it. */
function writeFeature(feature: Feature, parts: PartsBuilder): void {
  const media = feature.image ? `<div class="feature-media">${imageTag(feature.image, { eager: true })}</div>` : '';
  parts.text(
    `<section class="feature" aria-label="${escapeHtml(feature.campaignName)}">` +
      `<div class="wrap feature-grid${media ? ' has-media' : ''}">${media}<div class="feature-text">` +
      `<p class="eyebrow">${escapeHtml(feature.campaignName)}</p>\n`,
  );
  writeBlock(feature.slot, parts);
  parts.text(
    `<p class="more">${anchor(feature.campaignHref, `More about ${feature.campaignName}`)}</p></div></div></section>\n`,
  );
}

function conversationFields(context: AskContext | null): string {
  if (!context) return '';
  return (
    context.previous.map((question) => `<input type="hidden" name="prev" value="${escapeHtml(question)}">`).join('') +
    (context.conversationId
      ? `<input type="hidden" name="conversationId" value="${escapeHtml(context.conversationId)}">`
      : '')
  );
}

/**
 * The ask box: a plain form that posts to `/ask` and gets an HTML page back, so it works without JavaScript;
 * the ask script (`/_cp/ask.js`) takes over its submit and shows the answer in the live region instead.
 */
function askBox(chrome: HtmlChrome, context: AskContext | null): string {
  const greeting =
    chrome.ask?.greeting?.trim() ||
    `Questions about a product, delivery or returns? Ask here: the answer comes from what ${chrome.brandName} has published on this site.`;
  return (
    '<section class="ask-section" id="ask" aria-labelledby="ask-title"><div class="wrap"><div class="ask-box">' +
    `<h2 id="ask-title">${context ? 'Ask another question' : `Ask ${escapeHtml(chrome.brandName)}`}</h2>\n` +
    `${paragraphs(greeting)}\n` +
    `<form class="ask-form" method="post" action="${BRAND_PATHS.ask}" data-cp-ask>` +
    '<label for="ask-query">Your question</label>' +
    '<div class="ask-row"><input id="ask-query" name="query" type="text" maxlength="500" autocomplete="off" ' +
    'placeholder="e.g. delivery times">' +
    `<button class="button" type="submit">Ask</button></div>${conversationFields(context)}</form>\n` +
    '<div class="answer" data-cp-answer aria-live="polite"></div>' +
    '</div></div></section>\n'
  );
}

/** A question asked from the answer page: a one-button form, so it works without JavaScript too. */
function suggestionButton(question: string, context: AskContext): string {
  return (
    `<li><form method="post" action="${BRAND_PATHS.ask}" data-cp-ask>` +
    `<input type="hidden" name="query" value="${escapeHtml(question)}">${conversationFields(context)}` +
    `<button class="chip" type="submit">${escapeHtml(question)}</button></form></li>`
  );
}

/** Where a citation leads: a page of this site as a root-relative link (it may be served on a custom domain). */
function citationHref(url: string, origin: string): string {
  return url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

/** The concierge's answer on the page the ask form posts to. */
function answerHtml(block: Extract<Block, { kind: 'answer' }>): string {
  const { reply, context, origin } = block;
  const parts: string[] = [`<div class="answer${reply.answered ? '' : ' unknown'}">`];
  parts.push(`<p class="asked">You asked: ${escapeHtml(block.question)}</p>`);
  if (reply.answered && reply.segments.length > 0) {
    const text = reply.segments
      .map((segment) => {
        const source = reply.sources[segment.source - 1];
        const cite = source
          ? ` <a class="cite" href="${escapeHtml(citationHref(source.url, origin))}" aria-label="Source ${segment.source}: ${escapeHtml(source.title)}">[${segment.source}]</a>`
          : '';
        return `${escapeHtml(segment.text)}${cite}`;
      })
      .join(' ');
    parts.push(`<p>${text}</p>`);
  } else {
    parts.push(paragraphs(reply.answer));
  }
  if (!reply.answered && block.contact.length > 0) {
    parts.push(
      `<p>Ask a person instead:</p><ul class="contact">${block.contact
        .map((fact) => `<li>${escapeHtml(fact.label)}: ${factValue(fact)}</li>`)
        .join('')}</ul>`,
    );
  }
  if (reply.sources.length > 0) {
    parts.push(
      `<h3>Sources</h3><ol class="sources">${reply.sources
        .map((source) => `<li>${anchor(citationHref(source.url, origin), source.title)}</li>`)
        .join('')}</ol>`,
    );
  }
  if (reply.suggestions.length > 0) {
    parts.push(
      `<h3>You could also ask</h3><ul class="suggestions" role="list">${reply.suggestions
        .map((question) => suggestionButton(question, context))
        .join('')}</ul>`,
    );
  }
  parts.push('</div>\n');
  return parts.join('\n');
}

function footer(chrome: HtmlChrome): string {
  const contact =
    chrome.contact.length > 0
      ? `<ul class="contact">${chrome.contact.map((fact) => `<li>${factValue(fact)}</li>`).join('')}</ul>`
      : '';
  return (
    `<footer class="site-footer"><div class="wrap"><p class="brand-name">${escapeHtml(chrome.brandName)}</p>${contact}` +
    '<p>For agents: every page of this site is also available as markdown ' +
    '(send <code>Accept: text/markdown</code>); start at <a href="/llms.txt">llms.txt</a>.</p></div></footer>\n'
  );
}

export function writeHtmlPage(content: PageContent, chrome: HtmlChrome, context: AskContext | null = null): PagePart[] {
  const url = absoluteUrl(chrome.origin, content.path);
  const documentTitle = content.path === sitePaths.home ? content.title : `${content.title} · ${chrome.brandName}`;
  const logo = chrome.logoUrl ? `<img src="${escapeHtml(chrome.logoUrl)}" alt="">` : '';
  const description = content.description
    ? `<meta name="description" content="${escapeHtml(content.description)}">\n`
    : '';
  const ask = chrome.ask && content.askBox;
  const askScript = ask ? `<script src="${BRAND_PATHS.askScript}" defer></script>\n` : '';
  const askLink = ask ? '<a href="#ask">Ask us</a>' : '';
  const parts = new PartsBuilder().text(
    '<!DOCTYPE html>\n' +
      `<html lang="${escapeHtml(chrome.lang)}">\n<head>\n<meta charset="utf-8">\n` +
      `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(chrome.css))}">\n` +
      '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
      `<title>${escapeHtml(documentTitle)}</title>\n${description}` +
      `<link rel="canonical" href="${escapeHtml(url)}">\n` +
      `<link rel="alternate" type="text/markdown" href="${escapeHtml(url)}">\n` +
      `<style>${chrome.css}</style>\n` +
      `<script type="application/ld+json">${jsonLdScriptText(content.structuredData)}</script>\n` +
      `<script src="${BRAND_PATHS.beaconScript}" defer></script>\n${askScript}` +
      '</head>\n<body>\n<a class="skip" href="#main">Skip to content</a>\n' +
      `<header class="site-header"><div class="wrap bar"><a class="brand" href="${sitePaths.home}">${logo}<span>${escapeHtml(chrome.brandName)}</span></a>` +
      `<nav class="site-nav" aria-label="Site"><a href="${sitePaths.home}">Home</a><a href="${sitePaths.campaigns}">Campaigns</a>` +
      `<a href="${sitePaths.products}">Products</a>${askLink}</nav></div></header>\n` +
      '<main id="main">\n',
  );
  const [first, ...more] = content.media;
  const thumbnails = more.length ? `<div class="thumbs">${more.map((item) => imageTag(item)).join('')}</div>` : '';
  const media = first ? `<div class="head-media">${imageTag(first, { eager: true })}${thumbnails}</div>` : '';
  const titleClass = content.titleStyle === 'label' ? ' class="label"' : '';
  parts.text(
    `<section class="page-head"><div class="wrap head-grid${media ? ' has-media' : ''}">${media}<div class="head-text">\n` +
      `<h1${titleClass}>${escapeHtml(content.title)}</h1>\n`,
  );
  // Under a label title the variant is the page's message: it comes first, the summary and dates after it.
  const intro =
    content.titleStyle === 'label'
      ? [...content.intro.filter((block) => block.kind === 'slot'), ...content.intro.filter((b) => b.kind !== 'slot')]
      : content.intro;
  for (const block of intro) writeBlock(block, parts);
  parts.text('</div></div></section>\n');
  if (content.feature) writeFeature(content.feature, parts);
  if (content.blocks.some((block) => block.only !== 'markdown')) {
    parts.text('<div class="wrap page-body">\n');
    for (const block of content.blocks) writeBlock(block, parts);
    parts.text('</div>\n');
  }
  if (ask) parts.text(askBox(chrome, context));
  parts.text(`</main>\n${footer(chrome)}</body>\n</html>\n`);
  return parts.build();
}

/**
 * A variant as spliced into an HTML slot: image (when the slot shows it), headline, body and the call to
 * action. Copy the image already shows is not printed again: its alt text says it. The CTA carries
 * `data-cp-cta` so the beacon script reports its clicks; the server wraps the fragment in the element that
 * names the campaign and variant.
 */
export function writeHtmlFragment(variant: VariantContent, style: SlotStyle): string {
  const image = style.image && variant.image ? variant.image : null;
  const headline =
    image && variant.imageCarries.headline
      ? ''
      : `<h${style.level} class="cp-headline">${escapeHtml(variant.headline)}</h${style.level}>`;
  const body = image && variant.imageCarries.body ? '' : paragraphs(variant.body);
  return (
    `<article class="cp-variant">${image ? imageTag(image, { className: 'cp-image' }) : ''}${headline}${body}` +
    `<p class="cp-action">${anchor(variant.cta.href, variant.cta.text, { attributes: 'class="cp-cta" data-cp-cta' })}</p></article>`
  );
}
