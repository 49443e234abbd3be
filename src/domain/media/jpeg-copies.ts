/**
 * JPEG copies of the media store's images, for networks that take JPEG only (Instagram fetches `image_url` and
 * refuses PNG, which is what the platform renders). A copy is made once, with ffmpeg, and stored beside the
 * original (`…/still.png` → `…/still.png.jpg`), so a publish retried after a crash reuses it.
 */
import { NotFoundError } from '../../errors.ts';
import { convertToJpeg } from '../creative/video/ffmpeg.ts';
import type { MediaStore } from './media-store.ts';

export async function jpegCopyOf(media: Pick<MediaStore, 'get' | 'put'>, key: string): Promise<string> {
  if (/\.jpe?g$/i.test(key)) return key;
  const copyKey = `${key}.jpg`;
  if (await media.get(copyKey)) return copyKey;
  const original = await media.get(key);
  if (!original) throw new NotFoundError('Media', key);
  await media.put(copyKey, await convertToJpeg(original.bytes), 'image/jpeg');
  return copyKey;
}
