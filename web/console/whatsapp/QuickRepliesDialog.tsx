import { Alert, Button, Group, Loader, Modal, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { createQuickReplyBody } from '../../../src/modules/whatsapp/whatsapp.schemas';
import { api, ApiError, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { problemMessage } from '../app/problems';
import { keys, replyRefusal, type QuickReply } from './inbox';

const EMPTY = { shortcut: '/', title: '', text: '' };

/** The team's canned answers: add, change and remove them (Chatwoot's canned responses). */
export function QuickRepliesDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const list = useQuery({ queryKey: keys.quickReplies, queryFn: () => api.all<QuickReply>('/api/whatsapp/quick-replies', 500), enabled: opened });
  const [editing, setEditing] = useState<QuickReply | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const { form, submit, submitting, formError, setFormError } = useSchemaForm(createQuickReplyBody, { initialValues: EMPTY });

  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.quickReplies });
  const startEditing = (reply: QuickReply | null) => {
    setEditing(reply);
    setFormError(null);
    form.setValues(reply ? { shortcut: reply.shortcut, title: reply.title, text: reply.text } : EMPTY);
    form.resetDirty();
    form.clearErrors();
  };

  const onSubmit = submit(async (values) => {
    try {
      if (editing) await api.patch<QuickReply>(`/api/whatsapp/quick-replies/${editing.id}`, values);
      else await api.post<QuickReply>('/api/whatsapp/quick-replies', values);
    } catch (error) {
      if (error instanceof ApiError && error.problem?.code === 'shortcut_taken') {
        form.setFieldError('shortcut', replyRefusal(error));
        return;
      }
      throw error;
    }
    await refresh();
    startEditing(null);
  });

  const remove = async (reply: QuickReply) => {
    setListError(null);
    try {
      await api.delete(`/api/whatsapp/quick-replies/${reply.id}`);
      setConfirming(null);
      if (editing?.id === reply.id) startEditing(null);
      await refresh();
    } catch (error) {
      setListError(problemMessage(error));
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Respuestas rápidas" size="xl" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <Stack>
        <Text size="sm">
          Escriba «/» al comienzo del mensaje para usarlas. Pueden llevar {'{{nombre}}'}, {'{{primer_nombre}}'}, {'{{barrio}}'} (de la persona) y {'{{agente}}'} (quien responde).
        </Text>
        {listError && (
          <Alert color="red" role="alert">
            {listError}
          </Alert>
        )}
        {list.isPending ? (
          <Loader size="sm" aria-label="Cargando respuestas rápidas" />
        ) : list.data?.length ? (
          <Table.ScrollContainer minWidth={560} mah={260}>
            <Table striped verticalSpacing={4}>
              <Table.Caption>Respuestas rápidas del equipo</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Atajo</Table.Th>
                  <Table.Th>Título</Table.Th>
                  <Table.Th>Texto</Table.Th>
                  <Table.Th>Acciones</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((reply) => (
                  <Table.Tr key={reply.id}>
                    <Table.Td fw={700}>{reply.shortcut}</Table.Td>
                    <Table.Td>{reply.title}</Table.Td>
                    <Table.Td>
                      <Text size="xs" lineClamp={2}>
                        {reply.text}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {confirming === reply.id ? (
                        <Group gap={4} wrap="nowrap">
                          <Button size="compact-xs" color="red" onClick={() => void remove(reply)} aria-label={`Sí, eliminar ${reply.shortcut}`}>
                            Sí, eliminar
                          </Button>
                          <Button size="compact-xs" variant="default" onClick={() => setConfirming(null)}>
                            No
                          </Button>
                        </Group>
                      ) : (
                        <Group gap={4} wrap="nowrap">
                          <Button size="compact-xs" variant="default" onClick={() => startEditing(reply)} aria-label={`Editar ${reply.shortcut}`}>
                            Editar
                          </Button>
                          <Button size="compact-xs" variant="default" color="red" onClick={() => setConfirming(reply.id)} aria-label={`Eliminar ${reply.shortcut}`}>
                            Eliminar
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ) : (
          <Text c="dimmed" size="sm">
            El equipo aún no tiene respuestas rápidas.
          </Text>
        )}
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="xs">
            <Title order={3} size="h5">
              {editing ? `Editar ${editing.shortcut}` : 'Nueva respuesta rápida'}
            </Title>
            {formError && (
              <Alert color="red" role="alert">
                {formError}
              </Alert>
            )}
            <Group grow align="flex-start">
              <TextInput label="Atajo" description="Una barra y una palabra, como /horario" required {...form.getInputProps('shortcut')} />
              <TextInput label="Título" required {...form.getInputProps('title')} />
            </Group>
            <Textarea label="Texto" required autosize minRows={3} maxRows={8} {...form.getInputProps('text')} />
            <Group justify="flex-end">
              {editing && (
                <Button variant="default" onClick={() => startEditing(null)}>
                  Cancelar edición
                </Button>
              )}
              <Button type="submit" loading={submitting}>
                {editing ? 'Guardar cambios' : 'Agregar'}
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Modal>
  );
}
