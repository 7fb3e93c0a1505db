import type { Page } from '../../lib/api-types';
import { api } from '../app/api';
import { SearchSelect, type SearchSelectProps } from '../app/SearchSelect';
import { VOLUNTEERS_API, type Volunteer, type VolunteerRow } from './types';

const volunteerSearch = {
  queryKey: ['volunteers', 'search'],
  search: async (text: string) => {
    const page = await api.get<Page<VolunteerRow>>(`${VOLUNTEERS_API}?limit=20${text.trim() ? `&q=${encodeURIComponent(text.trim().slice(0, 100))}` : ''}`);
    return page.data.map((volunteer) => ({ value: volunteer.id, label: volunteer.name }));
  },
  resolve: async (id: string) => (await api.get<Volunteer>(`${VOLUNTEERS_API}/${id}`)).name,
} as const;

/** A volunteer found by name (a leader). */
export function VolunteerSelect(props: Omit<SearchSelectProps, 'queryKey' | 'search' | 'resolve'>) {
  return <SearchSelect placeholder="Buscar…" {...props} {...volunteerSearch} />;
}
