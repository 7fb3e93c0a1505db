import { Button, Group, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';

export interface SearchFormProps {
  /** The search as the address holds it; key the form by it, so Back shows it again. */
  value: string;
  onSearch: (value: string) => void;
  /** What the search landmark is called for screen readers ("Buscar personas"). */
  name: string;
  description?: string;
  placeholder?: string;
}

/** A list's one search box: what is typed is searched on Enter or the button, not at every key. */
export function SearchForm({ value, onSearch, name, description, placeholder }: SearchFormProps) {
  const [search, setSearch] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(search.trim());
  };
  return (
    <form onSubmit={submit} role="search" aria-label={name}>
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <TextInput
          label="Buscar"
          description={description}
          placeholder={placeholder}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: 1 }}
          maxLength={100}
          type="search"
        />
        <Button type="submit">Buscar</Button>
      </Group>
    </form>
  );
}
