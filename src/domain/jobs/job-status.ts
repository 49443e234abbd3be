/**
 * Job statuses and their legal transitions.
 *
 * queued → running → succeeded | failed | cancelled, with `input_required` while a job waits for a person
 * (a film awaiting approval) and `cancel_requested` between a cancellation request and the workflow honouring it.
 */
export const JOB_STATUSES = [
  'queued',
  'running',
  'input_required',
  'cancel_requested',
  'succeeded',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export function isTerminalJobStatus(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}

const NEXT: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'input_required', 'cancel_requested', 'succeeded', 'failed', 'cancelled'],
  running: ['running', 'input_required', 'cancel_requested', 'succeeded', 'failed', 'cancelled'],
  input_required: ['running', 'input_required', 'cancel_requested', 'succeeded', 'failed', 'cancelled'],
  cancel_requested: ['cancel_requested', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

/** Terminal states never change again: a late activity retry cannot resurrect a finished job. */
export function canTransitionJob(from: JobStatus, to: JobStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * Every status a job may be in for it to move to `to`, by the table above. The job activities write rows with
 * a conditional update (`status in (…)`) so that a late retry loses the race in the database, not in memory;
 * this gives them the `in` list from the one table instead of a hand-written copy.
 */
export function statusesThatMayBecome(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => canTransitionJob(from, to));
}
