import { randomUUID } from 'node:crypto';
import type { TurnoutItem } from '../../src/modules/gotv/gotv.events';
import { decodeTurnout, encodeTurnout, TURNOUT_WIRE_VERSION, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';

describe('gotv:turnout wire format', () => {
  const station = randomUUID();

  it('gives back every kind of item as it was, in order', () => {
    const items: TurnoutItem[] = [
      ['voter', station, randomUUID()],
      ['count', station, randomUUID(), 0, false],
      ['voter', randomUUID(), randomUUID(), true],
      ['count', station, randomUUID(), 4_294_967_295, true],
      ['count', station, randomUUID(), 812, false, true],
      ['count', station, randomUUID(), 65_536, true, true],
    ];
    const message = encodeTurnout(items);
    expect(message.v).toBe(TURNOUT_WIRE_VERSION);
    expect(decodeTurnout(message)).toEqual(items);
  });

  it('reads ids written in capitals as the lower-case ids the database returns', () => {
    const voter = randomUUID();
    expect(decodeTurnout(encodeTurnout([['voter', station.toUpperCase(), voter.toUpperCase()]]))).toEqual([['voter', station, voter]]);
  });

  it('costs 33 bytes a voter report and 37 a count, in base64 (44 characters a voter report, against ≈ 88 as a JSON tuple)', () => {
    const voters: TurnoutItem[] = Array.from({ length: 30 }, () => ['voter', station, randomUUID()]);
    expect(encodeTurnout(voters).packed).toHaveLength(30 * 44);
    expect(JSON.stringify({ items: voters }).length).toBeGreaterThan(30 * 85);
    const counts: TurnoutItem[] = Array.from({ length: 3 }, () => ['count', station, randomUUID(), 120, false]);
    expect(encodeTurnout(counts).packed).toHaveLength(Math.ceil((3 * 37) / 3) * 4);
  });

  it('packs an empty window into an empty string, and a large one whole', () => {
    expect(encodeTurnout([])).toEqual({ v: TURNOUT_WIRE_VERSION, packed: '' });
    expect(decodeTurnout(encodeTurnout([]))).toEqual([]);
    const many: TurnoutItem[] = Array.from({ length: 5000 }, (_, i) => (i % 3 ? ['voter', station, randomUUID()] : ['count', station, randomUUID(), i, i % 2 === 0]));
    expect(decodeTurnout(encodeTurnout(many))).toEqual(many);
  });

  it('refuses to pack an id that is not a UUID (the wire has 16 bytes for it)', () => {
    expect(() => encodeTurnout([['voter', station, 'not-a-uuid']])).toThrow(TypeError);
  });

  it('refuses a message of another version or cut short, rather than reading wrong figures', () => {
    const message = encodeTurnout([['count', station, randomUUID(), 77, false]]);
    expect(() => decodeTurnout({ ...message, v: 2 } as unknown as TurnoutMessage)).toThrow(/version 2/);
    const bytes = atob(message.packed);
    expect(() => decodeTurnout({ v: TURNOUT_WIRE_VERSION, packed: btoa(bytes.slice(0, 30)) })).toThrow(/cut short/);
  });
});
