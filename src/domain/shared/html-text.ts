/**
 * The visible text of parsed HTML (parse5), shared by product-page extraction and the copy sanitiser: no
 * script, style or template content, and a word break at every block boundary so that `<p>a</p><p>b</p>`
 * reads "a b" while `a<b>c</b>` stays "ac".
 */
import type { DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;

/** Elements that flow within a line: no word break around them. */
const INLINE_ELEMENTS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);

/** Elements whose content a reader never sees. */
const SKIPPED_ELEMENTS = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'svg', 'math']);

/** The text a reader would see: no script/style/template content, word breaks at block boundaries. */
export function visibleText(root: Node): string {
  const parts: string[] = [];
  const stack: Array<Node | ' '> = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item === ' ') {
      parts.push(' ');
      continue;
    }
    if (item.nodeName === '#text' && 'value' in item) {
      parts.push(item.value);
      continue;
    }
    if (!('childNodes' in item)) continue;
    const tag = 'tagName' in item ? item.tagName : null;
    if (tag && SKIPPED_ELEMENTS.has(tag)) continue;
    const block = tag !== null && !INLINE_ELEMENTS.has(tag);
    if (block) stack.push(' ');
    for (let i = item.childNodes.length - 1; i >= 0; i -= 1) stack.push(item.childNodes[i]!);
    if (block) stack.push(' ');
  }
  return parts.join('');
}
