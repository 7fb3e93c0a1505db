import { Alert, Button, Checkbox, Group, Paper, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { createTaskBody } from '../../../src/modules/agenda/agenda.schemas';
import { api, queryClient } from '../app/api';
import { formatDateTime, localInstant } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { useNow } from '../app/useNow';
import { AGENDA_PROBLEMS, eventPath, type AgendaEvent, type Task } from './data';

/** `/agenda/:id/tareas`: the event's to-do list, open ones first by due time; the organiser adds and removes, the assignee ticks theirs off. */
export function TasksSection({ event, runs }: { event: AgendaEvent; runs: boolean }) {
  const { user } = useSignedIn();
  const now = useNow();
  const path = `${eventPath(event.id)}/tasks`;
  const key = ['agenda', 'tasks', event.id];
  const tasks = useQuery({ queryKey: key, queryFn: () => api.get<{ data: Task[] }>(path) });
  const [due, setDue] = useState({ day: '', time: '' });
  const { form, submit, submitting, formError } = useSchemaForm(
    createTaskBody,
    {
      initialValues: { title: '', notes: '', dueAt: undefined as string | undefined, assigneeId: undefined as string | undefined },
      emptyAs: { notes: 'absent' },
      messages: { dueAt: 'Elija el día de la tarea (la hora es opcional).' },
    },
    AGENDA_PROBLEMS,
  );
  const setDueAt = (next: typeof due) => {
    setDue(next);
    form.setFieldValue('dueAt', next.day || next.time ? (localInstant(next.day, next.time || '23:59') ?? '') : undefined);
  };
  const onSubmit = submit(async (values) => {
    await api.post(path, values);
    form.reset();
    setDue({ day: '', time: '' });
    await queryClient.invalidateQueries({ queryKey: key });
  });
  const change = async (task: Task, body: Record<string, unknown>) => {
    try {
      if (body.remove) await api.delete(`${path}/${task.id}`);
      else await api.patch(`${path}/${task.id}`, body);
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error, AGENDA_PROBLEMS) });
    }
  };
  const rows = tasks.data?.data ?? [];
  const overdue = (task: Task) => !task.done && task.dueAt && Date.parse(task.dueAt) < now;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="tasks">
      <Title order={2} size="h4" id="tasks" mb="xs">
        Tareas del evento
      </Title>
      {tasks.isError && <Alert color="red">{problemMessage(tasks.error)}</Alert>}
      {rows.length === 0 && tasks.isSuccess && (
        <Text size="sm" c="dimmed" mb="sm">
          Aún no hay tareas.
        </Text>
      )}
      <Stack gap="xs" mb="md" component="ul" style={{ listStyle: 'none', padding: 0 }}>
        {rows.map((task) => {
          const mayTick = runs || task.assigneeId === user.id;
          return (
            <li key={task.id}>
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={0}>
                  <Checkbox
                    label={task.title}
                    checked={task.done}
                    disabled={!mayTick}
                    onChange={(tick) => void change(task, { done: tick.currentTarget.checked })}
                    styles={{ label: { textDecoration: task.done ? 'line-through' : undefined } }}
                  />
                  <Text size="xs" ml={32} c={overdue(task) ? TONES.red.text : undefined}>
                    {[
                      task.done
                        ? `Hecha${task.doneAt ? ` el ${formatDateTime(task.doneAt)}` : ''}`
                        : task.dueAt
                          ? `${overdue(task) ? 'Vencida: era' : 'Para'} el ${formatDateTime(task.dueAt)}`
                          : 'Sin fecha',
                      task.assigneeId === user.id ? 'asignada a usted' : null,
                      task.notes,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  </Text>
                </Stack>
                {runs && (
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => void change(task, { remove: true })} aria-label={`Quitar la tarea ${task.title}`}>
                    Quitar
                  </Button>
                )}
              </Group>
            </li>
          );
        })}
      </Stack>
      {runs && event.status !== 'cancelled' && (
        <form onSubmit={onSubmit} noValidate aria-label="Agregar una tarea">
          <Stack gap="sm">
            <Group align="flex-start" wrap="wrap">
              <TextInput label="Nueva tarea" required w={320} {...form.getInputProps('title')} />
              <TextInput type="date" label="Para el día" value={due.day} onChange={(input) => setDueAt({ ...due, day: input.currentTarget.value })} error={form.errors.dueAt} />
              <TextInput type="time" label="Hora" value={due.time} onChange={(input) => setDueAt({ ...due, time: input.currentTarget.value })} />
              <Checkbox
                label="Asignármela"
                mt={32}
                checked={form.getValues().assigneeId === user.id}
                onChange={(tick) => form.setFieldValue('assigneeId', tick.currentTarget.checked ? user.id : undefined)}
              />
            </Group>
            <Textarea label="Notas" autosize minRows={1} {...form.getInputProps('notes')} />
            {formError && (
              <Alert color="red" role="alert">
                {formError}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={submitting}>
                Agregar tarea
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Paper>
  );
}
