import { Button, Group, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'react-router';

export interface SearchFormProps {
  /** The search as the address holds it: the box shows it again whenever the address changes. */
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
  // Each history entry has its own key. Back right after a search can land before the search's own
  // render, so the value alone may not change between renders while the box still holds the typing.
  const entry = useLocation().key;
  const [shownEntry, setShownEntry] = useState(entry);
  if (entry !== shownEntry) {
    setShownEntry(entry);
    setSearch(value);
  }
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
