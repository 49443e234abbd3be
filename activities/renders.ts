/**
 * The render activity: composes the frames, runs ffmpeg and stores the output. It heartbeats (so a dead
 * worker is noticed and cancellation arrives) and writes ffmpeg's progress to the job row. Output keys derive
 * from the job id, so a render retried on another worker replaces its own partial output.
 */
import type { RenderOutput, RenderRequest } from '../src/domain/renders/render.types.ts';
import { createRenderer } from '../src/domain/renders/renderer.ts';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';
import { activityScope } from './support/scope.ts';
import { withHeartbeats } from './support/heartbeats.ts';
import { createProgressWriter } from './support/progress.ts';

export function createRenderActivities(deps: ActivityDeps) {
  const renderer = createRenderer({ studio: deps.studio, brand: deps.brand });
  return {
    async renderMedia(input: { jobId: string; workspaceId: string; request: RenderRequest }): Promise<RenderOutput> {
      return translateErrors(() =>
        withHeartbeats(async (signal) => {
          const progress = createProgressWriter(deps.orm, input.jobId, 'render');
          const output = await renderer.render(activityScope(deps.orm, input), {
            ...input,
            signal,
            onProgress: (fraction, message) => progress.report(fraction, message),
          });
          await progress.flush();
          return output;
        }),
      );
    },
  };
}
