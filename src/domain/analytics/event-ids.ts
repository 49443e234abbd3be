/**
 * Site event ids are UUIDv7: the millisecond timestamp inside the id is the event's time, so the id alone
 * both deduplicates and places the event in its time partition. Beacons mint them in the browser; server-side
 * emitters mint them here.
 */
import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7, validate, version } from 'uuid';

/**
 * Random bytes for ids, drawn from one pool refilled 256 ids at a time: the library's default asks the CSPRNG
 * through WebCrypto for 16 bytes per id, which cost about a tenth of the CPU of serving a markdown twin (each
 * serve mints an impression id). Ids minted in the same millisecond are then not ordered among themselves;
 * nothing needs them to be (an id must be unique and carry its time).
 */
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let poolOffset = pool.length;

export function newEventId(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return uuidv7({ random });
}

/** The time a UUIDv7 carries (its first 48 bits), or null when `id` is not a UUIDv7. */
export function eventTimeOf(id: string): Date | null {
  if (!validate(id) || version(id) !== 7) return null;
  const millis = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return new Date(millis);
}
