/**
 * A commissioned film: script → storyboard → (approval) → render → (approval), with revise loops at either
 * gate. While it waits at a gate the job is `input_required` (the MCP task status too) and the commission
 * says which approval it waits for.
 *
 * Decisions arrive as a Temporal update (`decide`), validated by the workflow itself: a decision when no
 * approval is pending is rejected before it is recorded. Credits are metered per stage: the create quote was
 * reserved up front for script, storyboard and render; each revision's quote is reserved by the caller before
 * the decision is sent. Each stage captures its own price once (`<jobId>:capture:<stage>-<n>`); cancelling,
 * failing or waiting past the approval deadline releases whatever is still held.
 */
import {
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import { endJobAfterError } from './job-endings.ts';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { FilmCommissionInput } from '../src/domain/jobs/workflow-inputs.ts';

export interface FilmDecision {
  decision: 'approve' | 'revise';
  notes?: string;
  /** Credits reserved for this revision (its quote), captured when the revised stage completes. */
  credits?: number;
  by: string;
}

export type FilmGate = 'storyboard' | 'final';

export const decide = defineUpdate<{ accepted: true; gate: FilmGate }, [FilmDecision]>('decide');
export const pendingGate = defineQuery<FilmGate | null>('pendingGate');

/** How long a film waits for a decision before it is closed and its unused credits returned. */
const APPROVAL_DEADLINE = '30 days';

const studio = proxyActivities<Activities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['validation_failed', 'not_found', 'conflict'],
  },
});

export async function filmCommissionWorkflow(
  input: FilmCommissionInput,
): Promise<{ commissionId: string; revisions: number; creditsCaptured: number }> {
  const bookkeeping = bookkeepingActivities();
  const { jobId, workspaceId, commissionId } = input;
  let gate: FilmGate | null = null;
  let pending: FilmDecision | null = null;
  let revisions = 0;
  let creditsCaptured = 0;

  setHandler(
    decide,
    (decision) => {
      const at = gate!;
      pending = decision;
      gate = null;
      return { accepted: true as const, gate: at };
    },
    {
      validator: (decision) => {
        if (!gate) throw new Error('The film is not waiting for an approval right now');
        if (decision.decision === 'revise' && !decision.notes?.trim()) throw new Error('A revision needs notes');
      },
    },
  );
  setHandler(pendingGate, () => gate);

  const capture = async (stage: string, amount: number) => {
    if (amount <= 0) return;
    await bookkeeping.captureJobCredits({ workspaceId, jobId, step: stage, amount, actor: input.actor });
    creditsCaptured += amount;
  };

  /** Waits at a gate; returns the decision, or null when the deadline passed. */
  const waitAt = async (at: FilmGate): Promise<FilmDecision | null> => {
    gate = at;
    await bookkeeping.setFilmStatus({
      workspaceId,
      commissionId,
      status: at === 'storyboard' ? 'awaiting_storyboard_approval' : 'awaiting_final_approval',
    });
    await bookkeeping.markJobInputRequired(
      jobId,
      at === 'storyboard'
        ? 'The storyboard is ready: approve it or revise with notes'
        : 'The film is ready: approve it or revise with notes',
    );
    const decided = await condition(() => pending !== null, APPROVAL_DEADLINE);
    if (!decided) return null;
    const decision = pending!;
    pending = null;
    await bookkeeping.markJobRunning(jobId);
    return decision;
  };

  // Inside the try: a workflow cancelled before its first activity must still refund and close its job.
  try {
    await bookkeeping.markJobRunning(jobId);
    await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'scripting' });
    await studio.writeFilmScript({ workspaceId, commissionId, jobId, revision: 0, notes: null });
    await capture('script-0', input.prices.script);
    await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'storyboarding' });
    await studio.drawFilmStoryboard({ workspaceId, commissionId, jobId, revision: 0 });
    await capture('storyboard-0', input.prices.storyboard);

    for (;;) {
      const decision = await waitAt('storyboard');
      if (!decision)
        throw ApplicationFailure.create({
          type: 'approval_timeout',
          message: 'No decision on the storyboard within 30 days',
          nonRetryable: true,
        });
      if (decision.decision === 'approve') break;
      revisions += 1;
      await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'scripting' });
      await studio.writeFilmScript({
        workspaceId,
        commissionId,
        jobId,
        revision: revisions,
        notes: decision.notes ?? null,
      });
      await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'storyboarding' });
      await studio.drawFilmStoryboard({ workspaceId, commissionId, jobId, revision: revisions });
      await capture(`storyboard_revision-${revisions}`, decision.credits ?? 0);
    }

    let renders = 0;
    await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'rendering' });
    await studio.renderFilm({ workspaceId, commissionId, jobId, revision: renders, notes: null });
    await capture('render-0', input.prices.render);
    for (;;) {
      const decision = await waitAt('final');
      if (!decision)
        throw ApplicationFailure.create({
          type: 'approval_timeout',
          message: 'No decision on the film within 30 days',
          nonRetryable: true,
        });
      if (decision.decision === 'approve') break;
      revisions += 1;
      renders += 1;
      await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'rendering' });
      await studio.renderFilm({ workspaceId, commissionId, jobId, revision: renders, notes: decision.notes ?? null });
      await capture(`render_revision-${renders}`, decision.credits ?? 0);
    }

    await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: 'completed' });
    await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
    const result = { commissionId, revisions, creditsCaptured };
    await bookkeeping.completeJob(jobId, result);
    return result;
  } catch (error) {
    return endJobAfterError({
      error,
      jobId,
      bookkeeping,
      fallback: { code: 'film_failed', message: 'The film failed; unused credits were returned' },
      cleanUp: async (cancelled) => {
        gate = null;
        await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
        await bookkeeping.setFilmStatus({ workspaceId, commissionId, status: cancelled ? 'cancelled' : 'failed' });
      },
    });
  }
}
