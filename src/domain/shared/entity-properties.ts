/** Property builders shared by every entity, so that ids and timestamps look the same everywhere. */
import { p } from '@mikro-orm/core';
import { newId, type IdKind } from './ids.ts';

/** A text primary key filled with a prefixed ULID when the entity is created. */
export function idProperty(kind: IdKind) {
  return p
    .string()
    .primary()
    .length(40)
    .onCreate(() => newId(kind));
}

export function createdAtProperty() {
  return p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date());
}

export function updatedAtProperty() {
  return p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());
}
