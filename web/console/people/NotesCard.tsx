import { Alert, Button, Card, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { noteBody } from '../../../src/modules/audience/audience.people.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDateTime } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { useSignedIn } from '../app/session';
import { RelativeTime } from '../app/Time';
import { peopleProblem } from './problems';
import type { Note } from './types';

/** Staff's notes about the person: the newest first, with author and time; each deleted by its author (or an admin). */
export function NotesCard({ personId, notes }: { personId: string; notes: Note[] }) {
  const { user } = useSignedIn();
  const { form, submit, submitting, formError } = useSchemaForm(noteBody, { initialValues: { text: '' } });
  const [deleting, setDeleting] = useState<Note | null>(null);

  const onSubmit = submit(async (values) => {
    await api.post<Note>(`/api/audience/contacts/${personId}/notes`, values);
    form.reset();
    await queryClient.invalidateQueries({ queryKey: ['person', personId] });
  });

  const remove = async () => {
    if (!deleting) return;
    await api.delete(`/api/audience/contacts/${personId}/notes/${deleting.id}`);
    notifications.show({ color: 'green', message: 'Nota borrada.' });
    await queryClient.invalidateQueries({ queryKey: ['person', personId] });
  };

  return (
    <Card withBorder component="section" aria-labelledby="notas">
      <Title order={2} size="h4" id="notas" mb="sm">
        Notas del equipo
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="xs">
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <Textarea label="Nueva nota" placeholder="Lo que el equipo debe saber de esta persona" autosize minRows={2} {...form.getInputProps('text')} />
          <Group justify="flex-end">
            <Button type="submit" size="xs" loading={submitting}>
              Agregar nota
            </Button>
          </Group>
        </Stack>
      </form>
      {notes.length ? (
        <Stack component="ul" gap="sm" mt="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {notes.map((note) => (
            <li key={note.id}>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {note.text}
              </Text>
              <Group gap="xs" justify="space-between">
                <Text size="xs" c="dimmed">
                  {note.author?.name ?? 'Cuenta eliminada'} · <RelativeTime value={note.createdAt} />
                </Text>
                {(note.author?.id === user.id || user.role === 'admin') && (
                  <Button variant="subtle" color="red" size="compact-xs" onClick={() => setDeleting(note)} aria-label={`Borrar la nota del ${formatDateTime(note.createdAt)}`}>
                    Borrar
                  </Button>
                )}
              </Group>
            </li>
          ))}
        </Stack>
      ) : (
        <Text size="sm" c="dimmed" mt="sm">
          Aún no hay notas.
        </Text>
      )}
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Borrar la nota"
        confirmLabel="Borrar nota"
        danger
        onConfirm={remove}
        describeError={peopleProblem}
      >
        <Text size="sm">La nota desaparece de la página y de la historia de la persona.</Text>
        {deleting && (
          <Text size="sm" p="xs" bg="gray.0" style={{ whiteSpace: 'pre-wrap' }}>
            {deleting.text}
          </Text>
        )}
      </ConfirmDialog>
    </Card>
  );
}
