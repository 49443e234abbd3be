/**
 * `npm run docs:generate`: rewrites the generated tables of docs/ (tools, actions, profiles, prompts) from the
 * registry. `--check` writes nothing and exits 1 when a file is stale (the unit test
 * `test/unit/docs-generated.test.ts` makes the same comparison in `npm test`).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, renderAll } from './docs-tables.ts';

const check = process.argv.includes('--check');
let stale = 0;
for (const { file, current, expected } of await renderAll()) {
  if (current === expected) continue;
  stale++;
  if (check) console.error(`${file} is stale: run npm run docs:generate`);
  else {
    await writeFile(path.join(REPO_ROOT, file), expected);
    console.log(`${file} rewritten`);
  }
}
if (!stale) console.log('docs: generated tables are up to date');
process.exit(check && stale ? 1 : 0);
