// What an `updated` event reports as `changes`: each field that differs, with its old and new value.
import { isDeepStrictEqual } from 'node:util';

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

/** The fields among `fields` whose values differ between `was` and `now` (deeply: attribs, tags). */
export function changedFields<T extends object>(was: T, now: T, fields: readonly (keyof T & string)[]): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of fields) {
    if (!isDeepStrictEqual(was[field], now[field])) changes[field] = { from: was[field], to: now[field] };
  }
  return changes;
}
