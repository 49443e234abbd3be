/**
 * The tool, action, profile and prompt tables of docs/ are what the registry says today: rendered from the
 * compiled catalogue (no database, no Temporal) and compared byte for byte with the committed files. When
 * this fails, run `npm run docs:generate` and commit the result.
 */
import { GENERATED_FILES, SECTIONS, renderAll, renderFile } from '../../scripts/docs-tables.ts';
import { DEFAULT_TOOLS, PROFILES } from '../../src/mcp/profiles.ts';
import { PROMPTS } from '../../src/mcp/prompts.ts';

describe('generated docs tables', () => {
  it('match the registry (run `npm run docs:generate` when this fails)', async () => {
    for (const { file, current, expected } of await renderAll()) {
      expect({ file, text: current }).toEqual({ file, text: expected });
    }
  });

  it('each section is present exactly once in the generated files', async () => {
    const texts = (await renderAll()).map((f) => f.current).join('\n');
    for (const name of Object.keys(SECTIONS)) {
      expect(texts.split(`<!-- generated:${name} -->`)).toHaveLength(2);
    }
  });

  it('name every tool, profile and prompt', () => {
    const tools = SECTIONS.tools!();
    const profiles = SECTIONS.profiles!();
    const prompts = SECTIONS.prompts!();
    for (const tool of DEFAULT_TOOLS) expect(tools).toContain(`| \`${tool}\``);
    for (const profile of PROFILES) expect(profiles).toContain(`| \`${profile.name}\``);
    for (const prompt of PROMPTS) expect(prompts).toContain(`| \`${prompt.name}\``);
  });

  it('a stale table is rewritten, so the comparison above fails on it', async () => {
    const file = GENERATED_FILES[0];
    const { current } = (await renderAll())[0]!;
    // What a hand edit or a registry change leaves behind: a row the registry no longer has.
    const stale = current.replace('| `query_campaigns`', '| `query_campaigns_old`');
    expect(stale).not.toBe(current);
    await expect(renderFile(file, stale)).resolves.toBe(current);
  });
});
