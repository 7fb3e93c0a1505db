import { MultiSelect, Select, type MultiSelectProps, type SelectProps } from '@mantine/core';
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

/** A select whose options the server finds as one types (a territory among thousands), keyboard-driven like any Mantine select. */
export function SearchSelect({ queryKey, value, onChange, search, resolve, ...props }: SearchSelectProps) {
  const [typed, setTyped] = useState('');
  const [text] = useDebouncedValue(typed, 250);
  const options = useQuery({ queryKey: [...queryKey, text], queryFn: () => search(text), placeholderData: keepPreviousData, staleTime: 60_000 });
  const chosen = useQuery({ queryKey: [...queryKey, 'label', value], queryFn: () => resolve(value!), enabled: value !== null, staleTime: 300_000 });
  const data = [...(options.data ?? [])];
  if (value && !data.some((option) => option.value === value)) data.unshift({ value, label: chosen.data ?? '…' });
  return (
    <Select
      searchable
      clearable
      // The clear button is an icon: it needs a name (axe).
      clearButtonProps={{ 'aria-label': typeof props.label === 'string' ? `Quitar ${props.label.toLowerCase()}` : 'Quitar la elección' }}
      nothingFoundMessage={options.isFetching ? 'Buscando…' : 'Nada coincide'}
      comboboxProps={{ withinPortal: true }}
      {...props}
      data={data}
      value={value}
      onChange={(next) => onChange(next)}
      searchValue={typed}
      onSearchChange={setTyped}
      // The server already filtered; the options it answered are the list.
      filter={({ options: all }) => all}
    />
  );
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
  const [typed, setTyped] = useState('');
  const [text] = useDebouncedValue(typed, 250);
  const options = useQuery({ queryKey: [...queryKey, text], queryFn: () => search(text), placeholderData: keepPreviousData, staleTime: 60_000 });
  const labels = useQueries({ queries: value.map((id) => ({ queryKey: [...queryKey, 'label', id], queryFn: () => resolve(id), staleTime: 300_000 })) });
  const data = [...(options.data ?? [])];
  value.forEach((id, index) => {
    if (!data.some((option) => option.value === id)) data.unshift({ value: id, label: labels[index]?.data ?? '…' });
  });
  return (
    <MultiSelect
      searchable
      clearable
      clearButtonProps={{ 'aria-label': typeof props.label === 'string' ? `Quitar ${props.label.toLowerCase()}` : 'Quitar la elección' }}
      nothingFoundMessage={options.isFetching ? 'Buscando…' : 'Nada coincide'}
      comboboxProps={{ withinPortal: true }}
      {...props}
      data={data}
      value={value}
      onChange={onChange}
      searchValue={typed}
      onSearchChange={setTyped}
      filter={({ options: all }) => all}
    />
  );
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
