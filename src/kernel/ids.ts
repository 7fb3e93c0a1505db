import { uuidv7 } from 'uuidv7';

/** Time-ordered UUID v7: ids sort by creation, so "newest first" is an index scan on the key. */
export function newId(): string {
  return uuidv7();
}
