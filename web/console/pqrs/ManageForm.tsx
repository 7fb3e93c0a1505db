import { Alert, Button, Group, NativeSelect, Stack, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { OPEN_STATUSES, PQRS_PRIORITIES, PQRS_TYPES, termFor, type PqrsPriority, type PqrsStatus, type PqrsType } from '../../../src/modules/pqrs/pqrs.constants';
import { updateBody } from '../../../src/modules/pqrs/pqrs.schemas';
import { api } from '../app/api';
import { applyProblem, schemaErrors } from '../app/forms';
import type { ProblemMessages } from '../app/problems';
import { TerritorySelect } from '../app/SearchSelect';
import { useSignedIn } from '../app/session';
import { storeRequest, useAssignees, type PqrsRequest } from './data';
import { PRIORITY_LABELS, STATUS_LABELS, termLabel, TYPE_LABELS } from './labels';
import { Section } from './Section';

const PROBLEMS: ProblemMessages = {
  note_required: 'Para cerrar sin respuesta escriba en la nota por qué (retirada, duplicada…).',
  request_closed: 'La solicitud está cerrada: ya no cambia.',
  invalid_transition: 'Una solicitud respondida solo puede cerrarse.',
  already_extended: 'El plazo de esta solicitud ya se prorrogó: cambiar el tipo ya no cambia el término.',
  request_not_open: 'Solo se reclasifica una solicitud que aún espera respuesta.',
  unknown_user: 'Esa persona ya no tiene una cuenta activa.',
  assignee_cannot_handle: 'Solo se asigna a quien puede responder (equipo de campaña o administración).',
};

type Values = {
  assigneeId: string;
  priority: PqrsPriority;
  status: PqrsStatus;
  type: PqrsType;
  territoryId: string | null;
  note: string;
};

const valuesOf = (request: PqrsRequest): Values => ({
  assigneeId: request.assigneeId ?? '',
  priority: request.priority,
  status: request.status,
  type: request.type,
  territoryId: request.territoryId,
  note: '',
});

/** Where the status may go from here (the API's rule): open statuses move freely or close; an answer only closes. */
function statusOptions(current: PqrsStatus) {
  if (current === 'answered')
    return [
      { value: 'answered', label: STATUS_LABELS.answered },
      { value: 'closed', label: STATUS_LABELS.closed },
    ];
  return (['received', 'in_progress', 'waiting_citizen', 'closed'] as const).map((value) => ({ value, label: STATUS_LABELS[value] }));
}

/**
 * Assign (to oneself in one keystroke, or to another), prioritise, move and reclassify: the
 * fields changed since the form was filled go as one PATCH, checked first with the API's own
 * `updateBody`; changes made meanwhile by others are kept (only what was touched is sent).
 */
export function ManageForm({ request }: { request: PqrsRequest }) {
  const { user } = useSignedIn();
  const assignees = useAssignees();
  const form = useForm<Values>({ mode: 'controlled', initialValues: valuesOf(request) });
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const closed = request.status === 'closed';
  const open = OPEN_STATUSES.includes(request.status);

  // A change made elsewhere (the live room, the answer) shows in an untouched form.
  const { updatedAt } = request;
  useEffect(() => {
    if (!form.isDirty()) {
      form.setInitialValues(valuesOf(request));
      form.setValues(valuesOf(request));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the request itself changed
  }, [updatedAt]);

  const send = async (body: Record<string, unknown>, done: string) => {
    setError(null);
    setSaved(null);
    const problems = schemaErrors(updateBody, body);
    if (Object.keys(problems).length) {
      form.setErrors(problems);
      return;
    }
    setSaving(true);
    try {
      const next = await api.patch<PqrsRequest>(`/api/pqrs/${request.id}`, body);
      storeRequest(next);
      form.setInitialValues(valuesOf(next));
      form.setValues(valuesOf(next));
      setSaved(done);
    } catch (problem) {
      setError(applyProblem(form, problem, PROBLEMS));
    } finally {
      setSaving(false);
    }
  };

  const submit = form.onSubmit((values) => {
    const body: Record<string, unknown> = {};
    if (form.isDirty('assigneeId')) body.assigneeId = values.assigneeId || null;
    if (form.isDirty('priority')) body.priority = values.priority;
    if (form.isDirty('status') && values.status !== 'answered') body.status = values.status;
    if (form.isDirty('type')) body.type = values.type;
    if (form.isDirty('territoryId')) body.territoryId = values.territoryId;
    if (!Object.keys(body).length) return setError('No hay cambios que guardar.');
    if (values.note.trim()) body.note = values.note.trim();
    if (body.status === 'closed' && !request.answeredAt && !body.note) {
      form.setFieldError('note', PROBLEMS.note_required as string);
      return;
    }
    void send(body, 'Cambios guardados.');
  });

  const mine = request.assigneeId === user.id;
  const canBeAssigned = assignees.byId.has(user.id);
  const typeChanged = form.values.type !== request.type;

  return (
    <Section title="Gestión" id="pqrs-manage">
      {closed ? (
        <Text size="sm">La solicitud está cerrada: ya no cambia.</Text>
      ) : (
        <form noValidate onSubmit={submit}>
          <Stack gap="sm">
            {canBeAssigned && !mine && (
              <Button variant="light" onClick={() => void send({ assigneeId: user.id }, 'Ahora la solicitud es suya.')} loading={saving}>
                Asignármela
              </Button>
            )}
            <NativeSelect
              label="Responsable"
              {...form.getInputProps('assigneeId')}
              data={[
                { value: '', label: 'Sin asignar' },
                ...assignees.list.map((member) => ({ value: member.id, label: member.id === user.id ? `${member.name} (yo)` : member.name })),
                ...(request.assigneeId && !assignees.byId.has(request.assigneeId) ? [{ value: request.assigneeId, label: 'Otra persona del equipo' }] : []),
              ]}
            />
            <NativeSelect label="Prioridad" {...form.getInputProps('priority')} data={PQRS_PRIORITIES.map((value) => ({ value, label: PRIORITY_LABELS[value] }))} />
            <NativeSelect label="Estado" {...form.getInputProps('status')} data={statusOptions(request.status)} />
            <NativeSelect
              label="Tipo"
              {...form.getInputProps('type')}
              disabled={!open || request.extension !== null}
              description={
                request.extension
                  ? 'Con el plazo prorrogado, el tipo ya no cambia el término.'
                  : typeChanged
                    ? `Reclasificar recalcula el término desde la radicación: ${termLabel(termFor(form.values.type))} en lugar de ${termLabel(request.termDays)}.`
                    : undefined
              }
              data={PQRS_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] }))}
            />
            <TerritorySelect label="Territorio" value={form.values.territoryId} error={form.errors.territoryId} onChange={(value) => form.setFieldValue('territoryId', value)} />
            <Textarea label="Nota (queda en el historial)" autosize minRows={2} maxRows={6} maxLength={1000} {...form.getInputProps('note')} />
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            {saved && (
              <Alert color="green" variant="light" role="status" c="dark">
                {saved}
              </Alert>
            )}
            <Group>
              <Button type="submit" loading={saving}>
                Guardar cambios
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Section>
  );
}
