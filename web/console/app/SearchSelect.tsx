import { MultiSelect, Select, type MultiSelectProps, type OptionsFilter, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Page, Territory } from '../../lib/api-types';
import { api } from './api';

export interface SearchOption {
  value: string;
  label: string;
}

export interface SearchSelectProps extends Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  /** Names the cached answers (`['territories', 'search']`). */
  queryKey: readonly unknown[];
  value: string | null;
  onChange: (value: string | null) => void;
  /** The options for what was typed ('' before anything is): the server searches, the list shows what it answers. */
  search: (text: string) => Promise<SearchOption[]>;
  /** The chosen value's label, when it came from elsewhere (the address) and is not among the options. */
  resolve: (value: string) => Promise<string>;
}

const showAnswered: OptionsFilter = ({ options }) => options;

/**
 * What a select searched on the server needs, single or multiple: the options for what was typed
 * (debounced), the chosen values' labels when they are not among them (a value from the address),
 * and the props that make the select show the server's answer as it is.
 */
function useServerChoices(
  queryKey: readonly unknown[],
  search: (text: string) => Promise<SearchOption[]>,
  resolve: (value: string) => Promise<string>,
  chosen: string[],
  label: unknown,
) {
  const [typed, setTyped] = useState('');
  const [text] = useDebouncedValue(typed, 250);
  const options = useQuery({ queryKey: [...queryKey, text], queryFn: () => search(text), placeholderData: keepPreviousData, staleTime: 60_000 });
  const labels = useQueries({ queries: chosen.map((id) => ({ queryKey: [...queryKey, 'label', id], queryFn: () => resolve(id), staleTime: 300_000 })) });
  const data = [...(options.data ?? [])];
  chosen.forEach((id, index) => {
    if (!data.some((option) => option.value === id)) data.unshift({ value: id, label: labels[index]?.data ?? '…' });
  });
  const defaults = {
    searchable: true,
    clearable: true,
    // The clear button is an icon: it needs a name (axe).
    clearButtonProps: { 'aria-label': typeof label === 'string' ? `Quitar ${label.toLowerCase()}` : 'Quitar la elección' },
    nothingFoundMessage: options.isFetching ? 'Buscando…' : 'Nada coincide',
    comboboxProps: { withinPortal: true },
  };
  const controlled = {
    data,
    searchValue: typed,
    onSearchChange: setTyped,
    // The server already filtered; the options it answered are the list.
    filter: showAnswered,
  };
  return { defaults, controlled };
}

/** A select whose options the server finds as one types (a territory among thousands), keyboard-driven like any Mantine select. */
export function SearchSelect({ queryKey, value, onChange, search, resolve, ...props }: SearchSelectProps) {
  const { defaults, controlled } = useServerChoices(queryKey, search, resolve, value ? [value] : [], props.label);
  return <Select {...defaults} {...props} {...controlled} value={value} onChange={(next) => onChange(next)} />;
}

export interface SearchMultiSelectProps extends Omit<MultiSelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  queryKey: readonly unknown[];
  value: string[];
  onChange: (value: string[]) => void;
  search: (text: string) => Promise<SearchOption[]>;
  resolve: (value: string) => Promise<string>;
}

/** Several of them, found the same way (territories among thousands); the chosen ones keep their names whatever was typed since. */
export function SearchMultiSelect({ queryKey, value, onChange, search, resolve, ...props }: SearchMultiSelectProps) {
  const { defaults, controlled } = useServerChoices(queryKey, search, resolve, value, props.label);
  return <MultiSelect {...defaults} {...props} {...controlled} value={value} onChange={onChange} />;
}

const TERRITORY_TYPES: Record<string, string> = { department: 'departamento', municipality: 'municipio', commune: 'comuna', neighbourhood: 'barrio', zone: 'zona' };

const territoryLabel = (territory: Pick<Territory, 'name' | 'type'>) => `${territory.name} (${TERRITORY_TYPES[territory.type] ?? territory.type})`;

const territorySearch = {
  queryKey: ['territories', 'search'],
  search: async (text: string) => {
    const page = await api.get<Page<Territory>>(`/api/territories?limit=20${text.trim() ? `&q=${encodeURIComponent(text.trim().slice(0, 100))}` : ''}`);
    return page.data.map((territory) => ({ value: territory.id, label: territoryLabel(territory) }));
  },
  resolve: async (id: string) => territoryLabel(await api.get<Territory>(`/api/territories/${id}`)),
} as const;

/** A territory (department to barrio, or a campaign zone) found by name. */
export function TerritorySelect(props: Omit<SearchSelectProps, 'queryKey' | 'search' | 'resolve'>) {
  return <SearchSelect placeholder="Buscar…" {...props} {...territorySearch} />;
}

/** Several territories, each found by name (a campaign's segment). */
export function TerritoryMultiSelect(props: Omit<SearchMultiSelectProps, 'queryKey' | 'search' | 'resolve'>) {
  return <SearchMultiSelect placeholder="Buscar…" {...props} {...territorySearch} />;
}

interface PersonOption {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
}

const personLabel = (person: PersonOption) => [person.name, person.phone ?? person.email].filter(Boolean).join(' · ');

const personSearch = {
  queryKey: ['people', 'search'],
  search: async (text: string) => {
    if (!text.trim()) return [];
    const page = await api.get<Page<PersonOption>>(`/api/audience/contacts?limit=20&q=${encodeURIComponent(text.trim().slice(0, 100))}`);
    return page.data.map((person) => ({ value: person.id, label: personLabel(person) }));
  },
  resolve: async (id: string) => personLabel(await api.get<PersonOption>(`/api/audience/contacts/${id}`)),
} as const;

/** A person of the campaign's database found by name, phone, email or cédula (the people search's rules; for roles that may list people). */
export function PersonSelect(props: Omit<SearchSelectProps, 'queryKey' | 'search' | 'resolve'>) {
  return <SearchSelect placeholder="Nombre, teléfono, correo o cédula" {...props} {...personSearch} />;
}
