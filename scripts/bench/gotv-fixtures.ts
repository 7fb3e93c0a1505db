/** Polling stations for the GOTV benchmarks, registered through the API like a campaign would. */
import { callJson } from './lib';

/** `P0000`, `P0001`, …: the code a voter CSV refers to. */
export const stationCode = (index: number) => `P${String(index).padStart(4, '0')}`;

/** `count` open stations with 10 tables and 6,000 registered voters each, spread over a grid; their ids in order. */
export async function createStations(baseUrl: string, token: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const station = await callJson<{ id: string }>(`${baseUrl}/api/gotv/polling-stations`, {
      token,
      expect: 201,
      body: { code: stationCode(i), name: `Puesto ${i}`, lat: 4.5 + (i % 20) / 100, lng: -74.2 + Math.floor(i / 20) / 100, tables: 10, registeredVoters: 6000, status: 'open' },
    });
    ids.push(station.id);
  }
  return ids;
}

/** Today as the election date with the polls open all day, so the projection is live whenever the run happens. */
export async function openElectionDay(baseUrl: string, adminToken: string): Promise<void> {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());
  const settings = await fetch(`${baseUrl}/api/gotv/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ electionDate: today, opensAt: '00:00', closesAt: '23:59' }),
  });
  if (settings.status !== 200) throw new Error(`PUT /api/gotv/settings: ${settings.status} ${await settings.text()}`);
}

/**
 * `voters` confirmed voters imported by CSV (`POST /api/gotv/voters/import`, `part` rows a file),
 * voter i at the station `codeOf(i)`, table 1 to 10; their document ids are 20,000,000 + i, so
 * that ordering them by document id gives them in import order.
 */
export async function importVoters(baseUrl: string, adminToken: string, voters: number, codeOf: (i: number) => string, part = 75_000): Promise<void> {
  for (let from = 0; from < voters; from += part) {
    const to = Math.min(voters, from + part);
    const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
    for (let i = from; i < to; i++) lines.push(`Votante ${i},${20_000_000 + i},,${codeOf(i)},${1 + (i % 10)},normal`);
    const response = await fetch(`${baseUrl}/api/gotv/voters/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${adminToken}` },
      body: `${lines.join('\n')}\n`,
    });
    // Every row a voter (created, or updated when the benchmark's database was not fresh), none refused.
    const answer = (await response.json()) as { created?: number; updated?: number; unchanged?: number };
    if ((answer.created ?? 0) + (answer.updated ?? 0) + (answer.unchanged ?? 0) !== to - from) throw new Error(`voter import: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/**
 * Election day for the GOTV benchmarks, set up through the API: `stations` stations, one brigade of
 * `memberIds` covering them all, the election open today, and `voters` confirmed voters imported
 * by CSV, spread over the stations.
 */
export async function setUpElectionDay(baseUrl: string, adminToken: string, options: { stations: number; voters: number; memberIds: string[] }): Promise<void> {
  const stationIds = await createStations(baseUrl, adminToken, options.stations);
  await callJson(`${baseUrl}/api/gotv/brigades`, { token: adminToken, expect: 201, body: { name: 'Brigada benchmark', memberIds: options.memberIds, stationIds } });
  await openElectionDay(baseUrl, adminToken);
  await importVoters(baseUrl, adminToken, options.voters, (i) => stationCode(i % options.stations));
}
