import { Alert, Group, NativeSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { CONTACT_FIELDS } from '../../../src/modules/whatsapp/whatsapp.codes';
import { createCampaignBody, previewCampaignBody } from '../../../src/modules/whatsapp/whatsapp.campaigns.schemas';
import { api } from '../app/api';
import { plural } from '../app/format';
import { FormError } from '../app/FormError';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists } from '../app/ServerTable';
import { SegmentReach } from '../app/SegmentFields';
import { AudienceFields, FormButtons, FormHeading, ScheduleFields, scheduleProblem, templateOptions, useSchedule, withCondition } from '../campaigns/CampaignFormParts';
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
  const [schedule, setScheduled] = useSchedule(undefined, (instant) => form.setFieldValue('scheduledAt', instant));
  const values = form.getValues();
  const segment = values.segment;
  const variables = values.variables ?? [];
  const template = templates.data?.find((candidate) => candidate.id === values.templateId);

  const setSegment = <K extends keyof Segment>(key: K, value: Segment[K] | undefined) => form.setFieldValue('segment', withCondition(form.getValues().segment, key, value));
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
    const late = scheduleProblem(schedule, body.scheduledAt);
    if (late) {
      form.setFieldError('scheduledAt', late);
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
          <FormError error={formError} />
          <TextInput label="Nombre de la campaña" description="Para el equipo; la gente no lo ve" required {...form.getInputProps('name')} />

          <FormHeading>Mensaje</FormHeading>
          {templates.data && templates.data.length === 0 ? (
            <Alert color="yellow" title="No hay plantillas aprobadas">
              Cree una en Plantillas: Meta la revisa antes de que se pueda enviar.
            </Alert>
          ) : (
            <NativeSelect
              label="Plantilla aprobada"
              required
              data={templateOptions(templates, (item) => `${item.name} (${item.language})`)}
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

          <AudienceFields
            intro="Solo reciben quienes autorizaron mensajes de WhatsApp y no se han dado de baja; una persona por número."
            segment={segment}
            onChange={setSegment}
            errors={form.errors}
            allLabel="Todas las personas con autorización de WhatsApp"
            reach={<Reach segment={segment} error={form.errors.segment as string | undefined} />}
          />
          <ScheduleFields schedule={schedule} onChange={setScheduled} error={form.errors.scheduledAt} />
          <FormButtons onBack={() => void navigate('/whatsapp/campanas')} submitting={submitting}>
            {schedule.on ? 'Programar campaña' : 'Crear borrador'}
          </FormButtons>
        </Stack>
      </form>
    </>
  );
}
