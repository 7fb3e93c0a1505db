import { Alert, Anchor, Card, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useLocation, useParams } from 'react-router';
import type { Page } from '../../lib/api-types';
import { api } from '../app/api';
import { formatDate, formatNumber } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SectionTabs } from '../app/SectionTabs';
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
import { ComplianceBadge, LawNotes } from './Law';

const POLL_PROBLEMS = { not_found: 'Esta encuesta no existe.' };

/** One stored poll: its technical sheet with what the API found against Ley 2494 beside each field, and its results. */
export default function PollPage() {
  const { id } = useParams();
  const created = (useLocation().state as { created?: boolean } | null)?.created === true;
  const poll = useQuery({ queryKey: ['popularity', 'poll', id], queryFn: () => api.get<Poll>(`${POLLS_PATH}/${id}`) });
  const competitors = useQuery({ queryKey: ['popularity', 'competitors'], queryFn: () => api.get<Page<Competitor>>(COMPETITORS_PATH) });
  const nameOf = (competitorId: string) => competitors.data?.data.find((competitor) => competitor.id === competitorId)?.name ?? 'Candidato inactivo';
  if (poll.isPending) return <Loader size="sm" aria-label="Cargando" />;
  if (poll.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(poll.error, POLL_PROBLEMS)}
      </Alert>
    );
  const row = poll.data;
  const law = problemsByField(row.compliance);
  const line = (term: string, value: ReactNode, field?: SheetField) => (
    <Table.Tr key={term}>
      <Table.Th scope="row" w="30%">
        {term}
      </Table.Th>
      <Table.Td>
        {value}
        {field && <LawNotes messages={law[field]} />}
      </Table.Td>
    </Table.Tr>
  );
  return (
    <>
      <PageTitle>{`Encuesta de ${row.pollster}`}</PageTitle>
      <SectionTabs label="Secciones de popularidad" sections={SECTIONS} />
      {created && (
        <Alert color={row.compliance.compliant ? 'green' : 'orange'} role="status" mb="md" title="Encuesta registrada">
          {row.compliance.compliant
            ? 'Su ficha técnica cumple la Ley 2494 de 2025.'
            : 'Quedó marcada como no conforme con la Ley 2494 de 2025: cada problema está junto a su dato.'}
        </Alert>
      )}
      <Card withBorder mb="md">
        <Text fw={600} mb="xs">
          Ley 2494 de 2025: <ComplianceBadge poll={row} />
        </Text>
        {law.other.length > 0 && <LawNotes messages={law.other} />}
        <Table>
          <Table.Caption>Ficha técnica</Table.Caption>
          <Table.Tbody>
            {line('Encuestadora', row.pollster, 'pollster')}
            {line('Quién la pagó', row.sponsor ?? '—', 'sponsor')}
            {line('Registro en el CNE', row.registrationNumber ?? '—')}
            {line('Publicada el', formatDate(row.publishedAt), 'publishedAt')}
            {line('Trabajo de campo desde', formatDate(row.fieldworkStart), 'fieldworkStart')}
            {line('Trabajo de campo hasta', formatDate(row.fieldworkEnd), 'fieldworkEnd')}
            {line('Alcance', SCOPE_LABELS[row.scope])}
            {line('Método', METHOD_LABELS[row.method])}
            {line('Muestreo', row.probabilistic ? 'Probabilístico' : 'No probabilístico', 'probabilistic')}
            {line('Tamaño de la muestra', formatNumber(row.sampleSize), 'sampleSize')}
            {line('Margen de error', `±${formatPoints(row.marginOfError)} puntos`, 'marginOfError')}
            {line('Nivel de confianza', `${formatPoints(row.confidenceLevel)} %`, 'confidenceLevel')}
            {line('Universo', row.universe ?? '—', 'universe')}
            {line('Pregunta literal', row.question ?? '—', 'question')}
            {line(
              'Fuente',
              row.sourceUrl ? (
                <Anchor href={row.sourceUrl} target="_blank" rel="noreferrer">
                  {row.sourceUrl}
                </Anchor>
              ) : (
                '—'
              ),
            )}
            {row.notes && line('Notas', row.notes)}
          </Table.Tbody>
        </Table>
      </Card>
      <Card withBorder>
        <Table>
          <Table.Caption>Resultados</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Opción</Table.Th>
              <Table.Th ta="right">%</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {row.results.map((result) => (
              <Table.Tr key={result.competitorId ?? result.option}>
                <Table.Td>{result.competitorId ? nameOf(result.competitorId) : OPTION_LABELS[result.option!]}</Table.Td>
                <Table.Td ta="right">{formatPoints(result.percentage)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </>
  );
}
