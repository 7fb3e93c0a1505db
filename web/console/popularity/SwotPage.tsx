import { Alert, Badge, Button, Card, Group, List, Loader, NativeSelect, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { SWOT_QUADRANTS, type SwotQuadrant } from '../../../src/modules/popularity/popularity.constants';
import { popularityPolicy } from '../../../src/modules/popularity/popularity.policy';
import { createSwotBody } from '../../../src/modules/popularity/popularity.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SectionTabs } from '../app/SectionTabs';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { QUADRANTS, SECTIONS, SWOT_PATH, type Swot, type SwotItem } from './data';

type Suggestion = Swot[SwotQuadrant]['suggestions'][number];

const SWOT_PROBLEMS = {
  suggestion_taken: 'Esta sugerencia ya fue aceptada (quizás por otra persona): el tablero se actualizó.',
  not_found: 'Este punto ya no existe: el tablero se actualizó.',
};

const refresh = () => queryClient.invalidateQueries({ queryKey: ['popularity', 'swot'] });

/** The SWOT board: what staff wrote or accepted in each quadrant, and what the data suggests, with its evidence, to accept. */
export default function SwotPage() {
  const { user } = useSignedIn();
  const records = rolePermitted(user.role, popularityPolicy.roles('record'));
  const swot = useQuery({ queryKey: ['popularity', 'swot'], queryFn: () => api.get<Swot>(SWOT_PATH) });
  return (
    <>
      <PageTitle>DOFA</PageTitle>
      <SectionTabs label="Secciones de popularidad" sections={SECTIONS} />
      {swot.isPending && <Loader size="sm" aria-label="Cargando" />}
      {swot.isError && (
        <Alert color="red" role="alert">
          {problemMessage(swot.error)}
        </Alert>
      )}
      {swot.data && (
        <Stack>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {QUADRANTS.map(({ quadrant, label, hint }) => (
              <Quadrant key={quadrant} label={label} hint={hint} quadrant={quadrant} board={swot.data[quadrant]} records={records} />
            ))}
          </SimpleGrid>
          {records && <AddItem />}
        </Stack>
      )}
    </>
  );
}

function Quadrant({ quadrant, label, hint, board, records }: { quadrant: SwotQuadrant; label: string; hint: string; board: Swot[SwotQuadrant]; records: boolean }) {
  const headingId = useId();
  return (
    <Card withBorder component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId}>
        {label}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {hint}
      </Text>
      {board.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nada anotado todavía.
        </Text>
      ) : (
        <List spacing="xs" aria-label={`${label} anotadas`}>
          {board.items.map((item) => (
            <Item key={item.id} item={item} records={records} />
          ))}
        </List>
      )}
      {board.suggestions.length > 0 && (
        <Stack gap="xs" mt="md">
          <Title order={3} size="h5">
            Sugerencias de los datos
          </Title>
          {board.suggestions.map((suggestion) => (
            <SuggestionCard key={suggestion.key} quadrant={quadrant} suggestion={suggestion} records={records} />
          ))}
        </Stack>
      )}
    </Card>
  );
}

function Evidence({ evidence }: { evidence: SwotItem['evidence'] }) {
  if (!evidence.length) return null;
  return (
    <Text size="xs" c="dimmed">
      Evidencia: {evidence.map((entry) => entry.label).join(' · ')}
    </Text>
  );
}

function Item({ item, records }: { item: SwotItem; records: boolean }) {
  const [removing, setRemoving] = useState(false);
  return (
    <List.Item>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Text size="sm">{item.text}</Text>
          <Evidence evidence={item.evidence} />
          {item.suggestionKey && (
            <Badge size="xs" variant="light" color={TONES.blue.color} c={TONES.blue.text}>
              Sugerida por los datos
            </Badge>
          )}
        </div>
        {records && (
          <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemoving(true)}>
            Quitar
          </Button>
        )}
      </Group>
      <ConfirmDialog
        opened={removing}
        onClose={() => setRemoving(false)}
        title="Quitar este punto"
        confirmLabel="Quitar punto"
        danger
        describeError={(error) => problemMessage(error, SWOT_PROBLEMS)}
        onConfirm={async () => {
          await api.delete(`${SWOT_PATH}/${item.id}`);
          await refresh();
        }}
      >
        <Text size="sm">«{item.text}» dejará de estar en el tablero. Si venía de una sugerencia, esta no se volverá a proponer.</Text>
      </ConfirmDialog>
    </List.Item>
  );
}

function SuggestionCard({ quadrant, suggestion, records }: { quadrant: SwotQuadrant; suggestion: Suggestion; records: boolean }) {
  const textId = useId();
  const accept = useMutation({
    mutationFn: () => api.post(SWOT_PATH, { quadrant, text: suggestion.text, evidence: suggestion.evidence, suggestionKey: suggestion.key }),
    onSettled: refresh,
  });
  return (
    <Card withBorder padding="xs" bg="var(--mantine-color-gray-0)">
      <Text size="sm" id={textId}>
        {suggestion.text}
      </Text>
      <Evidence evidence={suggestion.evidence} />
      {accept.isError && (
        <Text size="sm" c="var(--mantine-color-error)" role="alert">
          {problemMessage(accept.error, SWOT_PROBLEMS)}
        </Text>
      )}
      {records && (
        <Group justify="flex-end" mt={4}>
          <Button size="compact-sm" variant="light" aria-describedby={textId} loading={accept.isPending} onClick={() => accept.mutate()}>
            Aceptar
          </Button>
        </Group>
      )}
    </Card>
  );
}

/** A point staff write themselves, in the quadrant they choose. */
function AddItem() {
  const { form, submit, submitting, formError } = useSchemaForm(createSwotBody, { initialValues: { quadrant: 'strength' as SwotQuadrant, text: '' } });
  const onSubmit = submit(async (values) => {
    await api.post(SWOT_PATH, values);
    form.reset();
    await refresh();
  });
  return (
    <Card withBorder component="section" aria-labelledby="nuevo-punto">
      <Title order={2} size="h4" id="nuevo-punto" mb="xs">
        Anotar un punto
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <Group align="flex-start" grow>
            <NativeSelect
              label="Cuadrante"
              data={SWOT_QUADRANTS.map((quadrant) => ({ value: quadrant, label: QUADRANTS.find((entry) => entry.quadrant === quadrant)!.label }))}
              {...form.getInputProps('quadrant')}
            />
            <Textarea label="Texto" required autosize minRows={1} {...form.getInputProps('text')} />
          </Group>
          <Group justify="flex-end">
            <Button type="submit" loading={submitting}>
              Anotar
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
