/**
 * The HTML writer: a page's content model as a complete document (brand colours and fonts in a small inline
 * stylesheet, no external requests except the platform's own beacon script), and a variant as the HTML
 * fragment spliced into a slot. Every piece of text goes through `escapeHtml`: product titles can come from
 * any web page and are data, never markup. Links inside the site stay root-relative so a page works on the
 * brand subdomain and on a custom domain alike; the canonical link names the one absolute URL.
 */
import type { Brandbook } from '../../../domain/brand/brand.entity.ts';
import { DEFAULT_BRANDBOOK } from '../../../domain/brand/brand-defaults.ts';
import { escapeHtml } from '../../../views/html.ts';
import { BRAND_PATHS, sitePaths, type PagePart } from '../site-model.ts';
import type { Block, Fact, ImageItem, JsonLdNode, LinkItem, PageContent, VariantContent } from './content.ts';
import { PartsBuilder } from './parts.ts';
import { absoluteUrl, isSitePath } from './text.ts';

/** What every page of the site shares around its content. */
export interface HtmlChrome {
  origin: string;
  brandName: string;
  logoUrl: string | null;
  /** The inline stylesheet (see `brandStylesheet`). */
  css: string;
  lang: string;
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

/** The site's stylesheet in the brand's colours and fonts; values are checked, never pasted in as given. */
export function brandStylesheet(brandbook: Pick<Brandbook, 'colors' | 'fonts'>): string {
  const defaults = DEFAULT_BRANDBOOK;
  const colors = brandbook.colors ?? defaults.colors;
  const primary = colour(colors.primary, defaults.colors.primary);
  const secondary = colour(colors.secondary, defaults.colors.secondary);
  const accent = colour(colors.accent, defaults.colors.accent);
  const background = colour(colors.background, defaults.colors.background);
  const text = colour(colors.text, defaults.colors.text);
  const heading = fontFamily(brandbook.fonts?.heading, defaults.fonts.heading);
  const body = fontFamily(brandbook.fonts?.body, defaults.fonts.body);
  return [
    `:root{--primary:${primary};--secondary:${secondary};--accent:${accent};--background:${background};--text:${text}}`,
    '*{box-sizing:border-box}',
    `body{margin:0;font-family:${body};font-size:17px;line-height:1.6;color:var(--text);background:var(--background)}`,
    `h1,h2,h3{font-family:${heading};color:var(--primary);line-height:1.25}`,
    'a{color:var(--primary)}a:focus{outline:3px solid var(--accent);outline-offset:2px}',
    '.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--background);padding:8px}',
    '.site-header{background:var(--primary);color:var(--secondary);padding:12px 24px;display:flex;flex-wrap:wrap;gap:16px 32px;align-items:center}',
    '.site-header a{color:var(--secondary)}.brand{font-weight:700;text-decoration:none;display:flex;gap:12px;align-items:center}',
    '.brand img{height:40px;width:auto}.site-header nav{display:flex;gap:16px;flex-wrap:wrap}',
    'main{max-width:960px;margin:0 auto;padding:24px}',
    '.lead{font-size:1.2rem}.empty{font-style:italic;opacity:.8}',
    'img{max-width:100%;height:auto}.images{display:flex;flex-wrap:wrap;gap:12px}.images img{max-height:360px}',
    '.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}.facts dt{font-weight:600}.facts dd{margin:0}',
    '.cp-slot{margin:16px 0}.cp-variant{border-left:4px solid var(--accent);padding:4px 0 4px 16px}',
    '.cp-cta{display:inline-block;background:var(--accent);color:var(--background);padding:8px 16px;border-radius:6px;text-decoration:none;font-weight:600}',
    'footer{max-width:960px;margin:0 auto;padding:24px;font-size:.9rem;opacity:.85}',
  ].join('\n');
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

function imageTag(item: ImageItem): string {
  return `<img src="${escapeHtml(item.src)}" alt="${escapeHtml(item.alt)}" loading="lazy">`;
}

function writeBlock(block: Block, parts: PartsBuilder): void {
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
          .map((fact) => `<dt>${escapeHtml(fact.label)}</dt><dd>${factValue(fact)}</dd>`)
          .join('')}</dl>\n`,
      );
      return;
    case 'links':
      parts.text(`<ul class="links">\n${block.links.map((link) => `${linkItem(link)}\n`).join('')}</ul>\n`);
      return;
    case 'images':
      parts.text(`<div class="images">${block.images.map(imageTag).join('')}</div>\n`);
      return;
    case 'empty':
      parts.text(`<p class="empty">${escapeHtml(block.text)}</p>\n`);
      return;
    case 'slot':
      parts.slot(block.slot);
      parts.text('\n');
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

export function writeHtmlPage(content: PageContent, chrome: HtmlChrome): PagePart[] {
  const url = absoluteUrl(chrome.origin, content.path);
  const documentTitle = content.path === sitePaths.home ? content.title : `${content.title} · ${chrome.brandName}`;
  const logo = chrome.logoUrl ? `<img src="${escapeHtml(chrome.logoUrl)}" alt="">` : '';
  const description = content.description
    ? `<meta name="description" content="${escapeHtml(content.description)}">\n`
    : '';
  const parts = new PartsBuilder().text(
    '<!DOCTYPE html>\n' +
      `<html lang="${escapeHtml(chrome.lang)}">\n<head>\n<meta charset="utf-8">\n` +
      '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
      `<title>${escapeHtml(documentTitle)}</title>\n${description}` +
      `<link rel="canonical" href="${escapeHtml(url)}">\n` +
      `<link rel="alternate" type="text/markdown" href="${escapeHtml(url)}">\n` +
      `<style>\n${chrome.css}\n</style>\n` +
      `<script type="application/ld+json">${jsonLdScriptText(content.structuredData)}</script>\n` +
      `<script src="${BRAND_PATHS.beaconScript}" defer></script>\n` +
      '</head>\n<body>\n<a class="skip" href="#main">Skip to content</a>\n' +
      `<header class="site-header"><a class="brand" href="${sitePaths.home}">${logo}<span>${escapeHtml(chrome.brandName)}</span></a>` +
      `<nav aria-label="Site"><a href="${sitePaths.home}">Home</a><a href="${sitePaths.campaigns}">Campaigns</a>` +
      `<a href="${sitePaths.products}">Products</a></nav></header>\n` +
      `<main id="main">\n<h1>${escapeHtml(content.title)}</h1>\n`,
  );
  for (const block of content.blocks) writeBlock(block, parts);
  parts.text(
    '</main>\n<footer><p>For agents: every page of this site is also available as markdown ' +
      '(send <code>Accept: text/markdown</code>); start at <a href="/llms.txt">llms.txt</a>.</p></footer>\n' +
      '</body>\n</html>\n',
  );
  return parts.build();
}

/**
 * A variant as spliced into an HTML slot: image, headline, body and the call to action. The CTA carries
 * `data-cp-cta` so the beacon script reports its clicks; the server wraps the fragment in the element that
 * names the campaign and variant.
 */
export function writeHtmlFragment(variant: VariantContent, level: 2 | 3): string {
  const image = variant.image ? imageTag(variant.image) : '';
  return (
    `<article class="cp-variant">${image}` +
    `<h${level} class="cp-headline">${escapeHtml(variant.headline)}</h${level}>` +
    `${paragraphs(variant.body)}` +
    `<p>${anchor(variant.cta.href, variant.cta.text, { attributes: 'class="cp-cta" data-cp-cta' })}</p></article>`
  );
}
