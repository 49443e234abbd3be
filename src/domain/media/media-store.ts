/**
 * Object storage for generated media (images, videos), behind one small interface: a local directory by
 * default, any S3-compatible store by configuration (path-style requests signed with SigV4 by `aws4fetch`).
 *
 * Keys are `<workspaceId>/<area>/…` and are checked before use, so a key can never climb out of the store's
 * directory or address another bucket. Media are served by the platform at `{platform_url}/media/<key>`
 * (see `http/routes/media.ts`); keys carry random job ids, so URLs are unguessable but public, as published
 * campaign images must be.
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AwsClient } from 'aws4fetch';
import { XMLParser } from 'fast-xml-parser';
import type { Config } from '../../config.ts';

export interface StoredMedia {
  bytes: Buffer;
  contentType: string;
}

export interface MediaStore {
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<StoredMedia | null>;
  /** The public URL the platform serves the object at. */
  urlFor(key: string): string;
  /** Resolves when the store can be written to (readiness, `/readyz`); rejects with the reason otherwise. */
  checkReachable(): Promise<void>;
}

const KEY_PATTERN = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)+$/;
const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.mp4': 'video/mp4',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** Whether `key` is a well-formed media key (no `..`, no leading slash, known characters only). */
export function isMediaKey(key: string): boolean {
  return key.length <= 400 && KEY_PATTERN.test(key) && !key.split('/').some((part) => part === '.' || part === '..');
}

function assertKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`Invalid media key: ${JSON.stringify(key.slice(0, 80))}`);
}

export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
}

export function createLocalMediaStore(options: { dir: string; publicBaseUrl: string }): MediaStore {
  const root = path.resolve(options.dir);
  return {
    kind: 'local',
    async put(key, bytes) {
      assertKey(key);
      const file = path.join(root, key);
      await mkdir(path.dirname(file), { recursive: true });
      // Write then rename: a reader never sees half a file, and a retried activity just replaces it.
      const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, bytes);
      await rename(temporary, file);
    },
    async get(key) {
      if (!isMediaKey(key)) return null;
      try {
        return { bytes: await readFile(path.join(root, key)), contentType: contentTypeOf(key) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    urlFor: (key) => `${options.publicBaseUrl}/media/${key}`,
    async checkReachable() {
      // The folder appears with the first stored object; a fresh volume is ready if it can be created.
      await mkdir(root, { recursive: true });
      await access(root, constants.W_OK);
    },
  };
}

const s3Xml = new XMLParser();

/** An S3 failure as one line: the status and, from S3's XML error body, its code and message. */
async function s3Failure(operation: 'PUT' | 'GET' | 'HEAD', key: string, response: Response): Promise<Error> {
  let detail = '';
  try {
    const error = (s3Xml.parse(await response.text()) as { Error?: { Code?: string; Message?: string } }).Error;
    if (error?.Code) detail = ` ${error.Code}${error.Message ? `: ${error.Message}` : ''}`;
  } catch {
    // Not an S3 error document (a proxy's page, an empty body): the status says enough.
  }
  return new Error(`S3 ${operation} ${key} failed: HTTP ${response.status}${detail}`);
}

export function createS3MediaStore(options: {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  publicBaseUrl: string;
}): MediaStore {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    region: options.region,
    service: 's3',
  });
  const objectUrl = (key: string) =>
    `${options.endpoint}/${encodeURIComponent(options.bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      assertKey(key);
      const response = await client.fetch(objectUrl(key), {
        method: 'PUT',
        body: new Uint8Array(bytes),
        headers: { 'content-type': contentType, 'content-length': String(bytes.length) },
      });
      if (!response.ok) throw await s3Failure('PUT', key, response);
    },
    async get(key) {
      if (!isMediaKey(key)) return null;
      const response = await client.fetch(objectUrl(key), { method: 'GET' });
      if (response.status === 404) return null;
      if (!response.ok) throw await s3Failure('GET', key, response);
      return {
        bytes: Buffer.from(await response.arrayBuffer()),
        contentType: response.headers.get('content-type') ?? contentTypeOf(key),
      };
    },
    urlFor: (key) => `${options.publicBaseUrl}/media/${key}`,
    async checkReachable() {
      // HeadBucket: answered by the store without listing anything; 403 means the credentials are refused.
      const response = await client.fetch(`${options.endpoint}/${encodeURIComponent(options.bucket)}`, {
        method: 'HEAD',
      });
      if (!response.ok) throw await s3Failure('HEAD', options.bucket, response);
    },
  };
}

export function createMediaStore(config: Config): MediaStore {
  const publicBaseUrl = config.urls.platform;
  return config.media.store === 's3'
    ? createS3MediaStore({ ...config.media, publicBaseUrl })
    : createLocalMediaStore({ dir: config.media.dir, publicBaseUrl });
}
