/** Jobs of a workspace: run the job pipeline self-test, show a job. */
import { isTerminalJobStatus } from '../../domain/jobs/job-status.ts';
import { actors, withEntityManager, workspaceScope } from '../../domain/shared/scope.ts';
import { flag, integer, required, str, UsageError, type Command } from '../command.ts';
import { TemporalUnreachableError } from '../failures.ts';

// The jobs service pulls in the ORM: loaded by the commands that use it, so `--help` answers at once.
const jobsService = () => import('../../domain/jobs/jobs.service.ts');

export const jobCommands: Record<string, Command> = {
  'jobs:selftest': {
    summary: 'Run the job pipeline self-test (N timed steps on the worker).',
    usage: 'jobs:selftest --workspace <id> [--steps 5] [--step-ms 500] [--key default] [--wait]',
    options: { workspace: str, steps: str, 'step-ms': str, key: str, wait: flag },
    required: ['workspace'],
    async run(io, options) {
      const container = await io.container();
      const { toJobView } = await jobsService();
      const workspaceId = required(options, 'workspace');
      const steps = integer(options, 'steps', 5);
      const stepMs = integer(options, 'step-ms', 500);
      if (steps < 1 || steps > 1000) throw new UsageError('--steps must be between 1 and 1000');
      if (stepMs < 0 || stepMs > 60_000) throw new UsageError('--step-ms must be between 0 and 60000');
      await container.services.workspaces.requireWorkspace(container.orm.em.fork(), workspaceId);
      // Reach Temporal before writing the job row: an unreachable server is then a clear start-up failure
      // instead of a job that fails at once and stays in the workspace's history.
      await container.temporal.ensureConnected().catch((error: unknown) => {
        throw new TemporalUnreachableError(error);
      });
      const scope = workspaceScope(container.orm.em, workspaceId, actors.operator);
      const { job, reused } = await container.services.jobs.start(scope, {
        kind: 'selftest',
        workflowType: 'selftestWorkflow',
        businessKey: (options.key as string | undefined) ?? 'default',
        input: { steps, stepMs },
        summary: `Self-test: ${steps} steps of ${stepMs} ms`,
      });
      io.out(
        `${reused ? 'A self-test is already running on this key' : 'Started self-test'}: job ${job.id} (workflow ${job.workflowId}).`,
      );
      if (!options.wait) {
        io.result(toJobView(job), `Follow it with: campaignctl jobs:get --workspace ${workspaceId} --job ${job.id}`);
        return;
      }
      let current = job;
      while (!isTerminalJobStatus(current.status)) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        // A fresh unit of work per read: the identity map would otherwise keep answering the first row.
        current = await container.services.jobs.get(withEntityManager(scope, container.orm.em.fork()), job.id);
        if (!io.json)
          io.out(
            `  ${current.status} ${Math.round(current.progress.fraction * 100)}% ${current.progress.message ?? ''}`,
          );
      }
      io.result(toJobView(current), `Job ${current.id} ended: ${current.status}.`);
    },
  },

  'jobs:get': {
    summary: 'Show a job of a workspace.',
    usage: 'jobs:get --workspace <id> --job <id>',
    options: { workspace: str, job: str },
    required: ['workspace', 'job'],
    async run(io, options) {
      const container = await io.container();
      const { toJobView } = await jobsService();
      const scope = workspaceScope(container.orm.em, required(options, 'workspace'), actors.operator);
      const job = toJobView(await container.services.jobs.get(scope, required(options, 'job')));
      io.result(
        job,
        `${job.id} ${job.kind} ${job.status} ${Math.round(job.progress.fraction * 100)}%${job.error ? ` error: ${job.error.message}` : ''}`,
      );
    },
  },
};
