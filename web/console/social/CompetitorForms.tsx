import { Checkbox, Select, Switch, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { createCompetitorBody, profileInput, updateCompetitorBody, updateProfileBody } from '../../../src/modules/social/social.schemas';
import { api } from '../app/api';
import { FormDialog } from '../app/FormDialog';
import { TerritorySelect } from '../app/SearchSelect';
import { useSchemaForm } from '../app/forms';
import { COMPETITORS, PLATFORM_LABELS, PLATFORM_OPTIONS, refreshCompetitors, type Competitor, type Profile } from './data';

/** The API's conflicts, in Spanish. */
export const SOCIAL_PROBLEMS = {
  competitor_name_taken: 'Ya hay un competidor con ese nombre.',
  own_taken: 'Otro competidor ya está marcado como nuestro candidato.',
  profile_taken: 'Ese perfil ya se sigue (en este u otro competidor).',
};

const COLOUR_MESSAGE = { colour: 'Un color como #1f77b4 (numeral y seis cifras hexadecimales).' };

/** Where a connector exists; TikTok profiles are always fed by imports. */
const polled = (platform: Profile['platform']) => platform !== 'tiktok';
const SOURCE_OPTIONS = [
  { value: 'api', label: 'Consultado por API' },
  { value: 'import', label: 'Por importación' },
];

export function NewCompetitorDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (competitor: Competitor) => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    createCompetitorBody,
    {
      initialValues: { name: '', party: '', colour: '', notes: '', isOwn: false, territoryId: null as string | null },
      emptyAs: { party: 'absent', colour: 'absent', notes: 'absent' },
      messages: COLOUR_MESSAGE,
    },
    SOCIAL_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    const created = await api.post<Competitor>(COMPETITORS, values);
    notifications.show({ color: 'green', message: `Se agregó ${created.name}. Agregue ahora sus perfiles.` });
    await refreshCompetitors();
    onCreated(created);
  });
  return (
    <FormDialog title="Agregar competidor" onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Agregar">
      <TextInput label="Nombre" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Partido o movimiento" {...form.getInputProps('party')} />
      <TextInput label="Color" description="Para sus líneas en las gráficas, como #1f77b4" {...form.getInputProps('colour')} />
      <TerritorySelect
        label="Territorio"
        description="Donde hace campaña, si es uno solo"
        clearable
        value={form.values.territoryId ?? null}
        error={form.errors.territoryId}
        onChange={(value) => form.setFieldValue('territoryId', value)}
      />
      <Textarea label="Notas" autosize minRows={2} {...form.getInputProps('notes')} />
      <Checkbox label="Es nuestro candidato" description="Las comparaciones lo marcan; solo uno puede serlo" {...form.getInputProps('isOwn', { type: 'checkbox' })} />
    </FormDialog>
  );
}

export function EditCompetitorDialog({ competitor, onClose }: { competitor: Competitor; onClose: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    updateCompetitorBody,
    {
      initialValues: {
        name: competitor.name,
        party: competitor.party ?? '',
        colour: competitor.colour ?? '',
        notes: competitor.notes ?? '',
        isOwn: competitor.isOwn,
        active: competitor.active,
        territoryId: competitor.territoryId,
      },
      emptyAs: { party: 'null', colour: 'null', notes: 'null' },
      messages: COLOUR_MESSAGE,
    },
    SOCIAL_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.patch(`${COMPETITORS}/${competitor.id}`, values);
    notifications.show({ color: 'green', message: `Se guardó ${String(values.name)}.` });
    await refreshCompetitors();
    onClose();
  });
  return (
    <FormDialog title={`Editar ${competitor.name}`} onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Guardar">
      <TextInput label="Nombre" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Partido o movimiento" {...form.getInputProps('party')} />
      <TextInput label="Color" description="Para sus líneas en las gráficas, como #1f77b4" {...form.getInputProps('colour')} />
      <TerritorySelect
        label="Territorio"
        description="Donde hace campaña, si es uno solo"
        clearable
        value={form.values.territoryId ?? null}
        error={form.errors.territoryId}
        onChange={(value) => form.setFieldValue('territoryId', value)}
      />
      <Textarea label="Notas" autosize minRows={2} {...form.getInputProps('notes')} />
      <Checkbox label="Es nuestro candidato" {...form.getInputProps('isOwn', { type: 'checkbox' })} />
      <Switch label="Activo" description="Inactivo: deja de mostrarse sin perder su historia" {...form.getInputProps('active', { type: 'checkbox' })} />
    </FormDialog>
  );
}

export function AddProfileDialog({ competitor, onClose }: { competitor: Competitor; onClose: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    profileInput,
    { initialValues: { platform: 'x' as Profile['platform'], handle: '', url: '' }, emptyAs: { url: 'absent' } },
    SOCIAL_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    const profile = await api.post<Profile>(`${COMPETITORS}/${competitor.id}/profiles`, values);
    notifications.show({ color: 'green', message: `Se agregó ${PLATFORM_LABELS[profile.platform]} ${profile.handle}.` });
    await refreshCompetitors();
    onClose();
  });
  return (
    <FormDialog title={`Agregar perfil de ${competitor.name}`} onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Agregar">
      <Select label="Red" required allowDeselect={false} data={PLATFORM_OPTIONS} {...form.getInputProps('platform')} />
      <TextInput label="Usuario o dirección del perfil" required description="@usuario, el id de la página o del canal, o la URL del perfil" {...form.getInputProps('handle')} />
      <TextInput label="URL" description="Opcional: la de la red para ese usuario si se deja vacía" {...form.getInputProps('url')} />
    </FormDialog>
  );
}

export function EditProfileDialog({ competitor, profile, onClose }: { competitor: Competitor; profile: Profile; onClose: () => void }) {
  const initial = { handle: profile.handle, url: profile.url ?? '', source: profile.source };
  const { form, submit, submitting, formError } = useSchemaForm(updateProfileBody, { initialValues: initial, emptyAs: { url: 'null' } }, SOCIAL_PROBLEMS);
  const name = `${PLATFORM_LABELS[profile.platform]} ${profile.handle}`;
  const onSubmit = submit(async (values) => {
    // Only what changed: an untouched URL must not pin the old handle's address on a new handle.
    const changed = Object.fromEntries(
      Object.entries(values).filter(([field, value]) => value !== (field === 'url' ? (profile.url ?? null) : initial[field as keyof typeof initial])),
    );
    if (Object.keys(changed).length) {
      await api.patch(`${COMPETITORS}/${competitor.id}/profiles/${profile.id}`, changed);
      notifications.show({ color: 'green', message: `Se guardó el perfil de ${PLATFORM_LABELS[profile.platform]}.` });
      await refreshCompetitors();
    }
    onClose();
  });
  return (
    <FormDialog title={`Editar perfil ${name}`} onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Guardar">
      <TextInput
        label="Usuario o dirección del perfil"
        required
        data-autofocus
        description="Otro usuario (la cuenta cambió de nombre, un error de digitación) borra el error y la pausa y se consulta de nuevo; su historia se conserva"
        {...form.getInputProps('handle')}
      />
      <TextInput label="URL" description="Vacía: la de la red para ese usuario" {...form.getInputProps('url')} />
      {polled(profile.platform) && <Select label="Origen de los datos" allowDeselect={false} data={SOURCE_OPTIONS} {...form.getInputProps('source')} />}
    </FormDialog>
  );
}
