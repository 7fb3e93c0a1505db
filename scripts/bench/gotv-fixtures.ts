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
