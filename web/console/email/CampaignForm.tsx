import { ActionIcon, Alert, Button, Group, NativeSelect, NumberInput, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import type { z } from 'zod';
import { AB_METRICS } from '../../../src/modules/email/email.codes';
import { createCampaignBody, previewCampaignBody } from '../../../src/modules/email/email.schemas';
import { api, queryClient } from '../app/api';
import { plural } from '../app/format';
import { FormError } from '../app/FormError';
import { problemMessage } from '../app/problems';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { invalidateServerLists } from '../app/ServerTable';
import { SegmentReach } from '../app/SegmentFields';
import { campaignNotReady } from '../campaigns/CampaignDetailParts';
import { AudienceFields, FormButtons, FormHeading, ScheduleFields, scheduleProblem, templateOptions, useSchedule, withCondition } from '../campaigns/CampaignFormParts';
import { EmailTabs } from './EmailTabs';
import { CAMPAIGNS_PATH, EMAIL_PROBLEMS, emailKeys, METRIC_LABELS, TEMPLATES_PATH, type CampaignPreview, type EmailCampaign, type EmailTemplateSummary } from './data';

type Values = z.input<typeof createCampaignBody>;
type Segment = Values['segment'];
type Variant = Values['variants'][number];
type AbTest = NonNullable<Values['abTest']>;

const LETTERS = ['A', 'B', 'C', 'D'];
const MAX_VARIANTS = 4;
/** What an A/B test starts with: a fifth of the audience tested, decided on clicks after four hours. */
const AB_DEFAULTS: AbTest = { testPercent: 20, metric: 'click', waitMinutes: 240 };
const INITIAL: Values = { name: '', fromName: '', fromEmail: '', replyTo: '', segment: {}, variants: [{ name: 'A', subject: '', templateId: '' }] };

/** A campaign as the form holds it, to change it. */
function valuesOf(campaign: EmailCampaign): Values {
  return {
    name: campaign.name,
    fromName: campaign.fromName,
    fromEmail: campaign.fromEmail,
    replyTo: campaign.replyTo ?? '',
    segment: campaign.segment as Segment,
    variants: campaign.variants.map(({ name, subject, templateId }) => ({ name, subject, templateId })),
    ...(campaign.abTest ? { abTest: campaign.abTest } : {}),
    ...(campaign.scheduledAt ? { scheduledAt: campaign.scheduledAt } : {}),
  };
}

/** A campaign that has not started, to change: the same form, filled in. */
export function EditCampaignForm() {
  const { campaignId = '' } = useParams();
  const campaign = useQuery({ queryKey: emailKeys.campaign(campaignId), queryFn: () => api.get<EmailCampaign>(`${CAMPAIGNS_PATH}/${campaignId}`) });
  if (!campaign.isSuccess) return campaignNotReady(campaign, EMAIL_PROBLEMS);
  return <CampaignForm campaign={campaign.data} />;
}

/**
 * An email campaign, new or not started yet: sender, the segment (the same conditions as
 * WhatsApp's), one variant or an A/B test of up to four (share tested, metric, wait before the
 * winner goes to the rest), and when.
 */
export function CampaignForm({ campaign }: { campaign?: EmailCampaign }) {
  const navigate = useNavigate();
  const templates = useQuery({ queryKey: emailKeys.templates, queryFn: () => api.all<EmailTemplateSummary>(TEMPLATES_PATH, 500) });
  const { form, submit, submitting, formError } = useSchemaForm(
    createCampaignBody,
    { initialValues: campaign ? valuesOf(campaign) : INITIAL, emptyAs: { replyTo: 'absent' } },
    EMAIL_PROBLEMS,
  );
  const [schedule, setScheduled] = useSchedule(campaign?.scheduledAt, (instant) => form.setFieldValue('scheduledAt', instant));
  const values = form.getValues();
  const variants = values.variants;

  const setSegment = <K extends keyof Segment>(key: K, value: Segment[K] | undefined) => form.setFieldValue('segment', withCondition(form.getValues().segment, key, value));
  const setVariants = (next: Variant[]) => {
    form.setFieldValue('variants', next);
    // Several variants are an A/B test; one is not.
    if (next.length > 1 && !form.getValues().abTest) form.setFieldValue('abTest', AB_DEFAULTS);
    if (next.length === 1) form.setFieldValue('abTest', undefined);
  };
  const setVariant = (index: number, change: Partial<Variant>) => setVariants(variants.map((variant, at) => (at === index ? { ...variant, ...change } : variant)));
  const chooseTemplate = (index: number, templateId: string) => {
    const chosen = templates.data?.find((template) => template.id === templateId);
    setVariant(index, { templateId, ...(chosen && !variants[index]!.subject ? { subject: chosen.subject } : {}) });
  };
  const addVariant = () => {
    const used = new Set(variants.map((variant) => variant.name));
    setVariants([...variants, { name: LETTERS.find((letter) => !used.has(letter)) ?? '', subject: '', templateId: '' }]);
  };
  const setAb = (change: Partial<AbTest>) => form.setFieldValue('abTest', { ...AB_DEFAULTS, ...form.getValues().abTest, ...change });

  const onSubmit = submit(async (body) => {
    const late = scheduleProblem(schedule, body.scheduledAt);
    if (late) {
      form.setFieldError('scheduledAt', late);
      return;
    }
    const saved = campaign ? await api.put<EmailCampaign>(`${CAMPAIGNS_PATH}/${campaign.id}`, body) : await api.post<EmailCampaign>(CAMPAIGNS_PATH, body);
    queryClient.setQueryData(emailKeys.campaign(saved.id), saved);
    void queryClient.invalidateQueries({ queryKey: emailKeys.stats(saved.id) });
    void invalidateServerLists(CAMPAIGNS_PATH);
    await navigate(`/correo/${saved.id}`);
  });

  const templateChoices = templateOptions(templates, (template) => template.name);
  const ab = values.abTest;
  return (
    <>
      <PageTitle>{campaign ? `Cambiar: ${campaign.name}` : 'Nueva campaña de correo'}</PageTitle>
      <EmailTabs />
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={820}>
          <FormError error={formError} />
          <TextInput label="Nombre de la campaña" description="Para el equipo; también llena {{campaign.name}}" required {...form.getInputProps('name')} />
          <Group grow align="flex-start">
            <TextInput label="Nombre del remitente" required {...form.getInputProps('fromName')} />
            <TextInput label="Correo del remitente" type="email" required {...form.getInputProps('fromEmail')} />
          </Group>
          <TextInput label="Responder a (opcional)" type="email" {...form.getInputProps('replyTo')} />

          <FormHeading>Mensaje</FormHeading>
          {templates.data && templates.data.length === 0 && (
            <Alert color="yellow" title="No hay plantillas">
              Cree una en Plantillas antes de la campaña.
            </Alert>
          )}
          {variants.map((variant, index) => (
            <Paper key={index} withBorder p="sm" role="group" aria-label={`Variante ${variant.name || index + 1}`}>
              <Group align="flex-start" wrap="nowrap">
                <TextInput
                  label="Variante"
                  w={110}
                  required
                  {...form.getInputProps(`variants.${index}.name`)}
                  onChange={(event) => setVariant(index, { name: event.currentTarget.value })}
                />
                <NativeSelect
                  label="Plantilla"
                  required
                  style={{ flex: 1 }}
                  data={templateChoices}
                  {...form.getInputProps(`variants.${index}.templateId`)}
                  onChange={(event) => chooseTemplate(index, event.currentTarget.value)}
                />
                {variants.length > 1 && (
                  <ActionIcon
                    mt={26}
                    variant="subtle"
                    color="red"
                    aria-label={`Quitar la variante ${variant.name || index + 1}`}
                    onClick={() => setVariants(variants.filter((_, at) => at !== index))}
                  >
                    ✕
                  </ActionIcon>
                )}
              </Group>
              <TextInput
                mt="xs"
                label="Asunto"
                required
                {...form.getInputProps(`variants.${index}.subject`)}
                onChange={(event) => setVariant(index, { subject: event.currentTarget.value })}
              />
            </Paper>
          ))}
          {form.errors.variants && (
            <Text size="sm" c="red.8">
              {form.errors.variants}
            </Text>
          )}
          {variants.length < MAX_VARIANTS && (
            <Button variant="default" w="fit-content" onClick={addVariant}>
              {variants.length === 1 ? 'Agregar una variante (prueba A/B)' : 'Agregar otra variante'}
            </Button>
          )}
          {ab && (
            <Paper withBorder p="sm" role="group" aria-labelledby="prueba-ab">
              <Title order={3} size="h5" id="prueba-ab" mb="xs">
                Prueba A/B
              </Title>
              <Text size="sm" mb="xs">
                Una parte del segmento recibe las variantes por igual; tras la espera, la que gana con diferencia significativa (95 %) va al resto. Sin evidencia suficiente va la
                primera (la de control).
              </Text>
              <Group grow align="flex-start">
                <NumberInput
                  label="Porcentaje de prueba"
                  description="Del segmento, entre 5 y 50"
                  suffix=" %"
                  min={5}
                  max={50}
                  allowDecimal={false}
                  clampBehavior="none"
                  value={ab.testPercent}
                  onChange={(value) => setAb({ testPercent: Number(value) })}
                  error={form.errors['abTest.testPercent']}
                />
                <NumberInput
                  label="Espera antes de decidir"
                  description="Minutos, entre 15 y 1.440 (un día)"
                  min={15}
                  max={1440}
                  allowDecimal={false}
                  clampBehavior="none"
                  value={ab.waitMinutes}
                  onChange={(value) => setAb({ waitMinutes: Number(value) })}
                  error={form.errors['abTest.waitMinutes']}
                />
              </Group>
              <NativeSelect
                mt="xs"
                label="Gana por"
                value={ab.metric ?? 'click'}
                data={AB_METRICS.map((metric) => ({ value: metric, label: METRIC_LABELS[metric] }))}
                onChange={(event) => setAb({ metric: event.currentTarget.value as AbTest['metric'] })}
              />
              {form.errors.abTest && (
                <Text size="sm" c="red.8" mt={4}>
                  {form.errors.abTest}
                </Text>
              )}
            </Paper>
          )}

          <AudienceFields
            intro="Solo reciben quienes autorizaron correo, no se dieron de baja y cuya dirección no rebotó; una persona por dirección. Sin condiciones, van todas ellas."
            segment={values.segment}
            onChange={setSegment}
            errors={form.errors}
            reach={
              <SegmentReach
                segment={values.segment}
                error={form.errors.segment as string | undefined}
                schema={previewCampaignBody}
                queryKey={emailKeys.preview}
                count={(segment) => api.post<CampaignPreview>(`${CAMPAIGNS_PATH}/preview`, { segment })}
                prompt="Revise las condiciones del segmento para saber a cuántas llega."
                describeError={(failure) => problemMessage(failure, EMAIL_PROBLEMS)}
                describe={(preview) => (
                  <Text fw={700}>
                    {preview.reachable === 0
                      ? 'Alcance: nadie. Ninguna dirección de este segmento autorizó correo sin darse de baja ni rebotar.'
                      : `Alcance: ${plural(preview.reachable, 'dirección', 'direcciones')} con autorización de correo, sin baja ni rebote`}
                  </Text>
                )}
              />
            }
          />
          <ScheduleFields schedule={schedule} onChange={setScheduled} error={form.errors.scheduledAt} />
          <FormButtons onBack={() => void navigate(campaign ? `/correo/${campaign.id}` : '/correo')} submitting={submitting}>
            {campaign ? 'Guardar cambios' : schedule.on ? 'Programar campaña' : 'Crear borrador'}
          </FormButtons>
        </Stack>
      </form>
    </>
  );
}
