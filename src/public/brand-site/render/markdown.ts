/**
 * The markdown writer: a page's content model as its markdown twin (CommonMark), and a variant as the
 * markdown fragment spliced into a slot. Links are absolute (an agent may store the twin away from the
 * site); images keep their URL as given.
 *
 * Brand and product text is data, never markup: characters that would start emphasis, links, HTML, headings
 * or lists are backslash-escaped, so `<script>` or `[x](javascript:…)` in a product title stays literal text.
 */
import type { Block, ImageItem, LinkItem, PageContent, VariantContent } from './content.ts';
import { PartsBuilder } from './parts.ts';
import { absoluteUrl } from './text.ts';
import type { PagePart } from '../site-model.ts';

/** Escapes inline markup characters; the text stays on the lines it has. */
const MARKDOWN_INLINE = /[\\`*_[\]<>#|~]/;

export function escapeMarkdownInline(text: string): string {
  return MARKDOWN_INLINE.test(text) ? text.replace(/[\\`*_[\]<>#|~]/g, '\\$&') : text;
}

/** One line of escaped text (headings, link texts, list items). */
export function markdownLine(text: string): string {
  return escapeMarkdownInline(text.replace(/\s+/g, ' ').trim());
}

/** Line starts that would turn plain text into a list item, a heading underline or a thematic break. */
function escapeLineStart(line: string): string {
  return line.replace(/^(\d+)([.)])/, '$1\\$2').replace(/^([-+=])/, '\\$1');
}

/** Free text as markdown paragraphs: blank lines separate paragraphs, single newlines are kept. */
export function markdownParagraphs(text: string): string[] {
  if (!text.includes('\n')) {
    const line = escapeLineStart(markdownLine(text));
    return line ? [line] : [];
  }
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        // Leading spaces would make an indented code block.
        .map((line) => escapeLineStart(escapeMarkdownInline(line.replace(/\s+/g, ' ').trim())))
        .filter(Boolean)
        .join('\n'),
    )
    .filter(Boolean);
}

/** A URL inside `(…)`: parentheses would end the destination early. */
export function markdownUrl(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29');
}

export function markdownLink(text: string, href: string, origin: string): string {
  return `[${markdownLine(text)}](${markdownUrl(absoluteUrl(origin, href))})`;
}

function linkItem(link: LinkItem, origin: string): string {
  const note = link.note ? markdownLine(link.note) : '';
  return `- ${markdownLink(link.text, link.href, origin)}${note ? `: ${note}` : ''}`;
}

function image(item: ImageItem): string {
  return `![${markdownLine(item.alt)}](${markdownUrl(item.src)})`;
}

/** A block as markdown lines ending with a newline; slots go straight into the parts. */
function writeBlock(block: Block, origin: string, parts: PartsBuilder): void {
  switch (block.kind) {
    case 'heading':
      parts.text(`${'#'.repeat(block.level)} ${markdownLine(block.text)}\n`);
      return;
    case 'text':
      parts.text(`${markdownParagraphs(block.text).join('\n\n')}\n`);
      return;
    case 'facts':
      parts.text(
        block.facts
          .map((fact) => {
            const value = fact.href ? markdownLink(fact.value, fact.href, origin) : markdownLine(fact.value);
            return `- ${markdownLine(fact.label)}: ${value}\n`;
          })
          .join(''),
      );
      return;
    case 'links':
      parts.text(block.links.map((link) => `${linkItem(link, origin)}\n`).join(''));
      return;
    case 'cards':
      // A list of links, exactly as before cards existed: the twin has no layout to carry.
      parts.text(block.cards.map((card) => `${linkItem(card, origin)}\n`).join(''));
      return;
    case 'images':
      parts.text(block.images.map((item) => `${image(item)}\n`).join('\n'));
      return;
    case 'empty':
      parts.text(`${markdownLine(block.text)}\n`);
      return;
    case 'slot':
      parts.slot(block.slot);
      return;
    case 'answer':
      // Only the ask form's answer page has one, and that page is HTML only.
      return;
  }
}

/**
 * The markdown twin of a page: `# Title`, then the head's blocks and the page's blocks separated by blank
 * lines. The HTML-only parts (the home page's hero, the ask box, a product's extra photos) are left out.
 */
export function writeMarkdownPage(content: PageContent, origin: string): PagePart[] {
  const parts = new PartsBuilder().text(`# ${markdownLine(content.title)}\n`);
  for (const block of [...content.intro, ...content.blocks]) {
    if (block.only === 'html') continue;
    parts.text('\n');
    writeBlock(block, origin, parts);
  }
  return parts.build();
}

/** A variant as spliced into a markdown slot: headline, image, body and the call to action as a link. */
export function writeMarkdownFragment(variant: VariantContent, level: 2 | 3, origin: string): string {
  const sections = [`${'#'.repeat(level)} ${markdownLine(variant.headline)}`];
  if (variant.image) sections.push(image(variant.image));
  sections.push(...markdownParagraphs(variant.body));
  sections.push(markdownLink(variant.cta.text, variant.cta.href, origin));
  return `${sections.join('\n\n')}\n`;
}
