/**
 * The tables of docs/ that describe the tool catalogue, rendered from the same data the server answers from
 * (the registry, the profiles, the prompts and the resources compiled per profile), so the docs cannot drift
 * from `tools/list`. Each table sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in a
 * markdown file; `npm run docs:generate` rewrites them and `test/unit/docs-generated.test.ts` fails when a
 * committed file differs from what this renders.
 *
 * Pure: reads no environment, opens no connection (the registry compiles its schemas at import, nothing more).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { ROLE_PERMISSIONS, type Permission } from '../src/auth/permissions.ts';
import type { Role } from '../src/domain/workspaces/roles.ts';
import type { ToolDefinition } from '../src/mcp/define-tool.ts';
import { PROFILES, type ProfileDefinition } from '../src/mcp/profiles.ts';
import { PROMPTS, promptsFor } from '../src/mcp/prompts.ts';
import { ALL_TOOLS, CATALOGUE } from '../src/mcp/registry.ts';
import { compileResources } from '../src/mcp/resources.ts';
import { INSPECTOR_URI } from '../src/mcp/ui/inspector-meta.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every file with generated sections, relative to the repository root. */
export const GENERATED_FILES = ['docs/agent-interface.md'] as const;

const ROLES_LOW_TO_HIGH: readonly Role[] = ['viewer', 'editor', 'admin', 'owner'];

const code = (text: string) => `\`${text}\``;
/** A table cell: pipes would end the cell, line breaks the row. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The lowest role that holds a permission (roles are cumulative). */
function lowestRole(permission: Permission): Role {
  const role = ROLES_LOW_TO_HIGH.find((r) => ROLE_PERMISSIONS[r].has(permission));
  if (!role) throw new Error(`no role holds ${permission}`);
  return role;
}

/** The first sentence of a tool's description: what it does, before the advice to agents. */
function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text);
  return match ? match[1]! : text;
}

function annotationsOf(tool: ToolDefinition): string {
  const { destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  const hints = [destructiveHint && 'destructive', idempotentHint && 'idempotent', openWorldHint && 'open-world'];
  return hints.filter(Boolean).join(', ') || '—';
}

/** The profiles that show a tool, or the few that do not when that is shorter to read. */
function profilesShowing(tool: string): string {
  const showing = PROFILES.filter((profile) => CATALOGUE.get(profile.name)!.tools.has(tool));
  const hiding = PROFILES.filter((profile) => !showing.includes(profile));
  if (hiding.length === 0) return 'all';
  if (hiding.length < showing.length) return `all but ${hiding.map((profile) => code(profile.name)).join(', ')}`;
  return showing.map((profile) => code(profile.name)).join(', ');
}

function renderTools(): string {
  return table(
    ['Tool', 'Group', 'Access', 'Annotations', 'What it does', 'Profiles'],
    ALL_TOOLS.map((tool) => [
      code(tool.name),
      tool.toolset,
      tool.annotations.readOnlyHint ? 'read' : 'write',
      annotationsOf(tool),
      firstSentence(tool.description),
      profilesShowing(tool.name),
    ]),
  );
}

function renderActions(): string {
  const rows = ALL_TOOLS.flatMap((tool) =>
    Object.entries(tool.actions).map(([value, action]) => [
      code(tool.name),
      code(`${tool.selector}=${value}`),
      `${code(action.permission)} (${lowestRole(action.permission)})`,
      action.internalOnly
        ? `deprecated, internal clients only (others are told to use ${code(action.internalOnly.useInstead)}): ${action.summary}`
        : action.summary,
    ]),
  );
  return table(['Tool', 'Selector', 'Permission (lowest role)', 'What it does'], rows);
}

function selectedBy(profile: ProfileDefinition): string {
  if (profile.name === 'external_default') return 'default (no parameter)';
  return profile.requiresCallCode ? 'call code' : 'fallback (a profile name, an unknown or revoked code)';
}

function resourcesOf(profile: ProfileDefinition): string {
  const compiled = compileResources(CATALOGUE.get(profile.name)!);
  const uris = ['svc://capabilities', ...compiled.templates.map((t) => t.uriTemplate)];
  if (compiled.showsInspector) uris.push(INSPECTOR_URI);
  return uris.map(code).join(', ');
}

function renderProfiles(): string {
  return table(
    ['Profile', 'Selected by', 'For', 'Tools', 'Prompts', 'Resources', 'Task tools'],
    PROFILES.map((profile) => {
      const compiled = CATALOGUE.get(profile.name)!;
      const visible = new Set(compiled.tools.keys());
      const tasks = compileResources(compiled).taskTools;
      return [
        code(profile.name),
        selectedBy(profile),
        profile.description,
        [...visible].map(code).join(', '),
        promptsFor(visible)
          .map((p) => code(p.name))
          .join(', ') || '—',
        resourcesOf(profile),
        tasks.map(code).join(', ') || '—',
      ];
    }),
  );
}

function renderPrompts(): string {
  return table(
    ['Prompt', 'What it does', 'Arguments (* required)', 'Tools it calls (listed only where all are visible)'],
    PROMPTS.map((prompt) => [
      code(prompt.name),
      prompt.description,
      prompt.arguments.map((a) => code(a.name) + (a.required ? '\\*' : '')).join(', ') || '—',
      prompt.tools.map(code).join(', '),
    ]),
  );
}

export const SECTIONS: Record<string, () => string> = {
  tools: renderTools,
  actions: renderActions,
  profiles: renderProfiles,
  prompts: renderPrompts,
};

/**
 * The file with every generated section replaced by a fresh render, formatted by prettier with the project's
 * settings (the check compares bytes, and `npm test` runs prettier's check over the same file).
 */
export async function renderFile(relativePath: string, text: string): Promise<string> {
  let out = text;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    if (start < 0) continue;
    const end = out.indexOf(close, start);
    if (end < 0) throw new Error(`${relativePath}: ${open} has no ${close}`);
    const note = `<!-- Generated by \`npm run docs:generate\` from the registry; do not edit by hand. -->`;
    out = `${out.slice(0, start)}${open}\n\n${note}\n\n${render()}\n\n${out.slice(end)}`;
  }
  const filepath = path.join(REPO_ROOT, relativePath);
  const options = await prettier.resolveConfig(filepath);
  return prettier.format(out, { ...options, filepath });
}

/** Each generated file: its committed text and what it should be. */
export async function renderAll(): Promise<{ file: string; current: string; expected: string }[]> {
  return Promise.all(
    GENERATED_FILES.map(async (file) => {
      const current = await readFile(path.join(REPO_ROOT, file), 'utf8');
      return { file, current, expected: await renderFile(file, current) };
    }),
  );
}
