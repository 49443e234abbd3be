/**
 * THE tool wrapper: every `tools/call` goes through here, so policy lives in one place.
 *
 * 1. find the tool in the caller's profile (unknown → JSON-RPC invalid params, per the spec);
 * 2. parse the flat arguments, pick the action by the selector;
 * 3. refuse deprecated internal-only actions for external clients, naming the tool to use;
 * 4. check the role's permission for the action;
 * 5. parse the action's own schema;
 * 6. run it against the workspace scope, and map the outcome to a result or a safe error.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { can } from '../auth/permissions.ts';
import type { ToolContext } from './define-tool.ts';
import type { CompiledProfile } from './registry.ts';
import { toToolError, toToolResult, toolError, type ToolResult } from './tool-result.ts';

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
  const tool = profile.tools.get(name);
  if (!tool) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  const definition = tool.definition;
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
  if (!can(ctx.principal.role, action.permission)) {
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
    return toToolResult(await action.run(ctx, parsed.data as never));
  } catch (error) {
    return toToolError(error, ctx.log, { tool: name, selector: selectorValue, workspaceId: ctx.scope.workspaceId });
  }
}
