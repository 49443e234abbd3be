import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { newTaskId } from './task-ids.ts';
import { JOB_STATUSES } from './job-status.ts';

export interface JobProgress {
  /** 0..1 */
  fraction: number;
  /** The step being worked on, e.g. `copy` or `render`. */
  step?: string;
  message?: string;
}

export interface JobError {
  code: string;
  message: string;
}

/**
 * The row that mirrors one long job (a Temporal workflow). Status reads and task polls read this row, never
 * the workflow, so they stay cheap and work while no worker is running. Activities keep it current.
 */
export const JobSchema = defineEntity({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: idProperty('job'),
    workspace: () => p.manyToOne(Workspace).ref(),
    /** What the job does, e.g. `campaign_generation`, `render`, `selftest`. */
    kind: p.string().length(64),
    status: p.enum(JOB_STATUSES).nativeEnumName('job_status').default('queued'),
    /**
     * The Temporal workflow id: a business key, so a repeated start finds the running job. Not unique: a
     * later job on the same key (a new generation once the last one ended) reuses it with a new run.
     */
    workflowId: p.string().length(200),
    /** The Temporal run this job owns; set right after the start. Unique per workflow id. */
    runId: p.string().length(64).nullable(),
    /**
     * The MCP task id of this job: unguessable (192 random bits), so it can be handed to a client as a task
     * handle; every task request still checks the workspace.
     */
    taskId: p
      .string()
      .length(40)
      .unique()
      .onCreate(() => newTaskId()),
    /** The entity the job works on (a campaign id, a film id), when there is one. */
    subjectId: p.string().length(40).nullable(),
    input: p.json<Record<string, unknown>>().default('{}'),
    progress: p.json<JobProgress>().default('{"fraction":0}'),
    result: p.json<Record<string, unknown>>().nullable(),
    error: p.json<JobError>().nullable(),
    /** `user:<id>`, `key:<id>`, `client:<id>` or `operator`. */
    createdBy: p.string().length(200),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    startedAt: p.datetime().columnType('timestamptz').nullable(),
    finishedAt: p.datetime().columnType('timestamptz').nullable(),
    cancelRequestedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [
    { properties: ['workspace', 'createdAt'] },
    { properties: ['workspace', 'subjectId'] },
    { properties: ['workflowId'] },
  ],
  uniques: [{ properties: ['workflowId', 'runId'] }],
});
export class Job extends JobSchema.class {}
JobSchema.setClass(Job);

/**
 * The stored output of one completed step of a job. Unique per (job, step): an activity that runs twice
 * records the step once, and a regeneration can resume from any stored step.
 */
export const JobStepSchema = defineEntity({
  name: 'JobStep',
  tableName: 'job_steps',
  properties: {
    id: idProperty('jobStep'),
    job: () => p.manyToOne(Job).ref().deleteRule('cascade'),
    name: p.string().length(64),
    /** The activity attempt that completed the step (Temporal attempts start at 1). */
    attempt: p.integer(),
    output: p.json<Record<string, unknown>>().nullable(),
    completedAt: createdAtProperty(),
  },
  uniques: [{ properties: ['job', 'name'] }],
});
export class JobStep extends JobStepSchema.class {}
JobStepSchema.setClass(JobStep);
