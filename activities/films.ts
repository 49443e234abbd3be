/**
 * The stages of a commissioned film: script, storyboard (one still per scene) and the rendered cut. Each
 * stage overwrites its own output on the commission, so a retried activity leaves one result; media keys
 * carry the revision, so earlier cuts stay available.
 */
import { FilmCommission, type FilmStatus } from '../src/domain/films/film-commission.entity.ts';
import { createRenderer } from '../src/domain/renders/renderer.ts';
import { encodeVideo } from '../src/domain/creative/video/ffmpeg.ts';
import { ValidationError } from '../src/errors.ts';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';
import { activityScope } from './support/scope.ts';
import { withHeartbeats } from './support/heartbeats.ts';
import { createProgressWriter } from './support/progress.ts';

interface StageInput {
  workspaceId: string;
  commissionId: string;
  jobId: string;
  revision: number;
}

export function createFilmActivities(deps: ActivityDeps) {
  const { orm, studio } = deps;
  const brandService = deps.brand;
  const renderer = createRenderer({ studio, brand: brandService });

  async function load(input: StageInput) {
    const scope = activityScope(orm, input);
    const film = await scope.em.findOne(FilmCommission, { id: input.commissionId });
    if (!film) throw new ValidationError(`Film commission ${input.commissionId} no longer exists`);
    return { scope, em: scope.em, film };
  }

  async function rescript(input: StageInput & { notes: string | null }, signal: AbortSignal) {
    const { scope, em, film } = await load(input);
    const brand = await brandService.get(scope);
    film.script = await studio.copy.writeFilmScript(
      {
        title: film.title,
        brief: film.brief,
        durationSeconds: film.durationSeconds,
        brand,
        notes: input.notes,
        previous: film.script ?? null,
      },
      signal,
    );
    await em.flush();
    return film;
  }

  return {
    async setFilmStatus(input: { workspaceId: string; commissionId: string; status: FilmStatus }): Promise<void> {
      await activityScope(orm, input).em.nativeUpdate(
        FilmCommission,
        { id: input.commissionId },
        { status: input.status, updatedAt: new Date() },
      );
    },

    async writeFilmScript(input: StageInput & { notes: string | null }): Promise<{ scenes: number }> {
      return translateErrors(() =>
        withHeartbeats(async (signal) => {
          const film = await rescript(input, signal);
          return { scenes: film.script!.scenes.length };
        }),
      );
    },

    async drawFilmStoryboard(input: StageInput): Promise<{ frames: number }> {
      return translateErrors(() =>
        withHeartbeats(async () => {
          const { scope, em, film } = await load(input);
          if (!film.script) throw new ValidationError('The film has no script to storyboard');
          const { keyframes } = await renderer.filmFrames(scope, {
            aspect: film.aspect,
            scenes: film.script.scenes,
            seed: `${film.id}:${input.revision}`,
          });
          const storyboard = [];
          for (const [index, frame] of keyframes.entries()) {
            const key = `${input.workspaceId}/films/${film.id}/r${input.revision}/board-${index + 1}.png`;
            await studio.media.put(key, frame.png, 'image/png');
            storyboard.push({
              scene: index,
              caption: film.script.scenes[index]!.visual,
              key,
              url: studio.media.urlFor(key),
            });
          }
          film.storyboard = storyboard;
          await em.flush();
          return { frames: storyboard.length };
        }),
      );
    },

    /** Renders the cut; with revision notes, the script is revised first. */
    async renderFilm(
      input: StageInput & { notes: string | null },
    ): Promise<{ bytes: number; durationSeconds: number }> {
      return translateErrors(() =>
        withHeartbeats(async (signal) => {
          if (input.notes) await rescript(input, signal);
          const { scope, em, film } = await load(input);
          if (!film.script) throw new ValidationError('The film has no script to render');
          const { keyframes, size } = await renderer.filmFrames(scope, {
            aspect: film.aspect,
            scenes: film.script.scenes,
            seed: `${film.id}:cut:${input.revision}`,
          });
          const progress = createProgressWriter(orm, input.jobId, 'render');
          const video = await encodeVideo({
            keyframes,
            ...size,
            signal,
            onProgress: (fraction) => progress.report(fraction, `rendering ${Math.round(fraction * 100)}%`),
          });
          await progress.flush();
          const output = await renderer.store(
            `${input.workspaceId}/films/${film.id}/cut-${input.revision + 1}.mp4`,
            video.mp4,
            'video/mp4',
            size,
            video.durationSeconds,
          );
          film.output = {
            key: output.key,
            url: output.url,
            mimeType: output.mimeType,
            bytes: output.bytes,
            durationSeconds: video.durationSeconds,
            width: size.width,
            height: size.height,
          };
          await em.flush();
          return { bytes: output.bytes, durationSeconds: video.durationSeconds };
        }),
      );
    },
  };
}
