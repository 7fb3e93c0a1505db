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

/**
 * Election day for the GOTV benchmarks, set up through the API: `stations` stations, one brigade of
 * `memberIds` covering them all, today as the election date with the polls open all day (so the
 * projection is live whenever the run happens), and `voters` confirmed voters (a multiple of 75,000)
 * imported by CSV, spread over the stations.
 */
export async function setUpElectionDay(baseUrl: string, adminToken: string, options: { stations: number; voters: number; memberIds: string[] }): Promise<void> {
  const stationIds = await createStations(baseUrl, adminToken, options.stations);
  await callJson(`${baseUrl}/api/gotv/brigades`, { token: adminToken, expect: 201, body: { name: 'Brigada benchmark', memberIds: options.memberIds, stationIds } });
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Bogota' }).format(new Date());
  const settings = await fetch(`${baseUrl}/api/gotv/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ electionDate: today, opensAt: '00:00', closesAt: '23:59' }),
  });
  if (settings.status !== 200) throw new Error(`PUT /api/gotv/settings: ${settings.status} ${await settings.text()}`);
  const part = 75_000;
  for (let from = 0; from < options.voters; from += part) {
    const lines = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
    for (let i = from; i < from + part; i++) lines.push(`Votante ${i},${20_000_000 + i},,${stationCode(i % options.stations)},${1 + (i % 10)},normal`);
    const response = await fetch(`${baseUrl}/api/gotv/voters/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${adminToken}` },
      body: `${lines.join('\n')}\n`,
    });
    const answer = (await response.json()) as { imported?: number };
    if (answer.imported !== part) throw new Error(`voter import: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}
