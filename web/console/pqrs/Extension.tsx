import { Alert, Button, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { OPEN_STATUSES } from '../../../src/modules/pqrs/pqrs.constants';
import { extendBody } from '../../../src/modules/pqrs/pqrs.schemas';
import { api, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { formatDate, formatDateTime } from '../app/format';
import type { Problem } from '../../lib/api-types';
import type { ProblemMessages } from '../app/problems';
import { requestKey, storeRequest, type PqrsRequest } from './data';
import { DueBadge } from './DueBadge';
import { countdown, noticeOutcome, termLabel, TYPE_LABELS } from './labels';
import { Section } from './Section';

/** What the extension is bounded by, as the request showed it when the dialog opened. */
interface Bounds {
  dueDate: string;
  latest: string;
  termDays: number;
}

/** The next calendar day (the earliest a new deadline may be; the server says whether it is a business day). */
function nextDay(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/** The limit a 400 `extension_beyond_double` names (the term may have changed since the dialog opened), else the dialog's. */
function limitNamed(problem: Problem, bounds: Bounds): { termDays: number; latest: string } {
  const term = /(\d+) business days/.exec(problem.detail)?.[1];
  const latest = /\d{4}-\d{2}-\d{2}/.exec(problem.detail)?.[0];
  return { termDays: term ? Number(term) : bounds.termDays, latest: latest ?? bounds.latest };
}

function beyondDouble(limit: { termDays: number; latest: string }): string {
  return `La nueva fecha supera el doble del término inicial (${termLabel(limit.termDays * 2)}): la ley permite a más tardar el ${formatDate(limit.latest)}.`;
}

function problemsFor(bounds: Bounds): ProblemMessages {
  return {
    extension_beyond_double: (problem) => beyondDouble(limitNamed(problem, bounds)),
    extension_not_later: `La nueva fecha debe ser posterior al vencimiento actual (${formatDate(bounds.dueDate)}).`,
    not_business_day: 'Esa fecha no es un día hábil (es fin de semana o festivo): elija otra.',
    deadline_passed: `El plazo ya venció (${formatDate(bounds.dueDate)}): la prórroga debía anunciarse al ciudadano antes del vencimiento.`,
    already_extended: 'Esta solicitud ya tuvo su prórroga: la ley permite una sola.',
    request_not_open: 'La solicitud ya fue respondida o cerrada: no se puede prorrogar.',
  };
}

function ExtendForm({ request, bounds, onDone, onCancel }: { request: PqrsRequest; bounds: Bounds; onDone: (next: PqrsRequest) => void; onCancel: () => void }) {
  // The server's rules, and the two the dialog knows the dates for, said before sending.
  const schema = extendBody
    .refine((values) => values.newDueDate > bounds.dueDate, { path: ['newDueDate'], message: problemsFor(bounds).extension_not_later as string })
    .refine((values) => values.newDueDate <= bounds.latest, { path: ['newDueDate'], message: beyondDouble(bounds) });
  const { form, submit, submitting, formError } = useSchemaForm(schema, { initialValues: { newDueDate: bounds.latest, reason: '' } }, problemsFor(bounds));
  return (
    <form
      noValidate
      onSubmit={submit(async (values) => {
        try {
          onDone(await api.post<PqrsRequest>(`/api/pqrs/${request.id}/extend`, values));
        } catch (error) {
          // Refused: the request may have moved on (extended elsewhere, past its deadline); the page reads it again.
          void queryClient.invalidateQueries({ queryKey: requestKey(request.id) });
          throw error;
        }
      })}
    >
      <Stack gap="sm">
        <Text size="sm">
          {request.number} vence el {formatDate(bounds.dueDate)}. La ley (art. 14 de la Ley 1755 de 2015) permite <strong>una sola prórroga</strong>, que debe anunciarse al
          ciudadano <strong>antes del vencimiento</strong>, con el motivo, y que no puede pasar del <strong>doble del término inicial</strong> ({termLabel(bounds.termDays)} de{' '}
          {TYPE_LABELS[request.type].toLowerCase()}, {termLabel(bounds.termDays * 2)} en total): a más tardar el <strong>{formatDate(bounds.latest)}</strong>.
        </Text>
        <TextInput
          type="date"
          label="Nuevo vencimiento"
          description={`Un día hábil después del ${formatDate(bounds.dueDate)} y hasta el ${formatDate(bounds.latest)}. Se propone el límite legal.`}
          min={nextDay(bounds.dueDate)}
          max={bounds.latest}
          withAsterisk
          {...form.getInputProps('newDueDate')}
        />
        <Textarea
          label="Motivo de la prórroga"
          description="Se le envía al ciudadano con la nueva fecha."
          autosize
          minRows={3}
          maxRows={8}
          maxLength={1000}
          withAsterisk
          {...form.getInputProps('reason')}
        />
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancelar
          </Button>
          <Button type="submit" loading={submitting}>
            Prorrogar
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The legal clock: the due date and its countdown, the extension if any, and (for those who handle it) extending while the law allows. */
export function Extension({ request, mayHandle }: { request: PqrsRequest; mayHandle: boolean }) {
  const [bounds, setBounds] = useState<Bounds | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const open = OPEN_STATUSES.includes(request.status);
  const limit = request.latestExtensionDate;

  return (
    <Section title="Plazo legal" id="pqrs-deadline">
      <Stack gap="xs">
        <Text size="sm">
          Vence el <strong>{formatDate(request.dueDate)}</strong>
        </Text>
        <DueBadge request={request} />
        <Text size="sm" c="dimmed">
          Término de {termLabel(request.termDays)} ({TYPE_LABELS[request.type].toLowerCase()}), contado desde el día hábil siguiente a la radicación.
        </Text>
        {request.extension && (
          <Text size="sm">
            Prorrogado el {formatDateTime(request.extension.at)}: del {formatDate(request.originalDueDate)} al {formatDate(request.dueDate)}. El límite legal era el doble del
            término ({termLabel(request.termDays * 2)}).
            {request.extension.reason && (
              <>
                <br />
                Motivo: {request.extension.reason}
              </>
            )}
          </Text>
        )}
        {limit && (
          <Text size="sm">
            Se puede prorrogar una sola vez, antes del {formatDate(request.dueDate)}, hasta el doble del término: a más tardar el <strong>{formatDate(limit)}</strong>.
          </Text>
        )}
        {open && !limit && !request.extension && <Text size="sm">El plazo venció sin prórroga: ya no se puede prorrogar (debía anunciarse antes del vencimiento).</Text>}
        {/* The extension's confirmation, with its countdown, only while the request is still open: once answered it would be stale. */}
        {done && open && (
          <Alert color="green" variant="light" role="status" c="dark">
            {done}
          </Alert>
        )}
        {mayHandle && limit && (
          <Button variant="default" onClick={() => setBounds({ dueDate: request.dueDate, latest: limit, termDays: request.termDays })}>
            Prorrogar el plazo
          </Button>
        )}
      </Stack>
      {/* Kept open on the bounds it was opened with, whatever the live room says meanwhile: the server has the last word. */}
      <Modal opened={bounds !== null} onClose={() => setBounds(null)} title="Prorrogar el plazo" size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
        {bounds && (
          <ExtendForm
            request={request}
            bounds={bounds}
            onCancel={() => setBounds(null)}
            onDone={(next) => {
              storeRequest(next);
              setBounds(null);
              setDone(
                `Plazo prorrogado hasta el ${formatDate(next.dueDate)} (${countdown(next)}). ${next.personal?.extensionNotice ? noticeOutcome(next.personal.extensionNotice) : ''}`.trim(),
              );
            }}
          />
        )}
      </Modal>
    </Section>
  );
}
