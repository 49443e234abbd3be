/**
 * Expiring links to media files, for networks that fetch a post's media themselves at publish time (Instagram
 * takes an `image_url`/`video_url`, TikTok a `PULL_FROM_URL` source). A link is
 * `{platform_url}/media-links/<token>.<ext>`: the token seals the media key and an expiry with the platform's
 * credential keys (AES-GCM, `secret-box.ts`), so it is unguessable, reveals nothing of the key, cannot be
 * altered to reach another file, and stops working when it expires. The API serves it (`http/routes/media.ts`);
 * the worker makes it (both share `CREDENTIAL_KEYS`).
 */
import { createSecretBox } from '../shared/secret-box.ts';

export const MEDIA_LINK_PURPOSE = 'media-link';
export const MEDIA_LINK_PREFIX = '/media-links/';
/** Long enough for a network's fetch and its retries (Instagram processes a reel for minutes); short otherwise. */
export const MEDIA_LINK_TTL_SECONDS = 6 * 60 * 60;

const EXTENSION = /\.[a-z0-9]{1,5}$/i;

export interface MediaLinks {
  /** A link to `key` that works until `ttlSeconds` from now. */
  linkFor(key: string, ttlSeconds?: number): string;
  /** The media key of a link's path segment (`<token>.<ext>`), or null when it is not one of ours or expired. */
  resolve(segment: string): string | null;
}

export function createMediaLinks(options: {
  credentialKeys: readonly string[];
  publicBaseUrl: string;
  now?: () => Date;
}): MediaLinks {
  const box = createSecretBox(options.credentialKeys, MEDIA_LINK_PURPOSE);
  const now = options.now ?? (() => new Date());
  return {
    linkFor(key, ttlSeconds = MEDIA_LINK_TTL_SECONDS) {
      const expiresAt = Math.floor(now().getTime() / 1000) + ttlSeconds;
      const token = Buffer.from(box.seal(JSON.stringify({ key, exp: expiresAt }))).toString('base64url');
      const extension = EXTENSION.exec(key)?.[0]?.toLowerCase() ?? '';
      return `${options.publicBaseUrl}${MEDIA_LINK_PREFIX}${token}${extension}`;
    },
    resolve(segment) {
      const token = segment.replace(EXTENSION, '');
      try {
        const sealed = Buffer.from(token, 'base64url').toString('utf8');
        const { key, exp } = JSON.parse(box.open(sealed).plaintext) as { key: string; exp: number };
        return exp * 1000 >= now().getTime() ? key : null;
      } catch {
        return null;
      }
    },
  };
}
