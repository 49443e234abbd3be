/**
 * Checks the repository's markdown the way GitHub renders it: every relative link points at a file of the
 * repository, every `#anchor` at a heading of its target (slugged as GitHub does, by github-slugger), and
 * every repository path written in code font exists. Markdown is parsed by marked's lexer (GFM tables included), so
 * links in code spans and code blocks are not taken for links.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, walkTokens, type Token, type TokensList } from 'marked';

export function parseMarkdown(text: string): TokensList {
  return Lexer.lex(text, { gfm: true });
}

/** The text a reader sees in a token (what GitHub slugs a heading from). */
function plainText(token: Token): string {
  if ('tokens' in token && Array.isArray(token.tokens) && token.tokens.length)
    return (token.tokens as Token[]).map(plainText).join('');
  return 'text' in token && typeof token.text === 'string' ? token.text : '';
}

/** The anchors GitHub gives a document's headings (a repeated heading gets `-1`, `-2`, …). */
export function anchorsOf(tokens: TokensList): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walkTokens(tokens, (token) => {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText(token)));
  });
  return anchors;
}

/** Every link target: inline links and images, table cells included, and reference definitions. */
function linksOf(tokens: TokensList): string[] {
  const links: string[] = [];
  walkTokens(tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') links.push(token.href as string);
  });
  for (const definition of Object.values(tokens.links)) links.push(definition.href);
  return links;
}

/** Top-level folders whose paths the docs name in code font (`src/mcp/registry.ts`, `test/integration/`). */
const REPO_PATH = /^(src|test|scripts|bench|workflows|activities|deploy|bin|docs)\/[\w./@-]*$/;

function codePathsOf(tokens: TokensList): string[] {
  const paths: string[] = [];
  walkTokens(tokens, (token) => {
    if (token.type === 'codespan' && REPO_PATH.test(token.text as string)) paths.push(token.text as string);
  });
  return paths;
}

const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Every problem found in the given markdown files (paths relative to `root`), as `file: message`.
 * An empty list means every link, anchor and named path resolves inside the repository.
 */
export function checkMarkdown(root: string, files: readonly string[]): string[] {
  const trees = new Map<string, TokensList>();
  const treeOf = (file: string) => {
    let tree = trees.get(file);
    if (!tree) trees.set(file, (tree = parseMarkdown(readFileSync(file, 'utf8'))));
    return tree;
  };
  const rootDir = path.resolve(root);
  const problems: string[] = [];
  for (const relative of files) {
    const file = path.resolve(rootDir, relative);
    const tree = treeOf(file);
    for (const link of linksOf(tree)) {
      if (EXTERNAL.test(link)) continue;
      const hash = link.indexOf('#');
      const target = decodeURIComponent(hash < 0 ? link : link.slice(0, hash));
      const anchor = hash < 0 ? undefined : link.slice(hash + 1);
      const resolved = target ? path.resolve(path.dirname(file), target) : file;
      if (resolved !== rootDir && !resolved.startsWith(rootDir + path.sep)) {
        problems.push(`${relative}: ${link} points outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${relative}: ${link} does not exist`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(treeOf(resolved)).has(anchor)) {
        problems.push(`${relative}: ${link} names no heading of ${path.relative(rootDir, resolved)}`);
      }
    }
    for (const named of codePathsOf(tree)) {
      if (!existsSync(path.resolve(rootDir, named))) problems.push(`${relative}: \`${named}\` does not exist`);
    }
  }
  return problems;
}
