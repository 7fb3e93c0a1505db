import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Page, Territory } from '../../lib/api-types';
import { api } from './api';

const TYPE_NAMES: Record<Territory['type'], string> = {
  department: 'departamento',
  municipality: 'municipio',
  commune: 'comuna',
  neighbourhood: 'barrio',
  zone: 'zona',
};

const option = (territory: Territory) => ({ value: territory.id, label: `${territory.name} (${TYPE_NAMES[territory.type]})` });

export interface TerritorySelectProps {
  label: string;
  value: string | null;
  onChange: (id: string | null) => void;
  description?: string;
}

/**
 * A territory chosen by typing part of its name: the API searches (`GET /api/territories?q=`,
 * 20 at a time), so a department with thousands of barrios is as quick as one comuna. The chosen
 * one is read by its id to show its name (a link shared with a filter in it).
 */
export function TerritorySelect({ label, value, onChange, description }: TerritorySelectProps) {
  const [search, setSearch] = useState('');
  const [typed] = useDebouncedValue(search.trim(), 250);
  const list = useQuery({
    queryKey: ['territories', 'search', typed],
    queryFn: () => api.get<Page<Territory>>(`/api/territories?limit=20${typed ? `&q=${encodeURIComponent(typed)}` : ''}`),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const chosen = useQuery({
    queryKey: ['territories', 'one', value],
    queryFn: () => api.get<Territory>(`/api/territories/${value}`),
    enabled: Boolean(value),
    staleTime: 300_000,
  });
  const options = (list.data?.data ?? []).map(option);
  if (value && chosen.data && !options.some((item) => item.value === value)) options.unshift(option(chosen.data));
  return (
    <Select
      label={label}
      description={description}
      placeholder="Escriba para buscar"
      searchable
      clearable
      clearButtonProps={{ 'aria-label': `Quitar ${label.toLowerCase()}` }}
      data={options}
      value={value}
      onChange={(id) => onChange(id)}
      searchValue={search}
      onSearchChange={setSearch}
      // The API already searched: every option it gave is shown.
      filter={({ options: given }) => given}
      nothingFoundMessage={list.isFetching ? 'Buscando…' : 'Ningún territorio con ese nombre'}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
