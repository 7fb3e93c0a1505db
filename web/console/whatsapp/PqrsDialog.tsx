import { Alert, Button, Group, Modal, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import type { z } from 'zod';
import type { fromWhatsAppBody, requestView } from '../../../src/modules/pqrs/pqrs.schemas';
import { pqrsTypes } from '../../lib/labels';
import { api, ApiError, queryClient } from '../app/api';
import { problemMessage } from '../app/problems';
import { keys, type Conversation } from './inbox';

type Filed = z.output<typeof requestView>;
type Body = z.input<typeof fromWhatsAppBody>;

/**
 * "Convertir en PQRS": the conversation's person becomes the citizen of a request (`POST
 * /api/pqrs/from-whatsapp`), its latest texts the description unless staff write one; then a link
 * to the request. The PQRS schemas still reach audience's index (the ORM), so this form checks the
 * two limits it shows by hand and the server has the last word.
 */
export function PqrsDialog({ conversation, opened, onClose }: { conversation: Conversation; opened: boolean; onClose: () => void }) {
  const [type, setType] = useState<Body['type']>('peticion');
  const [subject, setSubject] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [filed, setFiled] = useState<Filed | null>(null);

  const close = () => {
    onClose();
    setFiled(null);
    setSubject('');
    setDescription('');
    setErrors({});
    setFormError(null);
  };

  const submit = async () => {
    const found: Record<string, string> = {};
    if (subject.trim().length < 3) found.subject = 'Escriba el asunto (al menos 3 caracteres).';
    if (description.trim().length > 10_000) found.description = 'La descripción es demasiado larga (máximo 10.000 caracteres).';
    setErrors(found);
    if (Object.keys(found).length) return;
    setSending(true);
    setFormError(null);
    try {
      const body: Body = { conversationId: conversation.id, type, subject: subject.trim(), ...(description.trim() ? { description: description.trim() } : {}) };
      const request = await api.post<Filed>('/api/pqrs/from-whatsapp', body);
      setFiled(request);
      void queryClient.invalidateQueries({ queryKey: keys.pqrsOf(conversation.contact.id) });
    } catch (error) {
      if (error instanceof ApiError && error.problem?.code === 'contact_erased') setFormError('Los datos de esta persona fueron eliminados: no se puede radicar a su nombre.');
      else setFormError(problemMessage(error));
    } finally {
      setSending(false);
    }
  };

  return (
    <Modal opened={opened} onClose={close} title="Convertir en PQRS" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      {filed ? (
        <Stack>
          <Alert color="green" role="status">{`Se radicó la ${filed.number} a nombre de ${conversation.contact.name}.`}</Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cerrar
            </Button>
            <Button component={Link} to={`/pqrs/${filed.id}`}>
              {`Abrir ${filed.number}`}
            </Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
          noValidate
        >
          <Stack>
            <Text size="sm">{`${conversation.contact.name} quedará como ciudadano de la solicitud; el plazo legal empieza a contar hoy.`}</Text>
            {formError && (
              <Alert color="red" role="alert">
                {formError}
              </Alert>
            )}
            <NativeSelect
              label="Tipo"
              value={type}
              onChange={(event) => setType(event.currentTarget.value as Body['type'])}
              data={Object.entries(pqrsTypes).map(([value, label]) => ({ value, label }))}
              data-autofocus
            />
            <TextInput label="Asunto" required maxLength={200} value={subject} error={errors.subject} onChange={(event) => setSubject(event.currentTarget.value)} />
            <Textarea
              label="Descripción"
              description="Si la deja vacía, se usan los últimos mensajes de la persona."
              autosize
              minRows={3}
              maxRows={8}
              value={description}
              error={errors.description}
              onChange={(event) => setDescription(event.currentTarget.value)}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancelar
              </Button>
              <Button type="submit" loading={sending}>
                Radicar PQRS
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
