import { Button, Group, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
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
  // The box shows the address again whenever its history entry changes (each has its own key), and
  // after every Back or Forward: one pressed before a search's own render undoes a navigation React
  // never showed, so neither the entry nor the value changes while the box still holds the typing.
  const entry = useLocation().key;
  const [pops, setPops] = useState(0);
  const [shown, setShown] = useState({ entry, pops });
  if (entry !== shown.entry || pops !== shown.pops) {
    setShown({ entry, pops });
    setSearch(value);
  }
  useEffect(() => {
    const popped = () => setPops((count) => count + 1);
    window.addEventListener('popstate', popped);
    return () => window.removeEventListener('popstate', popped);
  }, []);
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
