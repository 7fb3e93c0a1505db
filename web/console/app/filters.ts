import { useSearchParams } from 'react-router';

/**
 * A screen's filters kept in the address, so that a link, a reload or the back button shows the
 * same list: `values` reads them, `set` changes several at once (an empty value removes one).
 */
export function useUrlFilters<Name extends string>(names: readonly Name[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(names.map((name) => [name, params.get(name) || undefined])) as Record<Name, string | undefined>;
  const set = (changes: Partial<Record<Name, string | null | undefined>>, options: { replace?: boolean } = {}) => {
    // From the address as it is now, not as of the last render: the router's updater does not queue,
    // so two changes made before the screen redraws (one filter, then the next) would lose the first.
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(changes) as [Name, string | null | undefined][]) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setParams(next, { replace: options.replace ?? false });
  };
  const clear = () => set(Object.fromEntries(names.map((name) => [name, undefined])) as Partial<Record<Name, undefined>>);
  const active = names.filter((name) => values[name] !== undefined);
  return { values, set, clear, active };
}

/** `?a=1&b=x` from the values that are set (an API path's query), or '' when none is. */
export function queryString(values: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
