/**
 * Publishing to a Facebook Page (`meta-page-publish.ts`) and to an Instagram account
 * (`meta-instagram-publish.ts`), exactly once across crashes — what both share.
 *
 * Neither network takes a key the platform chooses, so every id Meta hands back is saved (`saveProgress`)
 * before the next call, and a repeated attempt resumes from it; where the answer to the call that creates the
 * post may have been lost with the worker, the post is looked up (same text and link, made since the first
 * attempt) before anything is sent again.
 */
import { UnavailableError } from '../../../errors.ts';
import type { NetworkClient, PublishProgress } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';

export type PublishInput = Parameters<NetworkClient['publish']>[0];

/** How long and how often to wait for Meta's processing (videos, containers). */
export interface Polling {
  intervalMs: number;
  timeoutMs: number;
}

/** Clocks differ: a post found by look-up may carry a time a little before the platform's first attempt. */
export const CLOCK_SKEW_MS = 2 * 60 * 1000;
/** Look-ups read the newest posts; the one sought was made since the first attempt, so a few pages suffice. */
export const LOOKUP_BATCHES = 4;

export interface Listed<T> {
  data: T[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/** Graph times look like `2026-11-27T10:00:00+0000`. */
export function graphTime(value: string | undefined): number {
  if (!value) return Number.NaN;
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads until `done`, telling the run it is alive; a wait past `timeoutMs` is retried later from the progress. */
export async function pollUntil<T>(
  what: string,
  polling: Polling,
  heartbeat: () => void,
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + polling.timeoutMs;
  for (;;) {
    const value = await read();
    heartbeat();
    if (done(value)) return value;
    if (Date.now() >= deadline) {
      throw new UnavailableError(
        `Meta is still processing ${what} after ${Math.round(polling.timeoutMs / 1000)} s; the publish resumes where it stopped`,
      );
    }
    await sleep(polling.intervalMs);
  }
}

/** Saves the progress before the next call, and keeps the latest copy. */
export function progressKeeper<T extends PublishProgress>(input: PublishInput) {
  let current = { ...(input.progress ?? {}) } as T;
  return {
    get: () => current,
    async set(next: T): Promise<void> {
      current = next;
      await input.saveProgress({ ...next });
    },
  };
}

export async function blobOf(input: PublishInput, media: PostMedia): Promise<Blob> {
  const bytes = await input.loadMedia(media.key);
  return new Blob([new Uint8Array(bytes)], { type: media.mimeType });
}

/** Meta's text as stored: a multipart form carries line breaks as CRLF, Meta keeps LF. */
export function sameText(stored: string | undefined, sent: string): boolean {
  const normal = (text: string) => text.replace(/\r\n/g, '\n').trim();
  return normal(stored ?? '') === normal(sent);
}
