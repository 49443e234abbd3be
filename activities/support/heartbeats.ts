/**
 * Runs activity work while heartbeating on a timer, and hands the work the activity's cancellation signal.
 *
 * Temporal delivers a workflow's cancellation to an activity only through heartbeats, and notices a dead
 * worker only when heartbeats stop; work that cannot heartbeat from inside (an HTTP call to a model, a
 * database write) is covered by the timer. A cancelled activity ends with `CancelledFailure`.
 */
import { CancelledFailure, Context } from '@temporalio/activity';

export async function withHeartbeats<T>(work: (signal: AbortSignal) => Promise<T>, everyMs = 1000): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work(context.cancellationSignal);
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('cancelled');
    throw error;
  } finally {
    clearInterval(timer);
  }
}
