/**
 * The console acts through the tools: every page that reads or changes campaigns, products, surfaces, brand,
 * analytics, jobs or films calls the same tool action an agent would (`callTool`, the one wrapper), as the
 * signed-in person with their workspace role. So the console has no second implementation of any rule: the
 * permission check, the argument schemas, the domain service, the error codes and the audit line (`mcp.<tool>.
 * <selector>`, actor `user:<id>`) are exactly those of the same MCP call.
 *
 * What differs from the MCP edge is only the transport: the answer comes back as the structured result, and
 * an error result becomes the `AppError` it was made from, which the dashboard renders as a notice on the page.
 */
import type { Context } from 'koa';
import type { Principal } from '../../auth/principal.ts';
import type { AuditRecord } from '../../domain/audit/audit.service.ts';
import { actors, workspaceScope } from '../../domain/shared/scope.ts';
import { AppError, isErrorCode } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { callTool } from '../../mcp/call-tool.ts';
import type { McpServices } from '../../mcp/services.ts';
import { ALL_TOOLS, compileCatalogue, PROFILE_SUMMARIES, type CompiledProfile } from '../../mcp/registry.ts';
import { createTaskOperations, type TaskOperations } from '../../mcp/tasks.ts';
import { ERROR_META_KEY } from '../../mcp/tool-result.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Role } from '../../domain/workspaces/roles.ts';
import type { Permission } from '../../auth/permissions.ts';

/** Every tool the platform implements: the console is not limited by a profile (profiles only hide tools). */
const CONSOLE_PROFILE: CompiledProfile = compileCatalogue(ALL_TOOLS, [
  {
    name: 'console',
    description: 'The people console: every tool, with the signed-in person’s role.',
    tools: ALL_TOOLS.map((tool) => tool.name),
    requiresCallCode: false,
  },
]).get('console')!;

/** Who acts in a console request: the signed-in person in the workspace of the page. */
export interface ConsoleCaller {
  userId: string;
  workspace: { id: string; name: string; role: Role };
  requestId: string | null;
}

export interface ToolAnswer<T = Record<string, unknown>> {
  structured: T;
  text: string;
}

export interface ConsoleTools {
  /**
   * Runs `tool` with `args` as `caller`: the same wrapper, permission, schema, service and audit line as an MCP
   * `tools/call`. Resolves with the structured result; an error result rejects with its `AppError`.
   */
  call<T = Record<string, unknown>>(
    caller: ConsoleCaller,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<ToolAnswer<T>>;
  /**
   * The MCP task operations (`tasks.ts`) as `caller`: cancelling a job from the console is the same permission
   * check, service call and audit line as an agent's `tasks/cancel`.
   */
  tasks(caller: ConsoleCaller): TaskOperations;
}

export function createConsoleTools(deps: { orm: MikroORM; services: McpServices; log: Logger }): ConsoleTools {
  /** The signed-in person as the tool server would see them, and the audit writer of their calls. */
  function edgeOf(caller: ConsoleCaller) {
    const principal: Principal = {
      via: 'session',
      workspaceId: caller.workspace.id,
      workspaceName: caller.workspace.name,
      role: caller.workspace.role,
      userId: caller.userId,
      credentialId: `session:${caller.userId}`,
      clientId: null,
      internal: false,
      scopes: [],
    };
    const actor = actors.user(caller.userId);
    return {
      principal,
      scope: () => workspaceScope(deps.orm.em, caller.workspace.id, actor),
      audit: (entry: Omit<AuditRecord, 'workspaceId' | 'actor' | 'requestId'>) =>
        deps.services.audit.record(deps.orm.em.fork(), {
          workspaceId: caller.workspace.id,
          actor,
          ...entry,
          requestId: caller.requestId,
        }),
    };
  }

  return {
    tasks(caller) {
      const { principal, scope, audit } = edgeOf(caller);
      return createTaskOperations({ services: deps.services, scope, principal, audit });
    },

    async call(caller, tool, args) {
      const { principal, scope, audit } = edgeOf(caller);
      const result = await callTool(CONSOLE_PROFILE, tool, args, {
        principal,
        scope: scope(),
        services: deps.services,
        log: deps.log.child({ requestId: caller.requestId, workspaceId: caller.workspace.id, via: 'console' }),
        era: 'modern',
        profile: 'console',
        profileSummaries: PROFILE_SUMMARIES,
        audit,
      });
      if (result.isError) throw errorOf(result._meta?.[ERROR_META_KEY], result.content[0]?.text);
      return {
        structured: (result.structuredContent ?? {}) as never,
        text: result.content[0]?.text ?? '',
      };
    },
  };
}

/** The `AppError` an error result was made from (`toolError` keeps its code, message and details). */
function errorOf(meta: unknown, text: string | undefined): AppError {
  const error = (meta ?? {}) as { code?: unknown; message?: unknown; details?: Record<string, unknown> };
  const code = isErrorCode(error.code) ? error.code : 'internal_error';
  const message = typeof error.message === 'string' ? error.message : (text ?? 'The action failed');
  return new AppError(code, message, error.details);
}

/** What each permission lets a person do, in the words of the members page (for refusals shown to people). */
const PERMISSION_WORDS: Partial<Record<Permission, string>> = {
  'content:write': 'changing campaigns, products, surfaces and the brand kit takes the editor role or above',
  'credits:spend': 'starting paid work (generations, renders, films) takes the editor role or above',
  'credits:manage': 'managing credits takes the owner role',
};

/**
 * The sentence a person sees for a tool's refusal. The tool's message is written for agents (it names the tool
 * and selector, `manage_brand action=update_voice`, and the schema's field paths); a person gets what the role
 * lacks or which fields to fix. The code, the audit line and the status are unchanged.
 */
export function consoleNotice(error: AppError): string {
  // The tool wrapper's refusal names the tool and selector ("… does not allow manage_brand action=update_voice").
  const refusal = /^Your role \((\w+)\) does not allow [a-z_]+ [a-z]+=/.exec(error.message);
  if (error.code === 'forbidden' && refusal) {
    const required = error.details?.requiredPermission as Permission | undefined;
    const why = (required && PERMISSION_WORDS[required]) ?? 'your role does not include it';
    return `Your role (${refusal[1]}) does not allow this: ${why}. A workspace admin can change your role.`;
  }
  if (error.code === 'validation_failed' && error.message.startsWith('Invalid arguments for ')) {
    const issues = error.details?.issues as { field: string; message: string }[] | undefined;
    if (issues?.length) return `Check the form: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`;
  }
  return error.message;
}

/** The console caller of a dashboard request (after `inWorkspace` ran). */
export function consoleCallerOf(ctx: Context): ConsoleCaller {
  const dash = ctx.state.dashboard as { session: { user: { id: string } }; workspace?: ConsoleCaller['workspace'] };
  if (!dash?.workspace) throw new Error('consoleCallerOf needs a workspace page (inWorkspace ran first)');
  return {
    userId: dash.session.user.id,
    workspace: dash.workspace,
    requestId: (ctx.state.requestId as string | undefined) ?? null,
  };
}
