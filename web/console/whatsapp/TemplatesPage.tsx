import { Alert, Badge, Button, Group, NativeSelect, Paper, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '../../../src/modules/whatsapp/whatsapp.codes';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { checkPlaceholders, createTemplateBody } from '../../../src/modules/whatsapp/whatsapp.schemas';
import { queryClient, api } from '../app/api';
import { formatDateTime } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { invalidateServerLists, ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { CAMPAIGN_PROBLEMS, renderBody, TEMPLATE_CATEGORY_LABELS, TEMPLATE_STATUS_COLOURS, TEMPLATE_STATUS_LABELS, TEMPLATES_PATH } from './campaigns';
import { keys, type Template } from './inbox';
import { SimulatorNotice } from './SimulatorNotice';
import { WhatsAppTabs } from './WhatsAppTabs';

type Status = (typeof TEMPLATE_STATUSES)[number];

const columns: Column<Template>[] = [
  {
    key: 'name',
    header: 'Plantilla',
    render: (template) => (
      <Stack gap={0}>
        <Text fw={600} size="sm">
          {template.name}
        </Text>
        <Text size="xs" c="dimmed" lineClamp={2}>
          {template.body}
        </Text>
      </Stack>
    ),
  },
  { key: 'language', header: 'Idioma', render: (template) => template.language },
  { key: 'category', header: 'Categoría', render: (template) => TEMPLATE_CATEGORY_LABELS[template.category] },
  {
    key: 'status',
    header: 'Estado en Meta',
    render: (template) => (
      <Stack gap={2}>
        <Badge color={TEMPLATE_STATUS_COLOURS[template.status]} variant="dot" tt="none">
          {TEMPLATE_STATUS_LABELS[template.status]}
        </Badge>
        {template.rejectionReason && <Text size="xs">Motivo: {template.rejectionReason}</Text>}
      </Stack>
    ),
  },
  { key: 'placeholders', header: 'Variables', numeric: true, render: (template) => template.placeholders },
  { key: 'created', header: 'Creada', render: (template) => formatDateTime(template.createdAt) },
];

/** The templates with Meta's review status and category, paged by the server; a template in review is asked for again until Meta decides. */
export function TemplatesPage() {
  const { user } = useSignedIn();
  const [status, setStatus] = useState<Status | ''>('');
  return (
    <>
      <PageTitle
        actions={
          rolePermitted(user.role, whatsappPolicy.roles('manageTemplates')) && (
            <Button component={Link} to="/whatsapp/campanas/plantillas/nueva">
              Nueva plantilla
            </Button>
          )
        }
      >
        Plantillas de WhatsApp
      </PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>No hay una cuenta de WhatsApp Business configurada: el simulador aprueba las plantillas en unos segundos, sin que Meta las vea.</SimulatorNotice>
      <Text size="sm" mb="sm">
        Fuera de una conversación abierta, WhatsApp solo deja enviar plantillas que Meta aprobó. Cada plantilla nueva pasa por su revisión.
      </Text>
      <Group mb="sm">
        <NativeSelect
          label="Estado en Meta"
          value={status}
          onChange={(event) => setStatus(event.currentTarget.value as Status | '')}
          data={[{ value: '', label: 'Todos' }, ...TEMPLATE_STATUSES.map((value) => ({ value, label: TEMPLATE_STATUS_LABELS[value] }))]}
        />
      </Group>
      <ServerTable
        caption="Plantillas de WhatsApp"
        path={status ? `${TEMPLATES_PATH}?status=${status}` : TEMPLATES_PATH}
        columns={columns}
        rowKey={(template) => template.id}
        empty="No hay plantillas. Cree la primera para poder enviar campañas."
        refetchWhile={(rows) => rows.some((template) => template.status === 'PENDING')}
      />
    </>
  );
}

type Values = z.input<typeof createTemplateBody>;

/** A new template: the API's rules beside each field as it is written (placeholders numbered, one example each), then Meta's review. */
export function TemplateForm() {
  const navigate = useNavigate();
  const { form, submit, submitting, formError } = useSchemaForm(
    createTemplateBody,
    {
      initialValues: { name: '', language: 'es', category: 'MARKETING', body: '', examples: [] } as Values,
      validateInputOnChange: ['name', 'body', 'header', 'footer'],
      emptyAs: { header: 'absent', footer: 'absent' },
      messages: {
        name: 'Solo minúsculas sin tildes, números y guion bajo, empezando por una letra (por ejemplo: invitacion_cierre).',
        language: 'Un código de idioma como es o es_CO.',
        body: 'Las variables van numeradas {{1}}, {{2}}… en orden y sin saltarse números.',
        examples: 'Dé un ejemplo por cada variable.',
        header: 'El encabezado no lleva variables.',
        footer: 'El pie no lleva variables.',
      },
    },
    CAMPAIGN_PROBLEMS,
  );
  const values = form.getValues();
  const examples = values.examples ?? [];
  const counted = checkPlaceholders(values.body);
  const placeholders = typeof counted === 'number' ? counted : 0;

  const bodyProps = form.getInputProps('body');
  const onBody = (text: string) => {
    form.setFieldValue('body', text);
    const found = checkPlaceholders(text);
    // One example field per placeholder, keeping what was written.
    if (typeof found === 'number')
      form.setFieldValue(
        'examples',
        Array.from({ length: found }, (_, index) => examples[index] ?? ''),
      );
  };

  const onSubmit = submit(async (body) => {
    await api.post<Template>(TEMPLATES_PATH, body);
    void invalidateServerLists(TEMPLATES_PATH);
    void queryClient.invalidateQueries({ queryKey: keys.templates });
    notifications.show({ color: 'green', message: 'Plantilla enviada a revisión de Meta. Podrá usarla cuando esté aprobada.' });
    await navigate('/whatsapp/campanas/plantillas');
  });

  return (
    <>
      <PageTitle>Nueva plantilla de WhatsApp</PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>No hay una cuenta de WhatsApp Business configurada: el simulador aprueba la plantilla sin que Meta la vea.</SimulatorNotice>
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={760}>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <Group grow align="flex-start">
            <TextInput label="Nombre" description="Minúsculas, números y guion bajo" required {...form.getInputProps('name')} />
            <TextInput label="Idioma" description="es, es_CO…" required {...form.getInputProps('language')} />
            <NativeSelect
              label="Categoría"
              description="Marketing: invitaciones y noticias; servicio: respuestas a trámites"
              data={TEMPLATE_CATEGORIES.map((value) => ({ value, label: TEMPLATE_CATEGORY_LABELS[value] }))}
              {...form.getInputProps('category')}
            />
          </Group>
          <TextInput label="Encabezado (opcional)" description="Hasta 60 caracteres, sin variables" {...form.getInputProps('header')} />
          <Textarea
            label="Texto"
            description="Hasta 1.024 caracteres. Variables: {{1}}, {{2}}… en orden"
            required
            autosize
            minRows={4}
            {...bodyProps}
            onChange={(event) => onBody(event.currentTarget.value)}
          />
          <Text size="sm" aria-live="polite">
            {typeof counted === 'string'
              ? 'Revise la numeración de las variables.'
              : placeholders === 0
                ? 'Sin variables.'
                : `${placeholders === 1 ? '1 variable' : `${placeholders} variables`}: un ejemplo para cada una (Meta revisa con ellos).`}
          </Text>
          {examples.map((example, index) => (
            <TextInput key={index} label={`Ejemplo de {{${index + 1}}}`} required {...form.getInputProps(`examples.${index}`)} value={example} />
          ))}
          {form.errors.examples && (
            <Text size="sm" c="red.8">
              {form.errors.examples}
            </Text>
          )}
          <TextInput label="Pie (opcional)" description="Hasta 60 caracteres, sin variables" {...form.getInputProps('footer')} />
          {values.body.trim() && (
            <Paper withBorder p="sm" aria-label="Vista previa de la plantilla" role="figure">
              <Text size="xs" c="dimmed" fw={600}>
                Vista previa con los ejemplos
              </Text>
              {values.header && <Text fw={700}>{values.header}</Text>}
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {renderBody(values.body, examples)}
              </Text>
              {values.footer && (
                <Text size="xs" c="dimmed">
                  {values.footer}
                </Text>
              )}
            </Paper>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => void navigate('/whatsapp/campanas/plantillas')}>
              Volver
            </Button>
            <Button type="submit" loading={submitting}>
              Enviar a revisión
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
