/**
 * The tool wrapper's policy, on a small tool defined here: per-action permissions (a viewer cannot mutate),
 * the deprecation gate for external clients, flat and per-action validation, unknown tools, and errors that
 * never carry raw exception text.
 */
import { z } from 'zod';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { Principal } from '../../src/auth/principal.ts';
import { callTool } from '../../src/mcp/call-tool.ts';
import { defineAction, defineTool, type ToolContext } from '../../src/mcp/define-tool.ts';
import { compileCatalogue } from '../../src/mcp/registry.ts';
import { createLogger } from '../../src/logger.ts';
import { ConflictError } from '../../src/errors.ts';

const calls: string[] = [];
const probe = defineTool({
  name: 'manage_probe',
  toolset: 'test',
  description: 'A probe tool.',
  annotations: {
    title: 'Probe',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(['read', 'write', 'legacy_read', 'boom', 'conflict']),
    name: z.string().optional(),
  }),
  output: z.object({ ok: z.boolean() }),
  actions: {
    read: defineAction({
      summary: 'reads',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('read') }),
      run: async () => ({ structured: { ok: true } }),
    }),
    write: defineAction({
      summary: 'writes',
      permission: 'content:write',
      input: z.object({ action: z.literal('write'), name: z.string().min(3, 'must be at least 3 characters') }),
      run: async (_ctx, args) => {
        calls.push(args.name);
        return { structured: { ok: true } };
      },
    }),
    legacy_read: defineAction({
      summary: 'old read',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('legacy_read') }),
      internalOnly: { useInstead: 'query_probe' },
      run: async () => ({ structured: { ok: true } }),
    }),
    boom: defineAction({
      summary: 'fails',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('boom') }),
      run: async () => {
        throw new Error('connection string postgres://secret@db leaked');
      },
    }),
    conflict: defineAction({
      summary: 'conflicts',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('conflict') }),
      run: async () => {
        throw new ConflictError('Campaign is already published');
      },
    }),
  },
});

const profile = compileCatalogue(
  [probe],
  [{ name: 'test', description: '', tools: ['manage_probe'], requiresCallCode: false }],
).get('test')!;

const auditLog: Parameters<ToolContext['audit']>[0][] = [];

function ctx(role: Principal['role'], internal = false): ToolContext {
  return {
    principal: {
      via: 'api_key',
      workspaceId: 'ws_1',
      workspaceName: 'Acme',
      role,
      userId: null,
      credentialId: 'key:1',
      clientId: null,
      internal,
      scopes: [],
    },
    scope: { workspaceId: 'ws_1', em: undefined as never, actor: 'key:1' },
    services: undefined as never,
    log: createLogger({ level: 'silent', name: 'test' }),
    era: 'legacy',
    profile: 'test',
    profileSummaries: [],
    audit: async (entry) => {
      auditLog.push(entry);
    },
  };
}

const errorOf = (result: { _meta?: Record<string, unknown> }) =>
  result._meta?.['io.campaign-platform/error'] as { code: string; message: string };

it('refuses a mutation by a viewer and runs nothing', async () => {
  const result = await callTool(profile, 'manage_probe', { action: 'write', name: 'abcd' }, ctx('viewer'));
  expect(result.isError).toBe(true);
  expect(errorOf(result)).toMatchObject({
    code: 'forbidden',
    message: 'Your role (viewer) does not allow manage_probe action=write',
  });
  expect(calls).toEqual([]);
  expect((await callTool(profile, 'manage_probe', { action: 'read' }, ctx('viewer'))).isError).toBeUndefined();
  expect(
    (await callTool(profile, 'manage_probe', { action: 'write', name: 'abcd' }, ctx('editor'))).isError,
  ).toBeUndefined();
  expect(calls).toEqual(['abcd']);
});

it('keeps deprecated reads for verified internal clients only, naming the tool to use', async () => {
  const external = await callTool(profile, 'manage_probe', { action: 'legacy_read' }, ctx('owner'));
  expect(errorOf(external)).toMatchObject({ code: 'deprecated_action' });
  expect(external.content[0]!.text).toContain('use query_probe instead');
  expect(
    (await callTool(profile, 'manage_probe', { action: 'legacy_read' }, ctx('owner', true))).isError,
  ).toBeUndefined();
});

it('validates flat and per-action arguments with field-level messages', async () => {
  const unknown = await callTool(profile, 'manage_probe', { action: 'write', name: 'abcd', extra: 1 }, ctx('owner'));
  expect(errorOf(unknown).code).toBe('validation_failed');
  expect(unknown.content[0]!.text).toContain('unknown argument(s): extra');
  const short = await callTool(profile, 'manage_probe', { action: 'write', name: 'ab' }, ctx('owner'));
  expect(short.content[0]!.text).toBe(
    'validation_failed: Invalid arguments for manage_probe action=write: name: must be at least 3 characters',
  );
  const noSelector = await callTool(profile, 'manage_probe', {}, ctx('owner'));
  expect(errorOf(noSelector).code).toBe('validation_failed');
});

it('answers an unknown tool with a protocol error', async () => {
  await expect(callTool(profile, 'nope', {}, ctx('owner'))).rejects.toBeInstanceOf(ProtocolError);
});

it('never lets raw exception text out; domain errors keep their code and message', async () => {
  const boom = await callTool(profile, 'manage_probe', { action: 'boom' }, ctx('owner'));
  expect(errorOf(boom).code).toBe('internal_error');
  expect(boom.content[0]!.text).not.toContain('postgres://');
  expect(boom.content[0]!.text).toMatch(/Reference: [0-9a-f-]{36}$/);
  const conflict = await callTool(profile, 'manage_probe', { action: 'conflict' }, ctx('owner'));
  expect(conflict.content[0]!.text).toBe('conflict: Campaign is already published');
});

it('audits every mutation attempt with its outcome, echoes the workspace on success, and never audits reads', async () => {
  auditLog.length = 0;
  await callTool(profile, 'manage_probe', { action: 'read' }, ctx('owner'));
  await callTool(profile, 'manage_probe', { action: 'legacy_read' }, ctx('owner', true));
  expect(auditLog).toEqual([]);
  const done = await callTool(profile, 'manage_probe', { action: 'write', name: 'abcd' }, ctx('editor'));
  expect(done.structuredContent).toEqual({ ok: true, workspace: { id: 'ws_1', name: 'Acme' } });
  expect(done.content[0]!.text).toBe('[Acme] {"ok":true}');
  await callTool(profile, 'manage_probe', { action: 'write', name: 'abcd' }, ctx('viewer'));
  await callTool(profile, 'manage_probe', { action: 'conflict' }, ctx('owner'));
  expect(auditLog.map((entry) => [entry.action, entry.outcome])).toEqual([
    ['mcp.manage_probe.write', 'success'],
    ['mcp.manage_probe.write', 'denied'],
  ]);
});

it('refuses the NUL character anywhere in the arguments, naming the field', async () => {
  const result = await callTool(profile, 'manage_probe', { action: 'write', name: 'ab\u0000cd' }, ctx('owner'));
  expect(result.content[0]!.text).toBe(
    'validation_failed: Invalid arguments for manage_probe: name: must not contain the NUL character (U+0000)',
  );
  const nested = await callTool(
    profile,
    'manage_probe',
    { action: 'write', name: 'abcd', deep: [{ 'k\u0000': 1 }] },
    ctx('owner'),
  );
  expect(nested.content[0]!.text).toContain('deep.0.k\u0000: must not contain the NUL character');
});
