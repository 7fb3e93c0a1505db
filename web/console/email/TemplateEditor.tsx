import { Alert, Box, Button, Grid, Group, Loader, Modal, Paper, SegmentedControl, Stack, Text, TextInput, Textarea, Title, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { createTemplateBody, testSendBody } from '../../../src/modules/email/email.schemas';
import { api, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { problemInSpanish } from './problem-words';
import { invalidateServerLists } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { EmailTabs } from './EmailTabs';
import { EMAIL_PROBLEMS, emailKeys, TEMPLATES_PATH, type Draft, type DraftProblem, type EmailTemplate, type TestSendAnswer } from './data';

type Values = z.input<typeof createTemplateBody>;
type Kind = 'mjml' | 'html';

/** Where a new template starts: the smallest MJML document, greeting by name, with its unsubscribe link. */
const STARTER = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="18px">Hola {{contact.firstName}},</mj-text>
        <mj-text><a href="{{unsubscribeUrl}}">Cancelar suscripción</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;

const WIDTHS = { desktop: 600, phone: 375 } as const;
type Width = keyof typeof WIDTHS;

/** The offsets where line `line` (1-based) of `text` starts and ends. */
function lineRange(text: string, line: number): [number, number] {
  let start = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', start);
    if (next < 0) break;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  return [start, end < 0 ? text.length : end];
}

const FIELD_NAMES: Record<DraftProblem['field'], string> = { subject: 'Asunto', mjml: 'MJML', html: 'HTML' };

/** The server's compile of the draft, as it is being written: a sandboxed page at desktop or phone width. */
function Preview({ draft, pending, error }: { draft: Draft | undefined; pending: boolean; error: unknown }) {
  const [width, setWidth] = useState<Width>('desktop');
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={2} size="h4" id="vista-previa">
          Vista previa
        </Title>
        <SegmentedControl
          aria-label="Ancho de la vista previa"
          value={width}
          onChange={(value) => setWidth(value as Width)}
          data={[
            { value: 'desktop', label: `Escritorio (${WIDTHS.desktop} px)` },
            { value: 'phone', label: `Teléfono (${WIDTHS.phone} px)` },
          ]}
        />
      </Group>
      <div role="status" aria-live="polite">
        {error ? (
          <Text size="sm" c="red.8">
            {problemMessage(error, EMAIL_PROBLEMS)}
          </Text>
        ) : (
          <Text size="sm">
            <b>Asunto:</b> {draft?.subject || '—'} {pending && <Loader size="xs" aria-label="Actualizando la vista previa" />}
          </Text>
        )}
      </div>
      <Text size="xs" c="dimmed">
        Con datos de ejemplo (Ana María Rojas). Los enlaces son los escritos: al enviar, cada uno se cuenta por persona.
      </Text>
      <Box style={{ overflowX: 'auto' }}>
        <iframe
          title={`Vista previa del correo en ${width === 'desktop' ? 'escritorio' : 'teléfono'}`}
          sandbox=""
          srcDoc={draft?.html ?? ''}
          style={{ width: WIDTHS[width], height: 640, border: '1px solid var(--mantine-color-gray-4)', background: 'white', display: 'block' }}
          data-width={width}
        />
      </Box>
    </Stack>
  );
}

/** A test send of the saved template to one address, through the campaign's SMTP. */
function TestSendDialog({ templateId, onClose, onSent }: { templateId: string; onClose: () => void; onSent: (answer: TestSendAnswer, to: string) => void }) {
  const { user } = useSignedIn();
  const { form, submit, submitting, formError } = useSchemaForm(testSendBody, { initialValues: { to: user.email } }, EMAIL_PROBLEMS);
  const onSubmit = submit(async (values) => {
    const answer = await api.post<TestSendAnswer>(`${TEMPLATES_PATH}/${templateId}/test`, values);
    onSent(answer, values.to);
    onClose();
  });
  return (
    <Modal opened onClose={onClose} title="Enviar una prueba" size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <Text size="sm">
            Sale una vez, por el servidor de correo de la campaña, con los datos de ejemplo y «[Prueba]» en el asunto. No cuenta aperturas ni clics y no va a ninguna persona de la
            base.
          </Text>
          <TextInput label="Enviar a" type="email" required data-autofocus {...form.getInputProps('to')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              Enviar prueba
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function EditorForm({ template }: { template: EmailTemplate | undefined }) {
  const navigate = useNavigate();
  const { user } = useSignedIn();
  const manages = rolePermitted(user.role, emailPolicy.roles('manageTemplates'));
  const kind: Kind = template?.sourceKind ?? 'mjml';
  const initialValues: Values = template
    ? { name: template.name, subject: template.subject, [kind]: template.source }
    : { name: '', subject: 'Hola {{contact.firstName}}', mjml: STARTER };
  const { form, submit, submitting, formError } = useSchemaForm(createTemplateBody, { initialValues }, EMAIL_PROBLEMS);
  const [testing, setTesting] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [cursor, setCursor] = useState({ line: 1, column: 1 });
  const editor = useRef<HTMLTextAreaElement>(null);
  const values = form.getValues();
  const source = values[kind] ?? '';

  const [debounced] = useDebouncedValue(JSON.stringify({ subject: values.subject, [kind]: source }), 400);
  const draft = useQuery({
    queryKey: manages ? emailKeys.draft(debounced) : ['email', 'preview', template?.id],
    queryFn: () =>
      manages
        ? api.post<Draft>(`${TEMPLATES_PATH}/render`, JSON.parse(debounced))
        : api.get<Draft>(`${TEMPLATES_PATH}/${template!.id}/preview`).then((preview) => ({ ...preview, problems: [] })),
    enabled: manages ? source.length > 0 : Boolean(template),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const problems = draft.data?.problems ?? [];
  const sourceProblems = problems.filter((problem) => problem.field !== 'subject');
  const subjectProblems = problems.filter((problem) => problem.field === 'subject');

  const goToLine = (line: number) => {
    const area = editor.current;
    if (!area) return;
    const [start, end] = lineRange(area.value, line);
    area.focus();
    area.setSelectionRange(start, end);
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
    setCursor({ line, column: 1 });
  };
  const trackCursor = () => {
    const area = editor.current;
    if (!area) return;
    const before = area.value.slice(0, area.selectionStart);
    const line = before.split('\n').length;
    setCursor({ line, column: before.length - before.lastIndexOf('\n') });
  };

  const onSubmit = submit(async (body) => {
    const created = await api.post<EmailTemplate>(TEMPLATES_PATH, body);
    queryClient.setQueryData(emailKeys.template(created.id), created);
    void invalidateServerLists(TEMPLATES_PATH);
    notifications.show({ color: 'green', message: template ? `Se guardó «${created.name}» como una versión nueva.` : `Se guardó la plantilla «${created.name}».` });
    await navigate(`/correo/plantillas/${created.id}`);
  });

  const dirty = template ? form.isDirty() : true;
  return (
    <>
      <PageTitle
        actions={
          manages &&
          template && (
            <Button variant="default" onClick={() => setTesting(true)} disabled={dirty}>
              Enviar prueba
            </Button>
          )
        }
      >
        {template ? `Plantilla: ${template.name}` : 'Nueva plantilla de correo'}
      </PageTitle>
      <EmailTabs />
      {sent && (
        <Alert color="green" role="status" mb="sm" withCloseButton closeButtonLabel="Cerrar aviso" onClose={() => setSent(null)}>
          {sent}
        </Alert>
      )}
      {manages && template && dirty && (
        <Text size="sm" c="dimmed" mb="xs">
          La prueba envía la plantilla guardada: guarde los cambios (una versión nueva) para probarlos.
        </Text>
      )}
      <form onSubmit={onSubmit} noValidate>
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Stack>
              {formError && (
                <Alert color="red" role="alert">
                  {formError}
                </Alert>
              )}
              <TextInput label="Nombre" description="Para el equipo; la gente no lo ve" required readOnly={!manages} {...form.getInputProps('name')} />
              <TextInput
                label="Asunto"
                description="Puede usar {{contact.firstName}} y las demás variables"
                required
                readOnly={!manages}
                {...form.getInputProps('subject')}
                error={form.errors.subject ?? (subjectProblems.length ? subjectProblems.map((problem) => problemInSpanish(problem.message)).join(' · ') : undefined)}
              />
              <Textarea
                ref={editor}
                label={kind === 'mjml' ? 'MJML' : 'HTML'}
                description="Variables: {{contact.firstName}}, {{contact.lastName}}, {{contact.name}}, {{contact.email}}, {{campaign.name}}, {{unsubscribeUrl}}"
                required
                readOnly={!manages}
                rows={22}
                spellCheck={false}
                autoCapitalize="off"
                autoCorrect="off"
                styles={{ input: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13, whiteSpace: 'pre', overflowWrap: 'normal' } }}
                {...form.getInputProps(kind)}
                error={
                  form.errors[kind] ??
                  (sourceProblems.length
                    ? `${sourceProblems.length === 1 ? 'Un problema' : `${sourceProblems.length} problemas`}: ${sourceProblems.map((problem) => `línea ${problem.line}`).join(', ')} (vea la lista)`
                    : undefined)
                }
                onSelect={trackCursor}
                onKeyUp={trackCursor}
                onClick={trackCursor}
              />
              <Text size="xs" c="dimmed">
                Línea {cursor.line}, columna {cursor.column}
              </Text>
              {manages && (
                <Paper withBorder p="sm" id="problemas-del-codigo" aria-labelledby="problemas-titulo">
                  <Text fw={600} size="sm" id="problemas-titulo" c={sourceProblems.length ? 'red.8' : undefined}>
                    {!source
                      ? 'Escriba la plantilla para verla.'
                      : sourceProblems.length
                        ? `${sourceProblems.length === 1 ? 'Un problema' : `${sourceProblems.length} problemas`} en el ${FIELD_NAMES[kind]}: no se puede guardar así`
                        : draft.data
                          ? 'Sin problemas: se puede guardar.'
                          : 'Revisando…'}
                  </Text>
                  {sourceProblems.length > 0 && (
                    <Stack component="ul" gap={4} mt={4} p={0} style={{ listStyle: 'none' }} aria-label="Problemas por línea">
                      {sourceProblems.map((problem, index) => (
                        <li key={index}>
                          <UnstyledButton onClick={() => goToLine(problem.line)} fz="sm" c="red.8" td="underline">
                            Línea {problem.line}
                          </UnstyledButton>
                          <Text span size="sm">
                            : {problemInSpanish(problem.message)}
                          </Text>
                        </li>
                      ))}
                    </Stack>
                  )}
                </Paper>
              )}
              {manages && (
                <Group justify="flex-end">
                  <Button variant="default" onClick={() => void navigate('/correo/plantillas')}>
                    Volver
                  </Button>
                  <Button type="submit" loading={submitting} disabled={template !== undefined && !dirty}>
                    {template ? 'Guardar como versión nueva' : 'Guardar plantilla'}
                  </Button>
                </Group>
              )}
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 7 }}>
            <section aria-labelledby="vista-previa">
              <Preview draft={draft.data} pending={draft.isFetching} error={draft.isError ? draft.error : null} />
            </section>
          </Grid.Col>
        </Grid>
      </form>
      {testing && template && (
        <TestSendDialog
          templateId={template.id}
          onClose={() => setTesting(false)}
          onSent={(answer, to) => setSent(`Se envió la prueba «${answer.subject}» a ${to}. Revise la bandeja de entrada (y la de correo no deseado).`)}
        />
      )}
    </>
  );
}

/** The MJML editor: a new template, or a saved one opened to read, test or save again as a new version. */
export function TemplateEditor() {
  const { templateId } = useParams();
  const template = useQuery({
    queryKey: emailKeys.template(templateId ?? ''),
    queryFn: () => api.get<EmailTemplate>(`${TEMPLATES_PATH}/${templateId}`),
    enabled: Boolean(templateId),
    staleTime: Infinity,
  });
  if (!templateId) return <EditorForm key="new" template={undefined} />;
  if (template.isPending) return <Loader aria-label="Cargando la plantilla" />;
  if (template.isError) {
    return (
      <Alert color="red" role="alert" title="No se pudo abrir la plantilla">
        {problemMessage(template.error, EMAIL_PROBLEMS)}
      </Alert>
    );
  }
  return <EditorForm key={templateId} template={template.data} />;
}
