/**
 * The `test/workflows` tier: one in-memory Temporal dev server per test file, started from the already-built
 * CLI (`createLocal` with an existing-path executable: nothing is downloaded), a worker on the bundle the
 * tier's global set-up built (with the timer cap of `workflow-timers.ts`), and activities that are plain
 * stub functions recording every call.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities/index.ts';

export async function startWorkflowEnv(): Promise<TestWorkflowEnvironment> {
  const cli = process.env.TEST_TEMPORAL_CLI;
  if (!cli)
    throw new Error('TEST_TEMPORAL_CLI is not set: run test/workflows through jest (its global set-up finds it)');
  // Workers log the failures and cancellations the tests provoke at WARN; keep the output to real problems.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, log: { format: 'pretty', level: 'error' } },
  });
}

/**
 * Gives the calling test file its own environment: started before its tests, torn down after them.
 * `use` receives it once it is up (`useWorkflowEnv((started) => (env = started))`).
 */
export function useWorkflowEnv(use: (env: TestWorkflowEnvironment) => void): void {
  let started: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    started = await startWorkflowEnv();
    use(started);
  });
  afterAll(async () => {
    await started?.teardown();
  });
}

type ActivityName = keyof Activities;
type AnyActivity = (...args: never[]) => Promise<unknown>;
export type ActivityStubs = { [K in ActivityName]?: (...args: Parameters<Activities[K]>) => Promise<unknown> };

export interface ActivityCall {
  name: ActivityName;
  args: unknown[];
}

/** The bookkeeping every long-job workflow does; by default each succeeds and does nothing. */
const BOOKKEEPING: ActivityStubs = {
  markJobRunning: async () => undefined,
  markJobInputRequired: async () => undefined,
  reportJobProgress: async () => undefined,
  completeJob: async () => undefined,
  failJob: async () => undefined,
  markJobCancelled: async () => undefined,
  captureJobCredits: async () => undefined,
  releaseJobCredits: async () => 0,
  finishGeneration: async () => undefined,
  setFilmStatus: async () => undefined,
};

export interface RecordedActivities {
  /** What to register on the worker. */
  activities: Record<string, AnyActivity>;
  /** Every call in the order the activities started. */
  calls: ActivityCall[];
  /** The argument lists of every call to one activity. */
  argsOf<K extends ActivityName>(name: K): Parameters<Activities[K]>[];
  /** The activity names in call order, optionally only those in `only`. */
  names(only?: ActivityName[]): ActivityName[];
}

/** Bookkeeping defaults plus `stubs`; every call is recorded before the stub runs. */
export function recordActivities(stubs: ActivityStubs): RecordedActivities {
  const calls: ActivityCall[] = [];
  const activities: Record<string, AnyActivity> = {};
  for (const [name, stub] of Object.entries({ ...BOOKKEEPING, ...stubs })) {
    activities[name] = async (...args: unknown[]) => {
      calls.push({ name: name as ActivityName, args });
      return (stub as (...args: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return {
    activities,
    calls,
    argsOf: <K extends ActivityName>(name: K) =>
      calls.filter((call) => call.name === name).map((call) => call.args as Parameters<Activities[K]>),
    names: (only) => calls.map((call) => call.name).filter((name) => !only || only.includes(name)),
  };
}

/** Runs `body` while a worker with `activities` polls a task queue of its own; returns what `body` returns. */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  activities: Record<string, AnyActivity>,
  body: (taskQueue: string) => Promise<T>,
  taskQueue = `workflows-${randomUUID()}`,
): Promise<T> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_TIMERS_BUNDLE! },
    activities,
    // Cancellation reaches an activity in the answer to a heartbeat: send them at once, not every 8 s.
    defaultHeartbeatThrottleInterval: '20ms',
    maxHeartbeatThrottleInterval: '20ms',
  });
  return worker.runUntil(body(taskQueue));
}

export function workflowId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * What a long activity does while it works: heartbeat until the workflow cancels it. Resolves `started` on
 * the first heartbeat; rethrows the cancellation (a `CancelledFailure`) after recording it in `seen`.
 */
export async function heartbeatUntilCancelled(started?: () => void, seen?: unknown[]): Promise<never> {
  const context = Context.current();
  started?.();
  try {
    for (;;) {
      context.heartbeat();
      await context.sleep(20);
    }
  } catch (error) {
    seen?.push(error);
    throw error;
  }
}
