/**
 * A product's own pictures, copied into the platform's media store when the product is imported or its image
 * URLs are set. Creative then composes with the stored copy: it does not depend on the shop's server being up
 * (or unchanged) when a campaign is generated months later, and nothing is fetched from the open web in the
 * middle of a generation.
 *
 * Every fetch goes through the SSRF guard (public addresses only, each redirect re-checked, size and time
 * caps). Only PNG, JPEG and WebP are accepted, and by their bytes, not by what the server claims; WebP is
 * converted to JPEG (by ffmpeg, as for Instagram's copies) because the image composer embeds PNG and JPEG only.
 * Keys are content-addressed, so storing the same picture again (a retried import) writes the same object.
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import { FetchRefusedError, type SafeFetch } from '../../net/safe-fetch.ts';
import { sniffImage, type EmbeddedImage } from '../creative/images/compose.ts';
import { convertToJpeg } from '../creative/video/ffmpeg.ts';
import type { MediaStore } from '../media/media-store.ts';

/** One stored copy of a product image. */
export interface StoredProductImage {
  /** The media key (`<workspace>/products/<product>/<digest>.<ext>`). */
  key: string;
  /** The URL it was copied from. */
  sourceUrl: string;
  mimeType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  bytes: number;
}

export interface ImageCopyFailure {
  sourceUrl: string;
  reason: string;
}

/** Images copied per product: creative uses the first; the others are kept for people choosing a different one. */
export const MAX_STORED_IMAGES = 3;
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

function isWebp(bytes: Buffer): boolean {
  return bytes.length > 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP';
}

export function createProductImageStore(deps: { safeFetch: Pick<SafeFetch, 'fetch'>; media: MediaStore }) {
  /** One image fetched, checked and stored; throws with a reason a person can act on. */
  async function copyOne(workspaceId: string, productId: string, sourceUrl: string): Promise<StoredProductImage> {
    let response;
    try {
      response = await deps.safeFetch.fetch(sourceUrl, {
        accept: ['image/png', 'image/jpeg', 'image/webp'],
        maxBytes: MAX_IMAGE_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
        maxRedirects: 3,
      });
    } catch (error) {
      if (error instanceof FetchRefusedError) throw new Error(error.message, { cause: error });
      throw error;
    }
    if (response.status !== 200) throw new Error(`the server answered HTTP ${response.status}`);
    let image: EmbeddedImage | null = sniffImage(response.body);
    if (!image && isWebp(response.body)) image = sniffImage(await convertToJpeg(response.body));
    if (!image) throw new Error('the file is not a PNG, JPEG or WebP image');
    const size = imageSize(image.bytes);
    if (!size.width || !size.height) throw new Error('the image has no readable size');
    const digest = createHash('sha256').update(image.bytes).digest('hex').slice(0, 24);
    const key = `${workspaceId}/products/${productId}/${digest}.${image.mimeType === 'image/png' ? 'png' : 'jpg'}`;
    await deps.media.put(key, image.bytes, image.mimeType);
    return {
      key,
      sourceUrl,
      mimeType: image.mimeType,
      width: size.width,
      height: size.height,
      bytes: image.bytes.length,
    };
  }

  return {
    /**
     * Copies the first few of a product's image URLs. An image that cannot be copied is reported, not thrown:
     * a product without its picture is still a product (creative then composes without it).
     */
    async copyImages(
      workspaceId: string,
      productId: string,
      urls: readonly string[],
    ): Promise<{ stored: StoredProductImage[]; failures: ImageCopyFailure[] }> {
      const stored: StoredProductImage[] = [];
      const failures: ImageCopyFailure[] = [];
      for (const sourceUrl of [...new Set(urls)].slice(0, MAX_STORED_IMAGES)) {
        try {
          stored.push(await copyOne(workspaceId, productId, sourceUrl));
        } catch (error) {
          failures.push({ sourceUrl, reason: (error as Error).message.slice(0, 300) });
        }
      }
      return { stored, failures };
    },

    /** The bytes of a stored copy, checked again on the way out; null when the object is gone. */
    async read(image: Pick<StoredProductImage, 'key'>): Promise<EmbeddedImage | null> {
      const object = await deps.media.get(image.key);
      return object ? sniffImage(object.bytes) : null;
    },
  };
}

export type ProductImageStore = ReturnType<typeof createProductImageStore>;
