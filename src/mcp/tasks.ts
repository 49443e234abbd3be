/**
 * MCP task handles for long jobs, in both protocol eras, mapped onto our Job rows (and so onto Temporal
 * workflows): task id = `Job.taskId` (unguessable, 192 bits), status read from the row (cheap to poll),
 * `tasks/cancel` = the job's cooperative cancellation (a Temporal workflow cancellation).
 *
 * - 2025-11-25 (experimental tasks, SEP-1686): a `tools/call` carrying `task` gets a `CreateTaskResult`
 *   (`{task}`); `tasks/get`, `tasks/result` (blocks until the job ends), `tasks/list`, `tasks/cancel`.
 * - 2026-07-28 (`io.modelcontextprotocol/tasks` extension, SEP-2663): a `tools/call` whose per-request client
 *   capabilities name the extension gets a flat `resultType: "task"` result; `tasks/get` returns the detailed
 *   task (inlined result, or the approval a film waits for as `inputRequests`), `tasks/update` answers such
 *   an approval, `tasks/cancel` is an empty acknowledgement.
 *
 * A call that negotiated nothing gets the ordinary result at once (it already names the job); no request is
 * ever held open for a job except `tasks/result`, which the client asks for explicitly. A task id of another
 * workspace is indistinguishable from an unknown one.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { can, type Permission } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import { ForbiddenError } from '../errors.ts';
import { FILM_KIND } from '../domain/films/films.service.ts';
import { Job } from '../domain/jobs/job.entity.ts';
import { isTerminalJobStatus } from '../domain/jobs/job-status.ts';
import type { WorkspaceScope } from '../domain/shared/scope.ts';
import { withWorkspaceEcho } from './call-tool.ts';
import type { ToolContext, ToolDefinition } from './define-tool.ts';
import { ALL_TOOLS } from './registry.ts';
import type { McpServices } from './services.ts';
import { toToolResult, type ToolResult } from './tool-result.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** The tools whose calls may start a long job (and so answer with a task handle when one was negotiated). */
const JOB_TOOLS = ALL_TOOLS.filter((tool): tool is ToolDefinition & Required<Pick<ToolDefinition, 'jobResult'>> =>
  Boolean(tool.jobResult),
);
export const TASK_TOOLS: readonly string[] = JOB_TOOLS.map((tool) => tool.name);
/** Kinds of job that are MCP tasks (internal jobs such as republishing are not), each with the tool it belongs to. */
const TOOL_OF_KIND = new Map(JOB_TOOLS.flatMap((tool) => tool.jobResult.kinds.map((kind) => [kind, tool] as const)));
export const TASK_KINDS: readonly string[] = [...TOOL_OF_KIND.keys()];
/**
 * Who may stop a job: the permission that starts paid work, as `video_commission cancel` asks. Cancelling
 * changes what is spent and what the agent delivers, so a viewer may not.
 */
export const CANCEL_TASK_PERMISSION: Permission = 'credits:spend';
/** Who may answer a film's approval gate: the permission of `video_commission approve | revise`. */
const FILM_DECISION_PERMISSION: Permission = 'credits:spend';
/** How often clients should poll, in milliseconds. */
export const POLL_INTERVAL_MS = 2000;
const LIST_PAGE_SIZE = 50;
/** `tasks/result` re-reads the row this often while it waits. */
const RESULT_WAIT_STEP_MS = 500;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * The client asked for a task handle: `task` in the params (2025), or the extension in the per-request
 * client capabilities of the request's `_meta` envelope (2026; the SDK lifts the envelope out of `params`).
 */
export function wantsTask(
  era: 'legacy' | 'modern',
  params: Record<string, unknown>,
  envelope: Record<string, unknown> | undefined,
): boolean {
  if (era === 'legacy') return typeof params.task === 'object' && params.task !== null;
  const capabilities = envelope?.['io.modelcontextprotocol/clientCapabilities'] as
    { extensions?: Record<string, unknown> } | undefined;
  return Boolean(capabilities?.extensions && TASKS_EXTENSION in capabilities.extensions);
}

function statusOf(job: Job, era: 'legacy' | 'modern'): TaskStatus {
  // 2025: a cancelled task must read `cancelled` from the moment tasks/cancel answered (the workflow stops
  // cooperatively, and its final state is then reported through the domain tools).
  if (era === 'legacy' && job.cancelRequestedAt) return 'cancelled';
  switch (job.status) {
    case 'input_required':
      return 'input_required';
    case 'succeeded':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'working';
  }
}

function statusMessageOf(job: Job): string | undefined {
  if (job.error) return `${job.error.code}: ${job.error.message}`;
  return job.progress.message ?? job.progress.step ?? undefined;
}

/** The 2025 `Task` object. Jobs are kept, so results never expire: `ttl` is null (unlimited). */
export function legacyTask(job: Job) {
  const message = statusMessageOf(job);
  return {
    taskId: job.taskId,
    status: statusOf(job, 'legacy'),
    ...(message ? { statusMessage: message } : {}),
    createdAt: job.createdAt.toISOString(),
    lastUpdatedAt: job.updatedAt.toISOString(),
    ttl: null,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/** The 2026 flat task fields (shared by `CreateTaskResult` and the detailed `tasks/get` answer). */
function modernTaskFields(job: Job) {
  const message = statusMessageOf(job);
  return {
    taskId: job.taskId,
    status: statusOf(job, 'modern'),
    ...(message ? { statusMessage: message } : {}),
    createdAt: job.createdAt.toISOString(),
    lastUpdatedAt: job.updatedAt.toISOString(),
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** What `tools/call` answers when a task was negotiated. */
export function createTaskResult(job: Job, era: 'legacy' | 'modern', immediate: string): Record<string, unknown> {
  const meta = { 'io.modelcontextprotocol/model-immediate-response': immediate };
  return era === 'legacy'
    ? { task: legacyTask(job), _meta: meta }
    : { resultType: 'task', ...modernTaskFields(job), _meta: meta };
}

export function createTaskOperations(deps: {
  services: McpServices;
  scope: () => WorkspaceScope;
  /** The caller: task results of mutations echo its workspace, as the call's own answer does. */
  principal: Pick<Principal, 'workspaceId' | 'workspaceName' | 'role'>;
  /** The workspace's audit log as the caller (the same writer its tool calls use). */
  audit: ToolContext['audit'];
}) {
  const { services } = deps;

  async function find(taskId: unknown): Promise<Job> {
    if (typeof taskId !== 'string' || taskId.length > 100) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'taskId must be a task id string');
    }
    const job = await services.jobs.getByTaskId(deps.scope(), taskId);
    if (!job || !TOOL_OF_KIND.has(job.kind)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
    }
    return job;
  }

  /**
   * The job's outcome as the result of the tool that started it (what the call "would have returned" had it
   * waited), from that tool's own result builder and echo, so it matches the tool's output schema. A failed
   * job is that result with `isError` and the error's code leading the text.
   */
  async function finalResult(job: Job): Promise<ToolResult> {
    const tool = TOOL_OF_KIND.get(job.kind)!;
    const output = await tool.jobResult.build({ scope: deps.scope(), services }, job);
    const result = toToolResult(withWorkspaceEcho(output, deps.principal));
    if (job.status !== 'failed') return result;
    return {
      ...result,
      ...(job.error ? { content: [{ type: 'text', text: `${job.error.code}: ${job.error.message}` }] } : {}),
      isError: true,
    };
  }

  /** The approval a film waits for, as a 2026 input request (an elicitation form). */
  function inputRequestsOf(job: Job) {
    return {
      approval: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: job.progress.message ?? 'Approve the film stage, or revise it with notes',
          requestedSchema: {
            type: 'object',
            properties: {
              decision: { type: 'string', enum: ['approve', 'revise'], description: 'approve, or revise with notes' },
              notes: { type: 'string', description: 'What to change (revise).' },
              quoteId: {
                type: 'string',
                description: 'revise: the quote video_commission revise returned (revisions cost credits).',
              },
            },
            required: ['decision'],
          },
        },
      },
    };
  }

  /**
   * Cancels a job for every edge that can (MCP `tasks/cancel` in both eras, the console's Cancel button): the
   * role's permission, then the jobs service's cooperative cancellation, each outcome written once to the
   * audit log as `mcp.tasks.cancel` on the job, in the shape the tool wrapper writes a tool's.
   */
  async function cancel(job: Job): Promise<Job> {
    const audit = (outcome: 'success' | 'denied' | 'failed', details: Record<string, unknown>) =>
      deps.audit({
        action: 'mcp.tasks.cancel',
        targetType: 'job',
        targetId: job.id,
        outcome,
        details: { kind: job.kind, ...details },
      });
    if (!can(deps.principal.role, CANCEL_TASK_PERMISSION)) {
      await audit('denied', { reason: 'role', role: deps.principal.role });
      throw new ForbiddenError(`Your role (${deps.principal.role}) does not allow cancelling a job`);
    }
    let cancelled: Job;
    try {
      cancelled = await services.jobs.requestCancel(deps.scope(), job.id);
    } catch (error) {
      await audit('failed', { code: (error as { code?: unknown }).code ?? 'internal_error' });
      throw error;
    }
    await audit('success', {});
    return cancelled;
  }

  return {
    find,
    finalResult,
    cancel,

    // --- 2025-11-25 -------------------------------------------------------------------------------------
    async legacyGet(taskId: unknown) {
      return legacyTask(await find(taskId));
    },

    /** Blocks until the job ends (or the request is aborted), then returns what the tool call produced. */
    async legacyResult(taskId: unknown, signal: AbortSignal | undefined) {
      let job = await find(taskId);
      while (!isTerminalJobStatus(job.status)) {
        await new Promise((resolve) => setTimeout(resolve, RESULT_WAIT_STEP_MS));
        if (signal?.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'The request was cancelled');
        job = await find(taskId);
      }
      const result = await finalResult(job);
      return { ...result, _meta: { [RELATED_TASK_META]: { taskId: job.taskId } } };
    },

    async legacyList(cursor: unknown) {
      const scope = deps.scope();
      let after: { createdAt: Date; id: string } | null = null;
      if (cursor !== undefined) {
        const [at, id] = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('utf8').split('|') : [];
        const createdAt = new Date(at ?? '');
        if (!id || Number.isNaN(createdAt.getTime()))
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
        after = { createdAt, id };
      }
      const rows = await scope.em.find(
        Job,
        {
          kind: { $in: [...TASK_KINDS] },
          ...(after
            ? { $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }] }
            : {}),
        },
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: LIST_PAGE_SIZE + 1 },
      );
      const page = rows.slice(0, LIST_PAGE_SIZE);
      const last = page[page.length - 1];
      return {
        tasks: page.map(legacyTask),
        ...(rows.length > LIST_PAGE_SIZE && last
          ? { nextCursor: Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url') }
          : {}),
      };
    },

    async legacyCancel(taskId: unknown) {
      const job = await find(taskId);
      if (isTerminalJobStatus(job.status) || job.cancelRequestedAt) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Task ${job.taskId} is already ${statusOf(job, 'legacy')}`,
        );
      }
      return legacyTask(await cancel(job));
    },

    // --- 2026-07-28 extension ---------------------------------------------------------------------------
    async modernGet(taskId: unknown) {
      const job = await find(taskId);
      const fields = modernTaskFields(job);
      if (job.status === 'succeeded' || job.status === 'failed') {
        // A job that failed is a tool result with isError (the call itself succeeded): status `completed`.
        return { ...fields, status: 'completed', result: await finalResult(job) };
      }
      if (job.status === 'input_required') return { ...fields, inputRequests: inputRequestsOf(job) };
      return fields;
    },

    /** Answers the approval a film waits for. A revision needs the quote `video_commission revise` returns. */
    async modernUpdate(taskId: unknown, inputResponses: unknown) {
      const job = await find(taskId);
      if (job.kind !== FILM_KIND || job.status !== 'input_required') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${job.taskId} is not waiting for input`);
      }
      const response = (
        inputResponses as Record<string, { action?: string; content?: Record<string, unknown> }> | undefined
      )?.approval;
      if (!response || response.action !== 'accept' || !response.content) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'inputResponses.approval must be an accepted form with a decision',
        );
      }
      const { decision, notes, quoteId } = response.content as { decision?: string; notes?: string; quoteId?: string };
      const commissionId = job.subjectId ?? '';
      // The gate's answer is a `video_commission approve | revise`: the same permission those actions declare,
      // and an audit line for the decision (the console answers through the tool itself).
      const audit = (outcome: 'success' | 'denied', details: Record<string, unknown>) =>
        deps.audit({
          action: 'mcp.tasks.update',
          targetType: 'job',
          targetId: job.id,
          outcome,
          details: { kind: job.kind, decision: String(decision), ...details },
        });
      if (!can(deps.principal.role, FILM_DECISION_PERMISSION)) {
        await audit('denied', { reason: 'role', role: deps.principal.role });
        throw new ForbiddenError(`Your role (${deps.principal.role}) does not allow answering a film's approval`);
      }
      if (decision === 'approve') await services.films.approve(deps.scope(), commissionId);
      else if (decision === 'revise') {
        if (typeof quoteId !== 'string') {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            'A revision costs credits: call video_commission revise (without quoteId) for a quote, then answer with its quoteId',
          );
        }
        await services.films.revise(deps.scope(), {
          commissionId,
          notes: typeof notes === 'string' ? notes : '',
          quoteId,
        });
      } else throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'decision must be "approve" or "revise"');
      await audit('success', {});
      return {};
    },

    async modernCancel(taskId: unknown) {
      const job = await find(taskId);
      if (!isTerminalJobStatus(job.status)) await cancel(job);
      return {};
    },
  };
}

export type TaskOperations = ReturnType<typeof createTaskOperations>;
