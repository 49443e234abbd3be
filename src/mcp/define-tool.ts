/**
 * How a tool is declared: one file per tool under `mcp/tools/`, default-exporting `defineTool({...})`.
 *
 * A tool is a flat input object with a selector (`action`, `mode`, `operation` or `topic`) plus optional
 * fields, and a table of actions keyed by selector value. The wrapper in `call-tool.ts` parses the flat
 * input, picks the action, checks its permission, parses the action's own stricter schema and runs it. No
 * top-level unions reach the advertised schema (many clients cannot render them).
 */
import type { Job } from '../domain/jobs/job.entity.ts';
import type { z } from 'zod';
import type { Permission } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import type { WorkspaceScope } from '../domain/shared/scope.ts';
import type { Logger } from '../logger.ts';
import type { McpServices } from './services.ts';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolContext {
  principal: Principal;
  scope: WorkspaceScope;
  services: McpServices;
  log: Logger;
  /** Protocol era of the request being served. */
  era: 'legacy' | 'modern';
  /** Name of the profile this connection sees. */
  profile: string;
  /** Every profile with its live tools (computed once at boot). */
  profileSummaries: readonly ProfileSummary[];
  /** Told about the long job an action started or found running (the server answers with a task handle). */
  onJob?: (job: Job) => void;
  /** Appends to the workspace's audit log (the wrapper records every mutation through it). */
  audit(entry: {
    action: string;
    targetType: string | null;
    targetId: string | null;
    outcome: 'success' | 'denied' | 'failed';
    details: Record<string, unknown>;
  }): Promise<void>;
}

export interface ProfileSummary {
  name: string;
  description: string;
  selectedBy: 'default' | 'call_code' | 'fallback';
  tools: string[];
}

/** What an action returns: structured data (validated against the tool's output schema) and optional text. */
export interface ToolOutput {
  structured: Record<string, unknown>;
  /** Human-readable summary for clients that only show text; defaults to the JSON of `structured`. */
  text?: string;
  /**
   * The long job this call started or found running. When the client negotiated MCP tasks, the wrapper
   * answers with a task handle for it instead of the plain result; otherwise the plain result (which already
   * describes the job) is returned at once.
   */
  job?: Job;
}

export interface ActionDefinition<Args = Record<string, unknown>> {
  /** One line for the tool description: what this action does. */
  summary: string;
  permission: Permission;
  /** The action's own schema, parsed from the flat arguments (stricter than the advertised one). */
  input: z.ZodType<Args>;
  run(ctx: ToolContext, args: Args): Promise<ToolOutput>;
  /**
   * Deprecated read actions kept for verified internal clients only (spec rule C1). Everyone else gets an
   * error naming the tool to use instead.
   */
  internalOnly?: { useInstead: string };
}

export interface ToolDefinition<Selector extends string = string> {
  /** snake_case, exactly as the spec names it. */
  name: string;
  /** Group shown in docs and `svc://capabilities`. */
  toolset: string;
  /** Written for agents: when to use it, what to confirm with the user, what costs credits. */
  description: string;
  annotations: ToolAnnotations;
  /** The name of the selector field (`action`, `mode`, `operation`, `topic`). */
  selector: Selector;
  /** The flat advertised input: the selector enum plus optional fields. Must be a `z.object`. */
  input: z.ZodObject;
  /** Shape of `structuredContent` on success. */
  output: z.ZodObject;
  actions: Record<string, ActionDefinition<never>>;
  /**
   * Tools whose actions start long jobs: the tool's result for such a job once it has ended, which is what
   * an MCP task of that job resolves to (`tasks/result`, the `result` a 2026 `tasks/get` inlines). Built
   * with the same builder as the answer that started the job, so it matches the output schema the same way.
   */
  jobResult?: JobResultDefinition;
  /** Extra `_meta` on the tool listing (e.g. the MCP Apps UI pointer). */
  meta?: Record<string, unknown>;
}

export interface JobResultDefinition {
  /** The job kinds this tool's actions start (each kind belongs to one tool). */
  kinds: readonly string[];
  build(ctx: { scope: WorkspaceScope; services: McpServices }, job: Job): Promise<ToolOutput>;
}

/** Identity helper that keeps action argument types checked against their schemas. */
export function defineAction<S extends z.ZodType>(action: {
  summary: string;
  permission: Permission;
  input: S;
  run(ctx: ToolContext, args: z.output<S>): Promise<ToolOutput>;
  internalOnly?: { useInstead: string };
}): ActionDefinition<never> {
  return action as unknown as ActionDefinition<never>;
}

export function defineTool<S extends string>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}
