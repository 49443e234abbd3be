/**
 * Video encoding with the ffmpeg binary shipped by `@ffmpeg-installer/ffmpeg` (a static build; nothing is
 * downloaded at run time). A video is a sequence of keyframes (PNG compositions, one per scene); ffmpeg adds
 * the motion (a slow zoom per scene, fades between scenes) and encodes H.264 MP4 (yuv420p, faststart).
 *
 * Progress comes from ffmpeg's `-progress` stream (encoded time against the total), reported through
 * `onProgress`; an aborted signal kills ffmpeg at once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { path: FFMPEG_PATH } = require('@ffmpeg-installer/ffmpeg') as { path: string };

export interface Keyframe {
  png: Buffer;
  seconds: number;
}

export interface EncodeOptions {
  keyframes: Keyframe[];
  width: number;
  height: number;
  fps?: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export class FfmpegError extends Error {}

/** Runs ffmpeg; resolves with stderr's tail on exit code 0, rejects otherwise (or when aborted). */
function run(
  args: string[],
  options: { onStdoutLine?: (line: string) => void; signal?: AbortSignal },
): Promise<string> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child = spawn(FFMPEG_PATH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let buffered = '';
    const abort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', abort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) options.onStdoutLine?.(line.trim());
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', abort);
      if (options.signal?.aborted) reject(options.signal.reason ?? new Error('aborted'));
      else if (code === 0) resolve(stderr);
      else reject(new FfmpegError(`ffmpeg exited with ${code}: ${stderr.split('\n').slice(-4).join(' ').trim()}`));
    });
  });
}

/** Encodes keyframes to an MP4; returns its bytes and duration. */
export async function encodeVideo(options: EncodeOptions): Promise<{ mp4: Buffer; durationSeconds: number }> {
  const fps = options.fps ?? 24;
  const { width, height } = options;
  if (options.keyframes.length === 0) throw new FfmpegError('A video needs at least one keyframe');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'render-'));
  try {
    const inputs: string[] = [];
    const chains: string[] = [];
    let total = 0;
    for (const [index, frame] of options.keyframes.entries()) {
      const file = path.join(dir, `scene-${index}.png`);
      await writeFile(file, frame.png);
      inputs.push('-i', file);
      const frames = Math.max(1, Math.round(frame.seconds * fps));
      const fade = Math.min(0.3, frame.seconds / 4);
      total += frames / fps;
      chains.push(
        `[${index}:v]scale=${width}:${height},zoompan=z='1+0.0008*on':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=${frames}:s=${width}x${height}:fps=${fps},` +
          `fade=t=in:st=0:d=${fade},fade=t=out:st=${(frames / fps - fade).toFixed(3)}:d=${fade}[v${index}]`,
      );
    }
    const concat = `${options.keyframes.map((_, i) => `[v${i}]`).join('')}concat=n=${options.keyframes.length}:v=1:a=0,format=yuv420p[out]`;
    const output = path.join(dir, 'out.mp4');
    await run(
      [
        '-hide_banner',
        '-nostdin',
        ...inputs,
        '-filter_complex',
        `${chains.join(';')};${concat}`,
        '-map',
        '[out]',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-r',
        String(fps),
        '-movflags',
        '+faststart',
        '-progress',
        'pipe:1',
        '-nostats',
        '-y',
        output,
      ],
      {
        signal: options.signal,
        onStdoutLine: (line) => {
          const match = /^out_time_(?:us|ms)=(\d+)$/.exec(line);
          if (match && options.onProgress) options.onProgress(Math.min(1, Number(match[1]) / 1e6 / total));
        },
      },
    );
    return { mp4: await readFile(output), durationSeconds: Math.round(total * 1000) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface MediaProbe {
  durationSeconds: number | null;
  width: number | null;
  height: number | null;
  codec: string | null;
}

/** What ffmpeg reads from a media file (duration, frame size, codec), from its stream summary. */
export async function probeMedia(file: string): Promise<MediaProbe> {
  // `-f null -` decodes the whole file: a file that does not decode fails here.
  const stderr = await run(['-hide_banner', '-nostdin', '-i', file, '-f', 'null', '-'], {});
  const duration = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  const video = /Stream #\d+:\d+.*?: Video: (\w+).*?, (\d{2,5})x(\d{2,5})/.exec(stderr);
  return {
    durationSeconds: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null,
    codec: video?.[1] ?? null,
    width: video ? Number(video[2]) : null,
    height: video ? Number(video[3]) : null,
  };
}

/**
 * A JPEG of an image (the platform's renders and generated images are PNG; Instagram takes JPEG only). Any
 * transparency is laid on white, as an image viewer would show it, rather than on black.
 */
export async function convertToJpeg(image: Buffer, options: { signal?: AbortSignal } = {}): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'jpeg-'));
  try {
    const input = path.join(dir, 'in');
    const output = path.join(dir, 'out.jpg');
    await writeFile(input, image);
    await run(
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        input,
        '-filter_complex',
        'color=white[bg];[bg][0:v]scale2ref[bg][img];[bg][img]overlay=shortest=1,format=yuvj444p',
        '-frames:v',
        '1',
        '-q:v',
        '2',
        '-y',
        output,
      ],
      { signal: options.signal },
    );
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
