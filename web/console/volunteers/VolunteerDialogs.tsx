import { Alert, Button, Group, Modal, NumberInput, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { FormEvent, ReactNode } from 'react';
import type { z } from 'zod';
import type { userView } from '../../../src/modules/auth/auth.schemas';
import { updateVolunteerBody } from '../../../src/modules/volunteers/volunteers.schemas';
import { VOLUNTEER_STATUSES } from '../../../src/modules/volunteers/volunteers.values';
import type { Page } from '../../lib/api-types';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { api, ApiError, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { SearchSelect, TerritorySelect } from '../app/SearchSelect';
import { invalidateServerLists } from '../app/ServerTable';
import { STATUS_LABELS, VOLUNTEER_PROBLEMS } from './labels';
import { VOLUNTEERS_API, type Volunteer } from './types';
import { VolunteerSelect } from './volunteerSelect';

type User = z.output<typeof userView>;

/** After a change: the volunteer's page, the lists and the pyramid show it. */
export async function refreshVolunteer(id: string): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: ['volunteer', id] }),
    queryClient.invalidateQueries({ queryKey: ['volunteers'] }),
    invalidateServerLists(VOLUNTEERS_API),
  ]);
}

/** A dialog holding one form: its refusal above the fields, Cancelar and the act's own button below. */
function FormDialog(props: {
  title: string;
  onClose: () => void;
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
  formError: string | null;
  submitting: boolean;
  submitLabel: string;
  submitDisabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Modal opened onClose={props.onClose} title={props.title} size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form onSubmit={props.onSubmit} noValidate>
        <Stack>
          {props.formError && (
            <Alert color="red" role="alert">
              {props.formError}
            </Alert>
          )}
          {props.children}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancelar
            </Button>
            <Button type="submit" loading={props.submitting} disabled={props.submitDisabled}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The team's own fields: status, territory, leader and goals (the person's name and contact details are changed in Personas). */
export function EditVolunteerDialog({ volunteer, onClose }: { volunteer: Volunteer; onClose: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    updateVolunteerBody,
    {
      initialValues: {
        status: volunteer.status,
        territoryId: volunteer.territoryId,
        leaderId: volunteer.leaderId,
        goals: { ...volunteer.goals },
      },
    },
    VOLUNTEER_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.patch(`${VOLUNTEERS_API}/${volunteer.id}`, values);
    notifications.show({ color: 'green', message: `Se guardaron los cambios de ${volunteer.name}.` });
    await refreshVolunteer(volunteer.id);
    onClose();
  });
  const goal = (name: 'promisedVotes' | 'leads' | 'posters', label: string) => {
    const props = form.getInputProps(`goals.${name}`);
    return (
      <NumberInput label={label} min={0} allowDecimal={false} allowNegative={false} {...props} onChange={(value) => props.onChange(value === '' ? undefined : Number(value))} />
    );
  };
  return (
    <FormDialog title={`Editar a ${volunteer.name}`} onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Guardar">
      <Text size="sm" c="dimmed">
        El nombre, el teléfono, el correo y la cédula se corrigen en la ficha de la persona (Personas).
      </Text>
      <Select label="Estado" allowDeselect={false} data={VOLUNTEER_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }))} {...form.getInputProps('status')} />
      <TerritorySelect label="Territorio" {...form.getInputProps('territoryId')} value={(form.getValues().territoryId as string | null) ?? null} />
      <VolunteerSelect
        label="Líder"
        description="Vacío: está en la cima de la pirámide"
        {...form.getInputProps('leaderId')}
        value={(form.getValues().leaderId as string | null) ?? null}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {goal('promisedVotes', 'Meta de votos')}
        {goal('leads', 'Meta de contactos')}
        {goal('posters', 'Meta de afiches')}
      </SimpleGrid>
    </FormDialog>
  );
}

/** The accounts a volunteer may log their work with: role volunteer or brigade, found by name or email. */
const accountSearch = {
  queryKey: ['users', 'field-accounts'],
  search: async (text: string) => {
    const q = text.trim() ? `&q=${encodeURIComponent(text.trim().slice(0, 100))}` : '';
    const [volunteers, brigades] = await Promise.all((['volunteer', 'brigade'] as const).map((role) => api.get<Page<User>>(`/api/users?role=${role}&active=true&limit=10${q}`)));
    return [...volunteers!.data, ...brigades!.data].map((user) => ({ value: user.id, label: `${user.name} · ${user.email} (${ROLE_LABELS[user.role]})` }));
  },
  resolve: async (id: string) => (await findAccount(id))?.name ?? 'Cuenta',
} as const;

/** A field account by id, among the volunteer and brigade accounts (the accounts API lists, it has no read by id). */
export async function findAccount(id: string): Promise<User | undefined> {
  for (const role of ['volunteer', 'brigade'] as const) {
    const found = (await api.all<User>(`/api/users?role=${role}`)).find((user) => user.id === id);
    if (found) return found;
  }
  return undefined;
}

/** Links the volunteer to a login account, through which they log their own work from the brigade app. */
export function LinkAccountDialog({ volunteer, onClose }: { volunteer: Volunteer; onClose: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(updateVolunteerBody, { initialValues: { userId: null as string | null } }, VOLUNTEER_PROBLEMS);
  const onSubmit = submit(async (values) => {
    try {
      await api.patch(`${VOLUNTEERS_API}/${volunteer.id}`, values);
    } catch (error) {
      // Taken by another volunteer: said beside the field.
      if (error instanceof ApiError && error.problem?.code === 'user_linked') {
        form.setFieldError('userId', VOLUNTEER_PROBLEMS.user_linked);
        return;
      }
      throw error;
    }
    notifications.show({ color: 'green', message: `Se vinculó la cuenta a ${volunteer.name}.` });
    await refreshVolunteer(volunteer.id);
    onClose();
  });
  const chosen = form.getValues().userId as string | null;
  return (
    <FormDialog
      title={`Vincular una cuenta a ${volunteer.name}`}
      onClose={onClose}
      onSubmit={onSubmit}
      formError={formError}
      submitting={submitting}
      submitLabel="Vincular"
      submitDisabled={!chosen}
    >
      <Text size="sm">
        Con la cuenta vinculada, {volunteer.name} registra su trabajo y el de su equipo desde la app de brigada. Solo cuentas con rol de voluntariado o brigada; cada cuenta, de un
        solo voluntario.
      </Text>
      <SearchSelect label="Cuenta" required data-autofocus {...accountSearch} {...form.getInputProps('userId')} value={chosen} />
    </FormDialog>
  );
}
