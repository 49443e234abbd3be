/**
 * Builds the MCP server that answers one request, on the SDK's low-level `Server`.
 *
 * Why low-level: `tools/list` answers a list compiled once at boot (no per-request schema conversion) and
 * `tools/call` goes through our single wrapper. A fresh `Server` is built per request (cheap: no
 * registrations, just handlers), so no state — and no JSON-RPC id — is ever shared between two clients.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { workspaceScope, type WorkspaceScope } from '../domain/shared/scope.ts';
import { z } from 'zod';
import type { Job } from '../domain/jobs/job.entity.ts';
import { AppError, ERROR_TABLE } from '../errors.ts';
import { actorOf, type Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import { NO_METRICS, type Metrics } from '../observability/metrics.ts';
import { PLATFORM_NAME, PLATFORM_VERSION } from '../version.ts';
import { callTool } from './call-tool.ts';
import { ERROR_META_KEY } from './tool-result.ts';
import type { ToolContext } from './define-tool.ts';
import { getPrompt, promptListing } from './prompts.ts';
import { CATALOGUE, PROFILE_SUMMARIES, type CompiledProfile } from './registry.ts';
import { INSPECTOR_MIME, inspectorHtml, UI_EXTENSION } from './ui/campaign-inspector.ts';
import { compileResources, listResources, readResource, type CompiledResources } from './resources.ts';
import type { McpServices } from './services.ts';
import { createTaskOperations, createTaskResult, TASKS_EXTENSION, TASK_TOOLS, wantsTask } from './tasks.ts';

/** The issues of a failed zod validation, when `message` is one (the SDK throws them as plain JSON text). */
function validationIssues(message: string): { path: (string | number)[]; message: string }[] | null {
  if (!message.trimStart().startsWith('[')) return null;
  try {
    const issues = JSON.parse(message) as unknown;
    const wellFormed =
      Array.isArray(issues) &&
      issues.length > 0 &&
      issues.every((issue) => typeof issue === 'object' && issue !== null && Array.isArray(issue.path));
    return wellFormed ? (issues as { path: (string | number)[]; message: string }[]) : null;
  } catch {
    return null;
  }
}

function describeIssues(issues: { path: (string | number)[]; message: string }[]): string {
  return issues.map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`).join('; ');
}

/**
 * The MCP edge for protocol errors (tool calls answer `isError` results instead: `tool-result.ts`): what a
 * failed request handler may tell the client. DO NOT let raw exception text out: the SDK answers any error
 * that is not a `ProtocolError` as "internal error" with the error's own message, which for a request the
 * SDK's schema refused is a dump of validation issues, and for a failure of ours could be anything (SQL,
 * addresses). Domain errors keep their safe message and their stable code (`data.code`, with the JSON-RPC
 * code of `ERROR_TABLE`); an entity a resource URI names that is not there is the spec's resource-not-found
 * error; refused params get a readable message; anything else is logged and answered with a reference id only.
 */
export function safeProtocolError(
  method: string,
  error: unknown,
  log: Logger | undefined,
  params?: Record<string, unknown>,
): ProtocolError {
  if (error instanceof ProtocolError) {
    // The SDK's own refusals of malformed requests append the raw issue list to a prefix; keep the prefix.
    const dumped = /^([^[]*?): (\[[\s\S]*\])$/.exec(error.message);
    const issues = dumped ? validationIssues(dumped[2]!) : null;
    return issues ? new ProtocolError(error.code, `${dumped![1]}: ${describeIssues(issues)}`, error.data) : error;
  }
  if (error instanceof AppError) {
    if (method === 'resources/read' && error.code === 'not_found' && typeof params?.uri === 'string') {
      // Which entity is missing is not said: another workspace's resource is simply not there.
      return new ResourceNotFoundError(params.uri);
    }
    return new ProtocolError(ERROR_TABLE[error.code].jsonRpc, error.message, { code: error.code, ...error.details });
  }
  const issues = error instanceof Error ? validationIssues(error.message) : null;
  if (issues)
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid ${method} request: ${describeIssues(issues)}`);
  const reference = randomUUID();
  log?.error({ err: error, reference, method }, 'MCP request handler failed');
  return new ProtocolError(ProtocolErrorCode.InternalError, `Internal error. Reference: ${reference}`);
}

/** The request context a handler is given; its `mcpReq.signal` is one object per request (see `taskCreated`). */
type HandlerContext = Parameters<ReturnType<Server['_wrapHandler']>>[1];

/**
 * The SDK's `Server`, with two changes to what leaves a request handler: a task-creation result gets out of
 * `tools/call`, and every error becomes a safe protocol error (`safeProtocolError`). Everything else is the
 * SDK's own behaviour.
 *
 * Why the task result needs a side door: the SDK (v2.4, `Server._wrapHandler` for `tools/call`) validates every
 * value a tools/call handler returns against CallToolResult and has no server-side task support, and a
 * `CreateTaskResult` (2025) or a `resultType: "task"` result (2026) is not a CallToolResult. So the handler
 * returns `taskCreated(ctx, result)` — an empty CallToolResult that passes that check — and this wrapper, outside
 * the SDK's, returns the recorded task result in its place. Nothing is thrown.
 */
class PlatformServer extends Server {
  /**
   * The request's logger, built on first use (a pino child with its bindings costs ~13 µs, and most requests
   * log nothing). Set after construction (the SDK registers its own handlers from its constructor, before
   * fields exist).
   */
  log: (() => Logger) | undefined;
  /**
   * Task results of tools/call requests in flight, by the request's abort signal: one object per request (the
   * SDK keeps it, as it keeps its abort controllers, per request), carried through the SDK's copies of ctx.
   */
  private readonly createdTasks = new WeakMap<AbortSignal, Record<string, unknown>>();

  /** What a tools/call handler returns when the call created a task: `result` is what the client gets. */
  taskCreated(ctx: HandlerContext, result: Record<string, unknown>): { content: [] } {
    this.createdTasks.set(ctx.mcpReq.signal, result);
    return { content: [] };
  }

  /**
   * Every close builds the SDK's "Connection closed" error (v2.4, `Protocol._onclose`), to reject what is
   * still pending on the connection — and a per-request server is closed after every answer, when nothing is.
   * Capturing that error's stack was ~30 µs of CPU per request (2% of a tool call), so it is built without
   * one: its code and message are all a pending handler (a client gone mid-request) ever reads of it. What the
   * close calls back (the SDK's exchange bookkeeping, abort listeners) runs in the same window.
   */
  protected override _onclose(): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        const result = await wrapped(request, ctx);
        const task = method === 'tools/call' ? this.createdTasks.get(ctx.mcpReq.signal) : undefined;
        return (task ?? result) as typeof result;
      } catch (error) {
        throw safeProtocolError(method, error, this.log?.(), (request as { params?: Record<string, unknown> }).params);
      } finally {
        this.createdTasks.delete(ctx.mcpReq.signal);
      }
    };
  }
}

const TaskIdParams = z.looseObject({ taskId: z.string().max(100) });

/** A server's `capabilities.extensions`: extension id → its settings (JSON). */
type ServerExtensions = Record<string, { [key: string]: string[] }>;

/** What the HTTP edge hands to the factory through `authInfo.extra`. */
export interface McpCallerInfo {
  [key: string]: unknown;
  principal: Principal;
  profile: string;
  requestId: string;
}

export const SERVER_INSTRUCTIONS = [
  'This server manages marketing campaigns for exactly one workspace (the one this connection is bound to).',
  'Ground rules: query before managing; confirm with the user before any create, delete, publish or deploy and',
  'before anything that costs credits; poll long jobs instead of starting them again.',
  'Call get_platform_info with topic "organization" first and tell the user which workspace you act on.',
].join(' ');

export interface McpServerFactoryDeps {
  orm: MikroORM;
  services: McpServices;
  log: Logger;
  catalogue?: ReadonlyMap<string, CompiledProfile>;
  /** Where tool calls are counted (by tool, action, era and outcome). */
  metrics?: Pick<Metrics, 'toolCall'>;
}

export function createMcpServerFactory(deps: McpServerFactoryDeps) {
  const catalogue = deps.catalogue ?? CATALOGUE;
  const metrics = deps.metrics ?? NO_METRICS;
  // Per profile, once: which prompts, resource templates and flows it shows, and their listings.
  const compiled = new Map<
    string,
    {
      resources: CompiledResources;
      promptListing: ReturnType<typeof promptListing>[];
      /** The 2025-era listing: long tools declare optional task support (`execution.taskSupport`). */
      legacyListing: CompiledProfile['listing'];
      /** `capabilities.extensions` per era (the 2025 `initialize` result; the 2026 `server/discover` result). */
      legacyExtensions: ServerExtensions;
      modernExtensions: ServerExtensions;
    }
  >();
  for (const [name, profile] of catalogue) {
    const resources = compileResources(profile);
    if (resources.showsInspector) inspectorHtml(); // build the widget page at boot: a broken bundle fails here, not on a read
    const legacyListing = profile.listing.map((tool) =>
      TASK_TOOLS.includes(tool.name) ? { ...tool, execution: { taskSupport: 'optional' as const } } : tool,
    );
    // MCP Apps (`io.modelcontextprotocol/ui`) wherever the profile shows the widget, in both eras: clients of
    // either look for it in `capabilities.extensions` (SEP-2133; the 2025 schema has no member for it, but
    // clients of that era read it there too). The settings name the UI resource type this server serves, in
    // the shape hosts advertise theirs (ext-apps `McpUiClientCapabilities`). The tasks extension is defined
    // for 2026-07-28 only; 2025 clients negotiate tasks through `capabilities.tasks` instead.
    const ui: ServerExtensions = resources.showsInspector ? { [UI_EXTENSION]: { mimeTypes: [INSPECTOR_MIME] } } : {};
    compiled.set(name, {
      resources,
      promptListing: resources.prompts.map(promptListing),
      legacyListing,
      legacyExtensions: ui,
      modernExtensions: { ...ui, [TASKS_EXTENSION]: {} },
    });
  }
  return function buildServer({ era, authInfo }: McpRequestContext): Server {
    const caller = authInfo?.extra as McpCallerInfo | undefined;
    if (!caller) throw new Error('MCP request reached the server without an authenticated caller');
    const profile = catalogue.get(caller.profile);
    const extras = compiled.get(caller.profile);
    if (!profile || !extras) throw new Error(`Unknown profile ${caller.profile}`);
    const extensions = era === 'legacy' ? extras.legacyExtensions : extras.modernExtensions;
    const server = new PlatformServer(
      { name: PLATFORM_NAME, title: 'Campaign platform', version: PLATFORM_VERSION },
      {
        capabilities: {
          tools: { listChanged: false },
          resources: { listChanged: false, subscribe: false },
          prompts: { listChanged: false },
          ...(era === 'legacy' ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
          ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
        },
        instructions: SERVER_INSTRUCTIONS,
      },
    );
    // A scope per call: its unit of work is forked on first use (see workspaceScope).
    const scope = (): WorkspaceScope =>
      workspaceScope(deps.orm.em, caller.principal.workspaceId, actorOf(caller.principal));
    const resourceCaller = () => ({ principal: caller.principal, scope: scope(), services: deps.services, profile });
    let requestLog: Logger | undefined;
    const log = () =>
      (requestLog ??= deps.log.child({ requestId: caller.requestId, workspaceId: caller.principal.workspaceId }));
    server.log = log;

    const tools = era === 'legacy' ? extras.legacyListing : profile.listing;
    server.setRequestHandler('tools/list', async () => ({ tools: [...tools] }));

    const audit: ToolContext['audit'] = (entry) =>
      deps.services.audit.record(deps.orm.em.fork(), {
        workspaceId: caller.principal.workspaceId,
        actor: actorOf(caller.principal),
        ...entry,
        requestId: caller.requestId,
      });
    const tasks = createTaskOperations({ services: deps.services, scope, principal: caller.principal, audit });
    if (era === 'legacy') {
      // The 2025 task methods are spec methods of that era, validated by the SDK's own schemas; the SDK keeps
      // them out of its typed method list (they are experimental there), hence the untyped registration.
      type LegacyHandler = (
        request: { params?: Record<string, unknown> },
        ctx: { mcpReq: { signal?: AbortSignal } },
      ) => Promise<unknown>;
      const onLegacy = (method: string, handler: LegacyHandler) =>
        (server.setRequestHandler as unknown as (method: string, handler: LegacyHandler) => void).call(
          server,
          method,
          handler,
        );
      onLegacy('tasks/get', async (request) => tasks.legacyGet(request.params?.taskId));
      onLegacy('tasks/result', async (request, ctx) => tasks.legacyResult(request.params?.taskId, ctx.mcpReq.signal));
      onLegacy('tasks/list', async (request) => tasks.legacyList(request.params?.cursor));
      onLegacy('tasks/cancel', async (request) => tasks.legacyCancel(request.params?.taskId));
    } else {
      server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params) => tasks.modernGet(params.taskId));
      // `inputResponses` is a reserved request field in 2026-07-28 (multi-round-trip retries): the SDK lifts it
      // out of every request's params into `ctx.mcpReq.inputResponses` (bare results only), so read it there.
      server.setRequestHandler('tasks/update', { params: TaskIdParams }, async (params, ctx) =>
        tasks.modernUpdate(params.taskId, ctx.mcpReq.inputResponses),
      );
      server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params) =>
        tasks.modernCancel(params.taskId),
      );
    }

    server.setRequestHandler('resources/list', async () => ({
      resources: listResources(resourceCaller(), extras.resources),
    }));
    server.setRequestHandler('resources/templates/list', async () => ({
      resourceTemplates: [...extras.resources.templates],
    }));
    server.setRequestHandler('resources/read', async (request) =>
      readResource(request.params.uri, resourceCaller(), extras.resources),
    );
    server.setRequestHandler('prompts/list', async () => ({ prompts: extras.promptListing }));
    server.setRequestHandler('prompts/get', async (request) => {
      const prompt = extras.resources.prompts.find((p) => p.name === request.params.name);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      return getPrompt(prompt, request.params.arguments);
    });

    server.setRequestHandler('tools/call', async (request, requestContext) => {
      let job: Job | null = null;
      const ctx: ToolContext = {
        onJob: (started) => {
          job = started;
        },
        principal: caller.principal,
        scope: scope(),
        services: deps.services,
        get log() {
          return log();
        },
        era,
        profile: caller.profile,
        profileSummaries: PROFILE_SUMMARIES,
        audit,
      };
      const started = performance.now();
      const labels = toolCallLabels(profile, request.params.name, request.params.arguments);
      let result: Awaited<ReturnType<typeof callTool>>;
      try {
        result = await callTool(profile, request.params.name, request.params.arguments, ctx);
      } catch (error) {
        // An unknown tool (a protocol error), or a failure the SDK turns into one.
        metrics.toolCall({
          ...labels,
          era,
          outcome: labels.tool === 'unknown' ? 'unknown_tool' : 'internal_error',
          seconds: (performance.now() - started) / 1000,
        });
        throw error;
      }
      metrics.toolCall({
        ...labels,
        era,
        outcome: result.isError ? errorCodeOf(result) : 'ok',
        seconds: (performance.now() - started) / 1000,
      });
      const startedJob = job as Job | null;
      if (
        startedJob &&
        !result.isError &&
        wantsTask(
          era,
          request.params as Record<string, unknown>,
          requestContext.mcpReq.envelope as Record<string, unknown> | undefined,
        )
      ) {
        const text = result.content.find((block) => block.type === 'text');
        return server.taskCreated(
          requestContext,
          createTaskResult(startedJob, era, text && 'text' in text ? text.text : ''),
        );
      }
      return result;
    });

    return server;
  };
}

/**
 * A tool call's labels, bounded by the catalogue: the tool's name only when the caller's profile has it, the
 * action only when the tool defines it (`none` otherwise), so a client's arguments never become a label.
 */
function toolCallLabels(profile: CompiledProfile, name: string, args: unknown): { tool: string; action: string } {
  const definition = profile.tools.get(name)?.definition;
  if (!definition) return { tool: 'unknown', action: 'none' };
  const selected =
    args && typeof args === 'object' ? (args as Record<string, unknown>)[definition.selector] : undefined;
  const action = typeof selected === 'string' && Object.hasOwn(definition.actions, selected) ? selected : 'none';
  return { tool: name, action };
}

/** The stable error code of an `isError` result (tool-result.ts puts it in `_meta`); `internal_error` if absent. */
function errorCodeOf(result: { _meta?: Record<string, unknown> }): string {
  const code = (result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(ERROR_TABLE, code) ? code : 'internal_error';
}
