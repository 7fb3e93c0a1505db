import { Alert, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api } from '../app/api';
import { ENTRIES, entryKey, financeProblem, type Entry } from './data';
import { EntryFormScreen } from './NewEntryPage';

/** `/finanzas/movimientos/:id/corregir`: the entry form with the entry's values, for an entry of an open period. */
export default function EditEntryPage() {
  const { id = '' } = useParams();
  const entry = useQuery({ queryKey: entryKey(id), queryFn: () => api.get<Entry>(`${ENTRIES}/${id}`) });
  if (entry.isPending) return <Loader aria-label="Cargando" />;
  if (entry.isError)
    return (
      <Alert color="red" role="alert">
        {financeProblem(entry.error)}
      </Alert>
    );
  if (entry.data.periodClosed || entry.data.reversesId || entry.data.reversedById)
    return (
      <Alert color="orange" role="alert">
        Este movimiento ya no se corrige aquí ({entry.data.periodClosed ? 'su periodo está cerrado' : 'es una reversión o fue reversado'}): se corrige con una reversión.
      </Alert>
    );
  return <EntryFormScreen key={entry.data.updatedAt} entry={entry.data} />;
}
