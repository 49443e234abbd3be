/**
 * Workflow interceptor, bundled only into the `test/workflows` tier's workflow bundle: caps every durable
 * timer (sleep, and `condition` with a timeout) at the `timerCapMs` a test puts in the workflow's memo, so a
 * 30-day approval deadline or a 30-second idle wait fires in milliseconds. The dev server `createLocal`
 * starts cannot skip time, and `createTimeSkipping` would download a test server; this keeps the real
 * server and changes nothing but the length of the timers a test asks to shorten.
 */
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      async startTimer(input, next) {
        const cap = workflowInfo().memo?.timerCapMs;
        if (typeof cap !== 'number') return next(input);
        return next({ ...input, durationMs: Math.min(input.durationMs, cap) });
      },
    },
  ],
});
