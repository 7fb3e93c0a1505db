import { Alert, Button, Checkbox, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { CONTACT_FIELDS } from '../../../src/modules/whatsapp/whatsapp.codes';
import { createCampaignBody, previewCampaignBody } from '../../../src/modules/whatsapp/whatsapp.campaigns.schemas';
import { api } from '../app/api';
import { localInstant, localToday, plural } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists } from '../app/ServerTable';
import { SegmentFields, SegmentReach } from '../app/SegmentFields';
import {
  CAMPAIGN_PROBLEMS,
  campaignKeys,
  CAMPAIGNS_PATH,
  CONTACT_FIELD_EXAMPLES,
  CONTACT_FIELD_LABELS,
  renderBody,
  TEMPLATES_PATH,
  tierMeaning,
  type Campaign,
  type CampaignPreview,
} from './campaigns';
import { keys, type Template } from './inbox';
import { SimulatorNotice } from './SimulatorNotice';
import { WhatsAppTabs } from './WhatsAppTabs';

type Values = z.input<typeof createCampaignBody>;
type Segment = Values['segment'];
type Variable = NonNullable<Values['variables']>[number];

const LITERAL = 'literal';

/** Whether an instant has gone by (read when the form is sent). */
const isPast = (instant: string) => Date.parse(instant) <= Date.now();
const INITIAL: Values = { name: '', templateId: '', variables: [], segment: {} };

/** Whom the segment reaches on WhatsApp right now, and what the tier makes of the send. */
function Reach({ segment, error }: { segment: Segment; error: string | undefined }) {
  return (
    <SegmentReach
      segment={segment}
      error={error}
      schema={previewCampaignBody}
      queryKey={campaignKeys.preview}
      count={(chosen) => api.post<CampaignPreview>(`${CAMPAIGNS_PATH}/preview`, { segment: chosen })}
      prompt="Elija al menos una condición (o «Todas las personas») para saber a cuántas llega."
      describeError={(failure) => problemMessage(failure, CAMPAIGN_PROBLEMS)}
      describe={(preview) => (
        <Stack gap={4}>
          <Text fw={700}>
            {preview.reachable === 0
              ? 'Alcance: nadie. Ninguna persona de este segmento autorizó WhatsApp sin darse de baja.'
              : `Alcance: ${plural(preview.reachable, 'persona', 'personas')} con autorización de WhatsApp y sin baja`}
          </Text>
          {preview.reachable > 0 && <Text size="sm">{tierMeaning(preview)}</Text>}
        </Stack>
      )}
    />
  );
}

/** A new campaign: an approved template, a variable per placeholder, the segment with its reach, and when it goes. */
export function CampaignForm() {
  const navigate = useNavigate();
  const templates = useQuery({ queryKey: keys.templates, queryFn: () => api.all<Template>(`${TEMPLATES_PATH}?status=APPROVED`, 500) });
  const { form, submit, submitting, formError } = useSchemaForm(createCampaignBody, { initialValues: INITIAL }, CAMPAIGN_PROBLEMS);
  const [schedule, setSchedule] = useState({ on: false, date: '', time: '' });
  const values = form.getValues();
  const segment = values.segment;
  const variables = values.variables ?? [];
  const template = templates.data?.find((candidate) => candidate.id === values.templateId);

  const setSegment = <K extends keyof Segment>(key: K, value: Segment[K] | undefined) => {
    const next: Segment = { ...form.getValues().segment };
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
    else next[key] = value;
    form.setFieldValue('segment', next);
  };
  const setScheduled = (next: typeof schedule) => {
    setSchedule(next);
    form.setFieldValue('scheduledAt', next.on ? localInstant(next.date, next.time) : undefined);
  };
  const chooseTemplate = (id: string) => {
    form.setFieldValue('templateId', id);
    const chosen = templates.data?.find((candidate) => candidate.id === id);
    // One variable per placeholder: the first greets by name, the others wait for a text.
    form.setFieldValue(
      'variables',
      Array.from({ length: chosen?.placeholders ?? 0 }, (_, index): Variable => (index === 0 ? 'contact.firstName' : { literal: '' })),
    );
  };
  const setVariable = (index: number, variable: Variable) =>
    form.setFieldValue(
      'variables',
      variables.map((current, at) => (at === index ? variable : current)),
    );
  const sample = variables.map((variable) =>
    typeof variable === 'string' ? (CONTACT_FIELD_EXAMPLES[variable.slice(8) as keyof typeof CONTACT_FIELD_EXAMPLES] ?? variable) : variable.literal,
  );

  const onSubmit = submit(async (body) => {
    if (schedule.on && !body.scheduledAt) {
      form.setFieldError('scheduledAt', 'Elija el día y la hora del envío.');
      return;
    }
    // The server refuses a time already past too, in English: said here in Spanish first.
    if (body.scheduledAt && isPast(body.scheduledAt)) {
      form.setFieldError('scheduledAt', 'Elija un día y una hora que no hayan pasado (hora de Bogotá).');
      return;
    }
    const created = await api.post<Campaign>(CAMPAIGNS_PATH, body);
    void invalidateServerLists(CAMPAIGNS_PATH);
    await navigate(`/whatsapp/campanas/${created.id}`);
  });

  return (
    <>
      <PageTitle>Nueva campaña de WhatsApp</PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>No hay una cuenta de WhatsApp Business configurada: esta campaña no llegará a nadie; el simulador inventa sus entregas.</SimulatorNotice>
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={760}>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <TextInput label="Nombre de la campaña" description="Para el equipo; la gente no lo ve" required {...form.getInputProps('name')} />

          <Title order={2} size="h4">
            Mensaje
          </Title>
          {templates.data && templates.data.length === 0 ? (
            <Alert color="yellow" title="No hay plantillas aprobadas">
              Cree una en Plantillas: Meta la revisa antes de que se pueda enviar.
            </Alert>
          ) : (
            <NativeSelect
              label="Plantilla aprobada"
              required
              data={[
                { value: '', label: templates.isPending ? 'Cargando plantillas…' : 'Elija una plantilla' },
                ...(templates.data ?? []).map((item) => ({ value: item.id, label: `${item.name} (${item.language})` })),
              ]}
              {...form.getInputProps('templateId')}
              onChange={(event) => chooseTemplate(event.currentTarget.value)}
            />
          )}
          {variables.map((variable, index) => {
            const kind = typeof variable === 'string' ? variable : LITERAL;
            const error = form.errors[`variables.${index}.literal`] ?? form.errors[`variables.${index}`];
            return (
              <Group key={index} grow align="flex-start">
                <NativeSelect
                  label={`Variable {{${index + 1}}}`}
                  value={kind}
                  data={[...CONTACT_FIELDS.map((field) => ({ value: `contact.${field}`, label: CONTACT_FIELD_LABELS[field] })), { value: LITERAL, label: 'Texto fijo' }]}
                  onChange={(event) => setVariable(index, event.currentTarget.value === LITERAL ? { literal: '' } : event.currentTarget.value)}
                  error={kind !== LITERAL ? error : undefined}
                />
                {typeof variable !== 'string' && (
                  <TextInput
                    label={`Texto de {{${index + 1}}}`}
                    required
                    value={variable.literal}
                    onChange={(event) => setVariable(index, { literal: event.currentTarget.value })}
                    onBlur={() => form.validateField(`variables.${index}.literal`)}
                    error={error}
                  />
                )}
              </Group>
            );
          })}
          {form.errors.variables && (
            <Text size="sm" c="red.8">
              {form.errors.variables}
            </Text>
          )}
          {template && (
            <Paper withBorder p="sm" aria-label="Vista previa del mensaje" role="figure">
              <Text size="xs" c="dimmed" fw={600}>
                Así lo leería una persona (con datos de ejemplo)
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {renderBody(template.body, sample)}
              </Text>
            </Paper>
          )}

          <Title order={2} size="h4">
            A quién
          </Title>
          <Text size="sm">Solo reciben quienes autorizaron mensajes de WhatsApp y no se han dado de baja; una persona por número.</Text>
          <SegmentFields segment={segment} onChange={setSegment} errors={form.errors} allLabel="Todas las personas con autorización de WhatsApp" />
          <Reach segment={segment} error={form.errors.segment as string | undefined} />

          <Title order={2} size="h4">
            Cuándo
          </Title>
          <Checkbox
            label="Programar el envío (si no, queda como borrador y se envía desde su página)"
            checked={schedule.on}
            onChange={(event) => setScheduled({ ...schedule, on: event.currentTarget.checked })}
          />
          {schedule.on && (
            <Group grow align="flex-start">
              <TextInput
                type="date"
                label="Día"
                description="Hora de Bogotá"
                min={localToday()}
                value={schedule.date}
                onChange={(event) => setScheduled({ ...schedule, date: event.currentTarget.value })}
              />
              <TextInput
                type="time"
                label="Hora"
                description="Hora de Bogotá"
                value={schedule.time}
                onChange={(event) => setScheduled({ ...schedule, time: event.currentTarget.value })}
                error={form.errors.scheduledAt}
              />
            </Group>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => void navigate('/whatsapp/campanas')}>
              Volver
            </Button>
            <Button type="submit" loading={submitting}>
              {schedule.on ? 'Programar campaña' : 'Crear borrador'}
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
