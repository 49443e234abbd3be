/**
 * The README and docs/ link only to what exists: relative links resolve to files of the repository, anchors
 * to headings of their target (as GitHub slugs them), and repository paths in code font exist. No
 * database or Temporal needed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkMarkdown } from '../support/markdown-links.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('README.md and docs/', () => {
  it('has the pages the README lists', () => {
    expect(DOCS).toEqual(
      expect.arrayContaining([
        'docs/agent-interface.md',
        'docs/access.md',
        'docs/architecture.md',
        'docs/operators.md',
        'docs/security.md',
        'docs/testing.md',
        'docs/benchmarks.md',
      ]),
    );
  });

  it('links only to files, headings and paths that exist inside the repository', () => {
    expect(checkMarkdown(ROOT, DOCS)).toEqual([]);
  });
});

describe('the link check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docs-links-'));
    mkdirSync(path.join(dir, 'docs'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'real.ts'), '');
    writeFileSync(
      path.join(dir, 'docs', 'b.md'),
      '# Page B\n\n## A tool call\n\n## A tool call\n\n## OAuth 2.1 & PKCE\n\nSee `src/real.ts` and `src/gone.ts`.\n',
    );
    writeFileSync(
      path.join(dir, 'README.md'),
      [
        '# Title',
        '',
        '[ok](docs/b.md#a-tool-call) [second](docs/b.md#a-tool-call-1) [punctuation](docs/b.md#oauth-21--pkce)',
        '[self](#title) [source](src/real.ts) [web](https://example.com/x.md#nowhere)',
        '',
        '[missing file](docs/c.md) [missing anchor](docs/b.md#a-tool-call-2) [bad self](#nope)',
        '[outside](../elsewhere.md)',
        '',
        '`[not a link](docs/c.md)`',
        '',
        '| table | [in a cell](docs/missing.md) |',
        '| ----- | ---------------------------- |',
        '| x     | y                            |',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports missing files, missing anchors, links out of the repository and missing paths, and nothing else', () => {
    expect(checkMarkdown(dir, ['README.md', 'docs/b.md'])).toEqual([
      'README.md: docs/c.md does not exist',
      'README.md: docs/b.md#a-tool-call-2 names no heading of docs/b.md',
      'README.md: #nope names no heading of README.md',
      'README.md: ../elsewhere.md points outside the repository',
      'README.md: docs/missing.md does not exist',
      'docs/b.md: `src/gone.ts` does not exist',
    ]);
  });
});
