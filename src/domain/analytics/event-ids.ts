/**
 * Site event ids are UUIDv7: the millisecond timestamp inside the id is the event's time, so the id alone
 * both deduplicates and places the event in its time partition. Beacons mint them in the browser; server-side
 * emitters mint them here.
 */
import { v7 as uuidv7, validate, version } from 'uuid';

export function newEventId(): string {
  return uuidv7();
}

/** The time a UUIDv7 carries (its first 48 bits), or null when `id` is not a UUIDv7. */
export function eventTimeOf(id: string): Date | null {
  if (!validate(id) || version(id) !== 7) return null;
  const millis = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return new Date(millis);
}
