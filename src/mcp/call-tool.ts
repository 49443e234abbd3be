/**
 * THE tool wrapper: every `tools/call` goes through here, so policy lives in one place.
 *
 * 1. find the tool in the caller's profile (unknown → JSON-RPC invalid params, per the spec);
 * 2. parse the flat arguments, pick the action by the selector;
 * 3. refuse deprecated internal-only actions for external clients, naming the tool to use;
 * 4. check the role's permission for the action;
 * 5. parse the action's own schema;
 * 6. run it against the workspace scope, and map the outcome to a result or a safe error;
 * 7. for mutations: echo the workspace in the result and append the outcome to the audit log.
 *
 * While tracing is on, each call is a span `tools/call <tool>` (docs/tracing.md) with the tool, the action
 * and the outcome's error code, never the arguments.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { activeTracer, inSpan, markFailed } from '../tracing/spans.ts';
import { can } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import type { ToolContext, ToolOutput } from './define-tool.ts';
import type { CompiledProfile } from './registry.ts';
import { ERROR_META_KEY, toToolError, toToolResult, toolError, type ToolResult } from './tool-result.ts';

function describeIssues(error: z.ZodError): { issues: { field: string; message: string }[]; text: string } {
  const issues = error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(arguments)',
    message: issue.code === 'unrecognized_keys' ? `unknown argument(s): ${issue.keys.join(', ')}` : issue.message,
  }));
  return { issues, text: issues.map((i) => `${i.field}: ${i.message}`).join('; ') };
}

export async function callTool(
  profile: CompiledProfile,
  name: string,
  rawArguments: unknown,
  ctx: ToolContext,
): Promise<ToolResult> {
  const tool = activeTracer() ? profile.tools.get(name) : undefined;
  // Untraced (tracing off), and so is a call to an unknown tool: its name is the client's string, not ours.
  if (!tool) return runToolCall(profile, name, rawArguments, ctx);
  const { selector, actions } = tool.definition;
  const chosen = (rawArguments as Record<string, unknown> | null | undefined)?.[selector];
  const action = typeof chosen === 'string' && Object.hasOwn(actions, chosen) ? chosen : null;
  return inSpan(
    `tools/call ${name}`,
    {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'mcp.profile': profile.profile.name,
      ...(action ? { 'mcp.tool.action': action } : {}),
    },
    async (span) => {
      const result = await runToolCall(profile, name, rawArguments, ctx);
      if (result.isError && span) {
        const code = (result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined)?.code;
        markFailed(span, null, typeof code === 'string' ? code : 'tool_error');
      }
      return result;
    },
  );
}

async function runToolCall(
  profile: CompiledProfile,
  name: string,
  rawArguments: unknown,
  ctx: ToolContext,
): Promise<ToolResult> {
  const tool = profile.tools.get(name);
  if (!tool) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  const definition = tool.definition;
  const nul = pathOfNulCharacter(rawArguments);
  if (nul !== null) {
    // PostgreSQL text cannot hold U+0000; refuse it up front with the field instead of failing deep inside.
    return toolError(
      'validation_failed',
      `Invalid arguments for ${name}: ${nul || '(arguments)'}: must not contain the NUL character (U+0000)`,
      {
        issues: [{ field: nul || '(arguments)', message: 'must not contain the NUL character (U+0000)' }],
      },
    );
  }
  const flat = tool.flatInput.safeParse(rawArguments ?? {});
  if (!flat.success) {
    const { issues, text } = describeIssues(flat.error);
    return toolError('validation_failed', `Invalid arguments for ${name}: ${text}`, { issues });
  }
  const selectorValue = (flat.data as Record<string, unknown>)[definition.selector];
  const action = typeof selectorValue === 'string' ? definition.actions[selectorValue] : undefined;
  if (!action) {
    return toolError('validation_failed', `Invalid arguments for ${name}: ${definition.selector} is required`);
  }
  if (action.internalOnly && !ctx.principal.internal) {
    return toolError(
      'deprecated_action',
      `${name} ${definition.selector}=${String(selectorValue)} is deprecated for external clients; use ${action.internalOnly.useInstead} instead`,
      { useInstead: action.internalOnly.useInstead },
    );
  }
  // Reads (including deprecated read actions left on mutating tools) are neither audited nor echoed.
  const mutation = !definition.annotations.readOnlyHint && action.permission !== 'workspace:read';
  const audit = async (outcome: 'success' | 'denied' | 'failed', details: Record<string, unknown>) => {
    if (!mutation) return;
    const target = targetOf(flat.data as Record<string, unknown>);
    await ctx
      .audit({
        action: `mcp.${name}.${String(selectorValue)}`,
        targetType: target?.type ?? null,
        targetId: target?.id ?? null,
        outcome,
        details,
      })
      .catch((error: unknown) => ctx.log.error({ err: error }, 'audit write failed'));
  };
  if (!can(ctx.principal.role, action.permission)) {
    await audit('denied', { reason: 'role', role: ctx.principal.role });
    return toolError(
      'forbidden',
      `Your role (${ctx.principal.role}) does not allow ${name} ${definition.selector}=${String(selectorValue)}`,
      { requiredPermission: action.permission },
    );
  }
  const parsed = action.input.safeParse(flat.data);
  if (!parsed.success) {
    const { issues, text } = describeIssues(parsed.error);
    return toolError(
      'validation_failed',
      `Invalid arguments for ${name} ${definition.selector}=${String(selectorValue)}: ${text}`,
      {
        issues,
      },
    );
  }
  try {
    const output = await action.run(ctx, parsed.data as never);
    if (output.job) ctx.onJob?.(output.job);
    if (!mutation) return toToolResult(output);
    await audit('success', auditDetailsOf(output.structured));
    return toToolResult(withWorkspaceEcho(output, ctx.principal));
  } catch (error) {
    const result = toToolError(error, ctx.log, {
      tool: name,
      selector: selectorValue,
      workspaceId: ctx.scope.workspaceId,
    });
    const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
    await audit('failed', { code });
    return result;
  }
}

/**
 * A mutation's output as clients get it (spec recipe 4): `workspace: {id, name}` in the structured result and
 * the text led by `[Workspace name]`. Also used for the result of a task a mutation started (`tasks.ts`).
 */
export function withWorkspaceEcho(
  output: ToolOutput,
  principal: Pick<Principal, 'workspaceId' | 'workspaceName'>,
): ToolOutput {
  const workspace = { id: principal.workspaceId, name: principal.workspaceName };
  return {
    structured: { ...output.structured, workspace },
    text: `[${workspace.name}] ${output.text ?? JSON.stringify(output.structured)}`,
  };
}

/** The dotted path of the first string (or key) holding U+0000, or null; bounded depth keeps it cheap. */
function pathOfNulCharacter(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (!value || typeof value !== 'object' || depth > 32) return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return childPath;
    const found = pathOfNulCharacter(child, childPath, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

const TARGET_FIELDS: [string, string][] = [
  ['variantId', 'variant'],
  ['deploymentId', 'deployment'],
  ['campaignId', 'campaign'],
  ['productId', 'product'],
  ['surfaceId', 'surface'],
  ['zoneId', 'zone'],
  ['commissionId', 'commission'],
  ['jobId', 'job'],
];

/** The most specific entity an action names, for the audit log. */
function targetOf(args: Record<string, unknown>): { type: string; id: string } | null {
  for (const [field, type] of TARGET_FIELDS) {
    if (typeof args[field] === 'string') return { type, id: args[field] as string };
  }
  return null;
}

/** A small, safe summary of what a mutation produced (ids only). */
function auditDetailsOf(structured: Record<string, unknown>): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(structured)) {
    if (value && typeof value === 'object' && 'id' in value && typeof (value as { id: unknown }).id === 'string') {
      details[`${key}Id`] = (value as { id: string }).id;
    }
  }
  return details;
}
