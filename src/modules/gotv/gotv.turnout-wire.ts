import type { TurnoutItem } from './gotv.events';

/**
 * `gotv:turnout` on the wire: a window's accepted reports packed into bytes and sent as one base64
 * string, `{ v: 1, packed }`. Every war-room screen receives every window and the server writes
 * each one to every socket (2,000 screens × hundreds of reports a second on election day): as a JSON
 * tuple a voter item was ≈ 88 bytes, packed it is 44 characters. The server, the screens and the
 * tests use the same functions (this file runs in all of them: no Node-only API).
 *
 * Each record, in acceptance order:
 *
 *   byte 0        flags: 1 = a count (else a voter report), 2 = a rehearsal's, 4 = flagged (counts)
 *   bytes 1–16    the polling station's id (a UUID's 16 bytes)
 *   bytes 17–32   the voter's id (voter report) or the report's id (count)
 *   bytes 33–36   counts only: votersSoFar, unsigned 32-bit big-endian
 *
 * docs/api.md documents the layout for other consumers.
 */
export const TURNOUT_WIRE_VERSION = 1;

export interface TurnoutMessage {
  v: typeof TURNOUT_WIRE_VERSION;
  /** Base64 of the records. */
  packed: string;
}

const COUNT = 1;
const REHEARSAL = 2;
const FLAGGED = 4;
const VOTER_RECORD = 33;
const COUNT_RECORD = 37;

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function writeUuid(bytes: Uint8Array, at: number, id: string): void {
  // Every id in these items is a PostgreSQL uuid column's value: anything else is a bug upstream.
  if (!UUID.test(id)) throw new TypeError('gotv:turnout items carry UUIDs only');
  const hex = id.replace(/-/g, '');
  for (let i = 0; i < 16; i++) bytes[at + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
}

function readUuid(binary: string, at: number): string {
  let id = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) id += '-';
    id += HEX[binary.charCodeAt(at + i)]!;
  }
  return id;
}

/** Packs a window's items (the server sends this; the bench's bare baseline too, so both carry the same bytes). */
export function encodeTurnout(items: readonly TurnoutItem[]): TurnoutMessage {
  let size = 0;
  for (const item of items) size += item[0] === 'count' ? COUNT_RECORD : VOTER_RECORD;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const item of items) {
    const count = item[0] === 'count';
    const rehearsal = count ? item[5] === true : item[3] === true;
    bytes[at] = (count ? COUNT : 0) | (rehearsal ? REHEARSAL : 0) | (count && item[4] ? FLAGGED : 0);
    writeUuid(bytes, at + 1, item[1]);
    writeUuid(bytes, at + 17, item[2]);
    if (count) {
      const voters = item[3];
      bytes[at + 33] = voters >>> 24;
      bytes[at + 34] = (voters >>> 16) & 255;
      bytes[at + 35] = (voters >>> 8) & 255;
      bytes[at + 36] = voters & 255;
    }
    at += count ? COUNT_RECORD : VOTER_RECORD;
  }
  let binary = '';
  // In slices: String.fromCharCode takes its bytes as arguments, and arguments are limited.
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return { v: TURNOUT_WIRE_VERSION, packed: btoa(binary) };
}

/** The items of a message, as tuples; a message of another version, or cut short, throws. */
export function decodeTurnout(message: TurnoutMessage): TurnoutItem[] {
  if (message.v !== TURNOUT_WIRE_VERSION) throw new TypeError(`gotv:turnout version ${String(message.v)} is not known here`);
  const binary = atob(message.packed);
  const items: TurnoutItem[] = [];
  for (let at = 0; at < binary.length;) {
    const flags = binary.charCodeAt(at);
    const count = (flags & COUNT) !== 0;
    if (at + (count ? COUNT_RECORD : VOTER_RECORD) > binary.length) throw new TypeError('gotv:turnout message cut short');
    const stationId = readUuid(binary, at + 1);
    const id = readUuid(binary, at + 17);
    const rehearsal = (flags & REHEARSAL) !== 0;
    if (count) {
      const voters = ((binary.charCodeAt(at + 33) << 24) | (binary.charCodeAt(at + 34) << 16) | (binary.charCodeAt(at + 35) << 8) | binary.charCodeAt(at + 36)) >>> 0;
      const item: TurnoutItem = ['count', stationId, id, voters, (flags & FLAGGED) !== 0];
      if (rehearsal) item.push(true);
      items.push(item);
      at += COUNT_RECORD;
    } else {
      items.push(rehearsal ? ['voter', stationId, id, true] : ['voter', stationId, id]);
      at += VOTER_RECORD;
    }
  }
  return items;
}
