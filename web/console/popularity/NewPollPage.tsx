import { Alert, Button, Checkbox, Fieldset, Group, Loader, NativeSelect, NumberInput, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { checkCompliance, type Compliance } from '../../../src/modules/popularity/popularity.compliance';
import { POLL_METHODS, POLL_OPTIONS, POLL_SCOPES } from '../../../src/modules/popularity/popularity.constants';
import { popularityPolicy } from '../../../src/modules/popularity/popularity.policy';
import { createPollBody } from '../../../src/modules/popularity/popularity.schemas';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import type { Page } from '../../lib/api-types';
import { api } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { localToday } from '../app/format';
import { ForbiddenPage, PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { TerritorySelect } from '../app/SearchSelect';
import { SectionTabs } from '../app/SectionTabs';
import { useSignedIn } from '../app/session';
import { invalidateServerLists } from '../app/ServerTable';
import { LawNotes } from './Law';
import {
  COMPETITORS_PATH,
  formatPoints,
  METHOD_LABELS,
  OPTION_LABELS,
  POLLS_PATH,
  problemsByField,
  SCOPE_LABELS,
  SECTIONS,
  type Competitor,
  type Poll,
  type SheetField,
} from './data';

type PollValues = z.input<typeof createPollBody>;

/** A number box left empty: the schema refuses it (a result row left empty is dropped instead, see `prepare`). */
const EMPTY = '' as unknown as number;

/** What Ley 2494 says about the sheet as it stands, by the API's own engine; null while the sheet cannot yet describe a poll (a date or the sample missing). */
function liveCompliance(values: PollValues): Compliance | null {
  const blankToNull = (text: string | null | undefined) => (text && text.trim() ? text : null);
  try {
    return checkCompliance({
      pollster: values.pollster,
      sponsor: blankToNull(values.sponsor),
      fieldworkStart: values.fieldworkStart,
      fieldworkEnd: values.fieldworkEnd,
      publishedAt: values.publishedAt,
      scope: values.scope,
      universe: blankToNull(values.universe),
      sampleSize: Number(values.sampleSize),
      method: values.method,
      probabilistic: values.probabilistic,
      marginOfError: typeof values.marginOfError === 'number' ? values.marginOfError : NaN,
      confidenceLevel: typeof values.confidenceLevel === 'number' ? values.confidenceLevel : NaN,
      question: blankToNull(values.question),
    });
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** Registers a published poll: the technical sheet checked against Ley 2494 as it is typed, by the API's own rules; a sheet that fails them is stored and flagged. */
export default function NewPollPage() {
  const { user } = useSignedIn();
  const records = rolePermitted(user.role, popularityPolicy.roles('record'));
  const competitors = useQuery({ queryKey: ['popularity', 'competitors'], queryFn: () => api.get<Page<Competitor>>(COMPETITORS_PATH), enabled: records });
  if (!records) return <ForbiddenPage />;
  return (
    <>
      <PageTitle>Registrar encuesta</PageTitle>
      <SectionTabs label="Secciones de popularidad" sections={SECTIONS} />
      {competitors.isPending && <Loader size="sm" aria-label="Cargando" />}
      {competitors.isError && (
        <Alert color="red" role="alert">
          {problemMessage(competitors.error)}
        </Alert>
      )}
      {competitors.data &&
        (competitors.data.data.length === 0 ? (
          <Alert color="blue">
            Aún no hay candidatos registrados. Regístrelos en el monitoreo de redes (incluida nuestra candidatura) para anotar sus resultados en una encuesta.
          </Alert>
        ) : (
          <PollForm competitors={competitors.data.data} />
        ))}
    </>
  );
}

function PollForm({ competitors }: { competitors: Competitor[] }) {
  const navigate = useNavigate();
  const ordered = [...competitors].sort((a, b) => Number(b.isOwn) - Number(a.isOwn) || a.name.localeCompare(b.name, 'es'));
  const { form, submit, submitting, formError } = useSchemaForm(createPollBody, {
    initialValues: {
      pollster: '',
      sponsor: '',
      registrationNumber: '',
      fieldworkStart: '',
      fieldworkEnd: '',
      publishedAt: '',
      scope: 'national',
      territoryId: '',
      universe: '',
      sampleSize: EMPTY,
      method: 'face_to_face',
      probabilistic: true,
      marginOfError: EMPTY,
      confidenceLevel: 95,
      question: '',
      results: [...ordered.map((competitor) => ({ competitorId: competitor.id, percentage: EMPTY })), ...POLL_OPTIONS.map((option) => ({ option, percentage: EMPTY }))],
      sourceUrl: '',
      notes: '',
    } as PollValues,
    emptyAs: { sponsor: 'null', universe: 'null', question: 'null', registrationNumber: 'absent', territoryId: 'absent', sourceUrl: 'absent', notes: 'absent' },
    // A competitor or option the poll did not report is a row left empty: not part of the poll. Rows
    // cannot be refused once filled (the boxes keep 0–100), so dropping empty ones moves no error.
    prepare: (values) => ({ ...values, results: values.results.filter((row) => typeof row.percentage === 'number') }),
    messages: {
      results: 'Los resultados suman más de 100 %: revise los porcentajes.',
      territoryId: 'Elija el territorio de una encuesta que no es nacional.',
      fieldworkEnd: 'El trabajo de campo no puede terminar antes de empezar.',
    },
  });
  const values = form.getValues();
  const compliance = liveCompliance(values);
  const law = problemsByField(compliance);
  const total = values.results.reduce((sum, row) => sum + (typeof row.percentage === 'number' ? row.percentage : 0), 0);
  const field = (name: SheetField, description?: string) => ({
    ...form.getInputProps(name),
    description:
      description || law[name] ? (
        <>
          {description}
          <LawNotes messages={law[name]} />
        </>
      ) : undefined,
  });
  const onSubmit = submit(async (body) => {
    const created = await api.post<Poll>(POLLS_PATH, body);
    await invalidateServerLists(POLLS_PATH);
    void navigate(`/popularidad/encuestas/${created.id}`, { state: { created: true } });
  });
  const rowLabel = (row: PollValues['results'][number]) =>
    row.competitorId ? (ordered.find((competitor) => competitor.id === row.competitorId)?.name ?? row.competitorId) : OPTION_LABELS[row.option!];
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack maw={860}>
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <Fieldset
          legend={
            <Title order={2} size="h4">
              Ficha técnica
            </Title>
          }
        >
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Encuestadora" required {...field('pollster')} />
              <TextInput label="Quién la pagó" {...field('sponsor')} />
              <TextInput label="Registro en el CNE" {...form.getInputProps('registrationNumber')} />
              <TextInput type="date" label="Publicada el" required max={localToday()} {...field('publishedAt')} />
              <TextInput type="date" label="Trabajo de campo desde" required {...field('fieldworkStart')} />
              <TextInput type="date" label="Trabajo de campo hasta" required {...field('fieldworkEnd')} />
              <NativeSelect label="Alcance" data={POLL_SCOPES.map((scope) => ({ value: scope, label: SCOPE_LABELS[scope] }))} {...form.getInputProps('scope')} />
              {values.scope !== 'national' && (
                <TerritorySelect
                  label="Territorio"
                  required
                  value={values.territoryId || null}
                  onChange={(id) => form.setFieldValue('territoryId', id ?? '')}
                  error={form.errors.territoryId}
                />
              )}
              <NativeSelect label="Método" data={POLL_METHODS.map((method) => ({ value: method, label: METHOD_LABELS[method] }))} {...form.getInputProps('method')} />
              <NumberInput label="Tamaño de la muestra" required min={1} allowDecimal={false} allowNegative={false} {...field('sampleSize', 'Personas entrevistadas')} />
              <NumberInput
                label="Margen de error (puntos)"
                required
                min={0}
                max={100}
                decimalScale={2}
                decimalSeparator=","
                allowNegative={false}
                {...field(
                  'marginOfError',
                  `Máximo ${values.scope === 'national' ? '3' : '5'} puntos para una encuesta ${values.scope === 'national' ? 'nacional' : 'territorial'}`,
                )}
              />
              <NumberInput
                label="Nivel de confianza (%)"
                required
                min={50}
                max={99.99}
                decimalScale={2}
                decimalSeparator=","
                allowNegative={false}
                {...field('confidenceLevel', 'Al menos 95 %')}
              />
            </SimpleGrid>
            <Checkbox label="Muestreo probabilístico" {...form.getInputProps('probabilistic', { type: 'checkbox' })} description={<LawNotes messages={law.probabilistic} />} />
            <Textarea label="Universo" autosize minRows={2} {...field('universe', 'A quién representa: edad, zona, tipo de hogar')} />
            <Textarea label="Pregunta literal" autosize minRows={2} {...field('question')} />
          </Stack>
        </Fieldset>
        <Fieldset
          legend={
            <Title order={2} size="h4">
              Resultados (%)
            </Title>
          }
        >
          <Text size="sm" c="dimmed" mb="xs">
            Deje vacío lo que la encuesta no informó. Suman {formatPoints(total)} %.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            {values.results.map((row, index) => (
              <NumberInput
                key={row.competitorId ?? row.option}
                label={rowLabel(row)}
                min={0}
                max={100}
                decimalScale={1}
                decimalSeparator=","
                allowNegative={false}
                {...form.getInputProps(`results.${index}.percentage`)}
              />
            ))}
          </SimpleGrid>
          {form.errors.results && (
            <Text size="sm" c="var(--mantine-color-error)" mt="xs" role="alert">
              {form.errors.results}
            </Text>
          )}
        </Fieldset>
        <Fieldset
          legend={
            <Title order={2} size="h4">
              Fuente
            </Title>
          }
        >
          <Stack>
            <TextInput label="Enlace a la publicación" type="url" {...form.getInputProps('sourceUrl')} />
            <Textarea label="Notas" autosize minRows={2} {...form.getInputProps('notes')} />
          </Stack>
        </Fieldset>
        {compliance && (
          <Alert
            color={compliance.compliant ? 'green' : 'orange'}
            role="status"
            title={compliance.compliant ? 'La ficha cumple la Ley 2494 de 2025' : 'La ficha no cumple la Ley 2494 de 2025'}
          >
            {compliance.compliant
              ? 'Se guardará como encuesta que cumple.'
              : `Se guardará marcada como no conforme: ${compliance.problems.length === 1 ? 'un problema, señalado' : `${compliance.problems.length} problemas, señalados`} junto a su campo.`}
            {law.other.length > 0 && <LawNotes messages={law.other} />}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => void navigate('/popularidad/encuestas')}>
            Cancelar
          </Button>
          <Button type="submit" loading={submitting}>
            Guardar encuesta
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
