import { Projector } from '../../src/modules/gotv/projection/projector';
import { project, type ProjectionInput, type StationInput } from '../../src/modules/gotv/projection/projection';
import { DEFAULT_CURVE } from '../../src/modules/gotv/projection/curve';

/** A small open day at 12:00 in Bogotá: 60 stations in 4 territories, most with two counts. */
function day(): ProjectionInput {
  const stations: StationInput[] = Array.from({ length: 60 }, (_, i) => {
    const registered = 900 + ((i * 37) % 400);
    return {
      id: `s${String(i).padStart(3, '0')}`,
      territoryId: `t${i % 4}`,
      registeredVoters: registered,
      confirmedVoters: 20,
      confirmedVoted: 5,
      previousTurnout: Math.round(registered * 0.55),
      counts:
        i % 6 === 0
          ? []
          : [
              { votersSoFar: Math.round(registered * 0.12), reportedAt: new Date('2026-03-08T15:00:00Z') },
              { votersSoFar: Math.round(registered * 0.22), reportedAt: new Date('2026-03-08T16:30:00Z') },
            ],
    };
  });
  return {
    now: new Date('2026-03-08T17:00:00Z'),
    timeZone: 'America/Bogota',
    electionDate: '2026-03-08',
    curve: DEFAULT_CURVE,
    stations,
    sumsUnder: new Map(stations.map((station) => [station.id, station.id < 's030' ? 'north' : 'south'])),
    only: new Set(stations.slice(0, 45).map((station) => station.id)),
  };
}

describe('the projection thread', () => {
  const projector = new Projector();
  afterAll(() => projector.close());

  it('answers what project() answers here, with the stations asked for', async () => {
    const input = day();
    const wanted = new Set(['s001', 's013']);
    const inline = project(input, { stations: (id) => wanted.has(id) });
    const threaded = await projector.project(input, wanted);
    expect(threaded).toEqual(inline);
    expect(threaded.stations.map((station) => station.id)).toEqual(['s001', 's013']);
    expect(threaded.byTerritory.map((row) => row.territoryId).sort()).toEqual(['north', 'south']);
    // Asked again with nothing changed: the same figures (its fit kept), no station listed.
    const again = await projector.project(input);
    expect(again.stations).toEqual([]);
    expect(again.overall).toEqual(inline.overall);
  });

  it('answers concurrent asks each with its own day', async () => {
    const first = day();
    const second = { ...day(), stations: day().stations.slice(0, 30) };
    const [a, b] = await Promise.all([projector.project(first), projector.project(second)]);
    expect(a.overall.stations).toBe(45);
    expect(b.overall.stations).toBe(30);
  });

  it('refuses once closed, and a new one starts its own thread', async () => {
    const closing = new Projector();
    await closing.project(day());
    await closing.close();
    await expect(closing.project(day())).rejects.toThrow(/closed/);
    const fresh = new Projector();
    try {
      expect((await fresh.project(day())).overall.stations).toBe(45);
    } finally {
      await fresh.close();
    }
  });
});
