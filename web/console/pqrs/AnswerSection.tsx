import { Alert, Button, Checkbox, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { OPEN_STATUSES } from '../../../src/modules/pqrs/pqrs.constants';
import { answerBody } from '../../../src/modules/pqrs/pqrs.schemas';
import { api } from '../app/api';
import { applyProblem, useSchemaForm } from '../app/forms';
import { formatDateTime } from '../app/format';
import type { ProblemMessages } from '../app/problems';
import { storeRequest, type PqrsRequest } from './data';
import { noticeOutcome } from './labels';
import { Section } from './Section';

const PROBLEMS: ProblemMessages = {
  already_answered: 'Esta solicitud ya fue respondida (una respuesta es definitiva). Recargue para verla.',
  request_closed: 'La solicitud está cerrada: ya no se puede responder.',
};

type AnswerValues = { answer: string; close?: boolean | undefined };

function AnswerForm({ request }: { request: PqrsRequest }) {
  const { form, submitting, formError, setFormError } = useSchemaForm(answerBody, { initialValues: { answer: '', close: false } as AnswerValues }, PROBLEMS);
  const [confirming, setConfirming] = useState<AnswerValues | null>(null);
  const [sending, setSending] = useState(false);

  const send = async () => {
    if (!confirming) return;
    setSending(true);
    setFormError(null);
    try {
      storeRequest(await api.post<PqrsRequest>(`/api/pqrs/${request.id}/answer`, confirming));
      setConfirming(null);
    } catch (error) {
      setConfirming(null);
      setFormError(applyProblem(form, error, PROBLEMS));
    } finally {
      setSending(false);
    }
  };

  return (
    <form noValidate onSubmit={form.onSubmit((values) => setConfirming(values))}>
      <Stack gap="sm">
        <Textarea
          label="Respuesta al ciudadano"
          description="Se le envía tal cual, con el número de la solicitud, por el canal que autorizó. Una respuesta es definitiva y detiene el término."
          autosize
          minRows={5}
          maxRows={16}
          withAsterisk
          {...form.getInputProps('answer')}
        />
        <Checkbox label="Cerrar la solicitud con esta respuesta" {...form.getInputProps('close', { type: 'checkbox' })} />
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={submitting || sending}>
            Enviar respuesta
          </Button>
        </Group>
      </Stack>
      <Modal opened={confirming !== null} onClose={() => setConfirming(null)} title="¿Enviar la respuesta?" centered closeButtonProps={{ 'aria-label': 'Cerrar' }}>
        <Stack gap="md">
          <Text size="sm">
            La respuesta a {request.number} se registrará y se avisará al ciudadano. No se podrá cambiar después
            {confirming?.close ? ', y la solicitud quedará cerrada' : ''}.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(null)}>
              Volver
            </Button>
            <Button onClick={() => void send()} loading={sending} data-autofocus>
              Enviar al ciudadano
            </Button>
          </Group>
        </Stack>
      </Modal>
    </form>
  );
}

/** The answer: the form while the request waits for one (for those who handle it), then the answer and what the citizen was told. */
export function AnswerSection({ request, mayHandle }: { request: PqrsRequest; mayHandle: boolean }) {
  const personal = request.personal;
  if (request.answeredAt) {
    return (
      <Section title="Respuesta" id="pqrs-answer">
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            Respondida el {formatDateTime(request.answeredAt)}, {request.answeredLate ? 'fuera de término' : 'a tiempo'}.
          </Text>
          {personal?.answer && (
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {personal.answer}
            </Text>
          )}
          {personal?.answerNotice && (
            <Alert color={personal.answerNotice.status === 'unreachable' ? 'orange' : 'green'} variant="light" role="status" c="dark">
              {noticeOutcome(personal.answerNotice)}
            </Alert>
          )}
        </Stack>
      </Section>
    );
  }
  if (!mayHandle || !OPEN_STATUSES.includes(request.status)) {
    return request.status === 'closed' ? (
      <Section title="Respuesta" id="pqrs-answer">
        <Text size="sm">Se cerró sin respuesta.</Text>
      </Section>
    ) : null;
  }
  return (
    <Section title="Responder" id="pqrs-answer">
      <AnswerForm request={request} />
    </Section>
  );
}
