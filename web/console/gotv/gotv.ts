/** What the election-day set-up screens share: the API's paths and types, their words in Spanish, and finding stations. */
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { Page } from '../../lib/api-types';
import type { brigadePeopleView, brigadeView, incidentView, stationView } from '../../../src/modules/gotv/gotv.schemas';
import { api } from '../app/api';
import type { SearchOption } from '../app/SearchSelect';

export const GOTV = '/api/gotv';
/** The console's election-day screens. */
export const SETUP_PATHS = {
  import: '/dia-electoral/importar',
  brigades: '/dia-electoral/brigadas',
  settings: '/dia-electoral/ajustes',
  incidents: '/dia-electoral/incidentes',
} as const;

export type Station = z.output<typeof stationView>;
export type Brigade = z.output<typeof brigadeView>;
export type Incident = z.output<typeof incidentView>;
export type BrigadePerson = z.output<typeof brigadePeopleView>['data'][number];

export const STATION_STATUS_LABELS: Record<Station['status'], string> = { pending: 'Sin abrir', open: 'Abierto', closed: 'Cerrado', incident: 'Con incidente' };

const stationLabel = (station: Pick<Station, 'name' | 'code'>) => `${station.name} (${station.code})`;

/** A polling station found by name or code, for selects (thousands of them: the server searches). */
export const stationSearch = {
  queryKey: ['gotv', 'stations', 'search'],
  search: async (text: string): Promise<SearchOption[]> => {
    const page = await api.get<Page<Station>>(`${GOTV}/polling-stations?limit=20${text.trim() ? `&q=${encodeURIComponent(text.trim().slice(0, 100))}` : ''}`);
    return page.data.map((station) => ({ value: station.id, label: stationLabel(station) }));
  },
  resolve: async (id: string) => stationLabel(await api.get<Station>(`${GOTV}/polling-stations/${id}`)),
} as const;

/** One station, cached for every screen that names it (a brigade's, an incident's). */
export function useStation(id: string) {
  return useQuery({ queryKey: ['gotv', 'station', id], queryFn: () => api.get<Station>(`${GOTV}/polling-stations/${id}`), staleTime: 60_000 });
}

/** The people brigades are made of, by id (brigade users to choose from, and everyone a brigade names). */
export function useBrigadePeople() {
  return useQuery({
    queryKey: ['gotv', 'brigade-people'],
    queryFn: async () => new Map((await api.get<{ data: BrigadePerson[] }>(`${GOTV}/brigade-people`)).data.map((person) => [person.id, person])),
    staleTime: 30_000,
  });
}
