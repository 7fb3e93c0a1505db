import { Alert, Anchor, Button, Group, NativeSelect, Paper, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import { replyBody } from '../../../src/modules/whatsapp/whatsapp.schemas';
import { api, queryClient } from '../app/api';
import { schemaErrors } from '../app/forms';
import { useSignedIn } from '../app/session';
import { addMessage, keys, replyRefusal, upsertConversation, windowOpenAt, type Conversation, type Message, type QuickReply, type Template } from './inbox';

const [textReply, templateReply] = replyBody.options;

/** What each quick-reply variable stands for, to say which one had nothing to fill it. */
const VARIABLE_WORDS: Record<string, string> = {
  nombre: 'el nombre de la persona',
  primer_nombre: 'el primer nombre de la persona',
  barrio: 'el barrio de la persona',
  agente: 'su nombre',
};

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/** The quick replies a `/…` typed at the start of the box asks for: by the start of the shortcut, or words of the title. */
function matching(replies: QuickReply[], typed: string): QuickReply[] {
  const wanted = fold(typed);
  return replies.filter((reply) => fold(reply.shortcut).startsWith(`/${wanted}`) || (wanted.length > 0 && fold(reply.title).includes(wanted))).slice(0, 8);
}

function useSend(conversation: Conversation) {
  const { user } = useSignedIn();
  return useMutation({
    mutationFn: (body: { text: string } | { templateId: string; variables: string[] }) => api.post<Message>(`/api/whatsapp/conversations/${conversation.id}/messages`, body),
    onSuccess: (message) => {
      addMessage(queryClient, message);
      // The row's last message is the reply now (the event says the same; whichever comes first).
      upsertConversation(
        queryClient,
        { ...conversation, lastMessage: message, lastMessageAt: message.createdAt > conversation.lastMessageAt ? message.createdAt : conversation.lastMessageAt },
        user.id,
      );
    },
  });
}

/** Free text inside the window: Enter sends, Shift+Enter starts a line, `/` opens the quick replies. */
function TextComposer({ conversation, onManageQuickReplies }: { conversation: Conversation; onManageQuickReplies: () => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const send = useSend(conversation);
  const listId = useId();
  const quickReplies = useQuery({
    queryKey: keys.quickRepliesFor(conversation.id),
    queryFn: () => api.all<QuickReply>(`/api/whatsapp/quick-replies?conversationId=${conversation.id}`, 500),
  });

  const slash = /^\/(\S*)$/.exec(text);
  const options = slash && dismissed !== text ? matching(quickReplies.data ?? [], slash[1] ?? '') : [];
  const open = slash !== null && dismissed !== text;
  const current = options[Math.min(active, options.length - 1)];

  const choose = (reply: QuickReply) => {
    setText(reply.rendered?.text ?? reply.text);
    setMissing(reply.rendered?.missing ?? []);
    setActive(0);
    setError(null);
  };

  const submit = async () => {
    const body = { text };
    const errors = schemaErrors(textReply, body);
    if (errors.text) return setError(text.trim() ? String(errors.text) : 'Escriba un mensaje antes de enviarlo.');
    // The box empties at once, as in every chat; a refusal puts the text back with the reason.
    setText('');
    setMissing([]);
    setError(null);
    try {
      await send.mutateAsync(body);
    } catch (refusal) {
      setText((current) => current || text);
      setError(replyRefusal(refusal));
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (open && options.length) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        setActive((index) => (index + (event.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
        return;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        event.preventDefault();
        if (current) choose(current);
        return;
      }
    }
    if (open && event.key === 'Escape') {
      event.preventDefault();
      setDismissed(text);
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      if (!send.isPending) void submit();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      noValidate
    >
      {open && (
        <Paper withBorder shadow="md" className="quick-replies" p={4}>
          {options.length ? (
            <ul role="listbox" id={listId} aria-label="Respuestas rápidas">
              {options.map((reply, index) => (
                <li
                  key={reply.id}
                  id={`${listId}-${index}`}
                  role="option"
                  aria-selected={reply === current}
                  className="quick-reply-option"
                  onMouseDown={(event) => {
                    event.preventDefault();
                    choose(reply);
                  }}
                >
                  <Text span fw={700} size="sm">
                    {reply.shortcut}
                  </Text>{' '}
                  <Text span size="sm">
                    {reply.title}
                  </Text>
                  <Text size="xs" c="dimmed" lineClamp={1}>
                    {reply.rendered?.text ?? reply.text}
                  </Text>
                </li>
              ))}
            </ul>
          ) : (
            <Text size="sm" c="dimmed" p="xs">
              {quickReplies.isPending ? 'Cargando respuestas rápidas…' : 'Ninguna respuesta rápida empieza así.'}{' '}
              <Anchor component="button" type="button" size="sm" onClick={onManageQuickReplies}>
                Administrar respuestas rápidas
              </Anchor>
            </Text>
          )}
        </Paper>
      )}
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <Textarea
          flex={1}
          label="Mensaje"
          description="Enter envía; Mayús+Enter, nueva línea; «/» al comienzo, respuestas rápidas."
          placeholder="Escriba su respuesta…"
          autosize
          minRows={2}
          maxRows={8}
          value={text}
          error={error}
          onChange={(event) => {
            setText(event.currentTarget.value);
            setActive(0);
            setError(null);
            if (!event.currentTarget.value.trim()) setMissing([]);
          }}
          onKeyDown={onKeyDown}
          aria-controls={open && options.length ? listId : undefined}
          aria-activedescendant={open && current ? `${listId}-${options.indexOf(current)}` : undefined}
        />
        <Button type="submit" loading={send.isPending}>
          Enviar
        </Button>
      </Group>
      {missing.length > 0 && (
        <Alert color="yellow" variant="light" mt="xs" py={6} role="status">
          {`La respuesta rápida quedó sin ${missing.map((name) => VARIABLE_WORDS[name] ?? name).join(' ni ')}: complete el texto antes de enviarlo.`}
        </Alert>
      )}
    </form>
  );
}

/** The body with the values typed so far in place of `{{1}}…`. */
function filled(body: string, values: string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, number: string) => values[Number(number) - 1]?.trim() || `[variable ${number}]`);
}

/** Outside the window only an approved template can go: the picker, its variables, its preview. */
function TemplateComposer({ conversation }: { conversation: Conversation }) {
  const templates = useQuery({ queryKey: keys.templates, queryFn: () => api.all<Template>('/api/whatsapp/templates?status=APPROVED', 500) });
  const [templateId, setTemplateId] = useState('');
  const [variables, setVariables] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const send = useSend(conversation);
  const template = templates.data?.find((candidate) => candidate.id === templateId);
  // Outside the window a template needs the person's WhatsApp consent: the People API says whether there is one.
  const person = useQuery({
    queryKey: keys.person(conversation.contact.id),
    queryFn: () => api.get<{ consent: { whatsapp: string } }>(`/api/audience/contacts/${conversation.contact.id}`),
  });
  const noConsent = person.data !== undefined && person.data.consent.whatsapp !== 'reachable';

  const submit = async () => {
    if (!template) return setErrors({ templateId: 'Elija una plantilla.' });
    const body = { templateId: template.id, variables: Array.from({ length: template.placeholders }, (_, index) => (variables[index] ?? '').trim()) };
    const found = schemaErrors(templateReply, body) as Record<string, string>;
    if (Object.keys(found).length) return setErrors(found);
    try {
      await send.mutateAsync(body);
      setTemplateId('');
      setVariables([]);
      setErrors({});
      setFormError(null);
    } catch (refusal) {
      setFormError(replyRefusal(refusal));
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      noValidate
    >
      <Stack gap="xs">
        <Alert color="orange" variant="light" py={6}>
          La ventana de 24 horas está cerrada: WhatsApp solo permite escribirle con una plantilla aprobada hasta que la persona vuelva a escribir.
        </Alert>
        {formError && (
          <Alert color="red" role="alert" py={6}>
            {formError}
          </Alert>
        )}
        {noConsent ? (
          <Text size="sm">Esta persona no ha autorizado mensajes de WhatsApp: fuera de la ventana no se le puede escribir, ni siquiera con plantilla.</Text>
        ) : templates.data && templates.data.length === 0 ? (
          <Text size="sm">No hay plantillas aprobadas. Quien administra WhatsApp debe crear una y esperar la aprobación de Meta.</Text>
        ) : (
          <NativeSelect
            label="Plantilla aprobada"
            value={templateId}
            error={errors.templateId}
            onChange={(event) => {
              setTemplateId(event.currentTarget.value);
              setVariables([]);
              setErrors({});
            }}
            data={[
              { value: '', label: templates.isPending ? 'Cargando plantillas…' : 'Elija una plantilla' },
              ...(templates.data ?? []).map((item) => ({ value: item.id, label: `${item.name} (${item.language})` })),
            ]}
          />
        )}
        {template && !noConsent && (
          <>
            <Paper withBorder p="xs" bg="gray.0">
              <Text size="xs" c="dimmed">
                Así le llegará
              </Text>
              <Text size="sm" className="message-text">
                {filled(template.body, variables)}
              </Text>
            </Paper>
            {Array.from({ length: template.placeholders }, (_, index) => (
              <TextInput
                key={`${template.id}-${index}`}
                size="xs"
                label={`Variable {{${index + 1}}}`}
                placeholder={template.examples[index] ? `Por ejemplo: ${template.examples[index]}` : undefined}
                value={variables[index] ?? ''}
                error={errors[`variables.${index}`] ? 'Complete esta variable.' : undefined}
                onChange={(event) => {
                  const value = event.currentTarget.value;
                  setVariables((current) => Object.assign([...current], { [index]: value }));
                }}
              />
            ))}
          </>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={send.isPending} disabled={!templates.data?.length || noConsent}>
            Enviar plantilla
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The reply box the conversation allows now: nothing to a person who opted out, text in the window, a template outside it. */
export function Composer({ conversation, now, onManageQuickReplies }: { conversation: Conversation; now: number; onManageQuickReplies: () => void }) {
  if (conversation.contact.optedOut) {
    return (
      <Alert color="gray" className="composer" variant="light">
        Esta persona pidió no recibir mensajes de WhatsApp (BAJA). No se le puede escribir desde aquí.
      </Alert>
    );
  }
  return windowOpenAt(conversation, now) ? (
    <TextComposer key="text" conversation={conversation} onManageQuickReplies={onManageQuickReplies} />
  ) : (
    <TemplateComposer key="template" conversation={conversation} />
  );
}
