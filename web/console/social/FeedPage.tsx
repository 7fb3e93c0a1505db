import { Anchor, Badge, Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDateTime, formatNumber } from '../app/format';
import { PageTitle } from '../app/pages';
import { SearchForm } from '../app/SearchForm';
import { ServerTable, type Column, type Sort } from '../app/ServerTable';
import { TONES } from '../app/tones';
import { PLATFORM_LABELS, PLATFORM_OPTIONS, POSTS, SENTIMENT_LABELS, useCompetitors, type Post } from './data';

/** The feed's filters as the address holds them (`/redes/publicaciones?q=reforma&red=x`). */
const PARAMS = ['q', 'competidor', 'red', 'desde', 'hasta', 'alerta', 'orden'] as const;

const ALERT_OPTIONS = [
  { value: 'true', label: 'Con alerta' },
  { value: 'false', label: 'Sin alerta' },
];

const percent = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 2 });

/** `/redes/publicaciones`: competitors' posts, newest or most engaging first, filtered and searched by the server. */
export default function FeedPage() {
  const filters = useUrlFilters(PARAMS);
  const { values } = filters;
  const competitors = useCompetitors();
  const competitorName = (id: string) => competitors.data?.find((competitor) => competitor.id === id)?.name ?? '…';
  const sort: Sort = { key: values.orden === 'engagement' ? 'engagement' : 'publishedAt', direction: 'desc' };

  const path = `${POSTS}${queryString({
    q: values.q,
    competitorId: values.competidor,
    platform: values.red,
    // Days as they are: the API reads them in the campaign's time zone, `to` including its whole day.
    from: values.desde,
    to: values.hasta,
    hasAlert: values.alerta,
    sort: values.orden === 'engagement' ? 'engagement' : undefined,
  })}`;

  const columns: Column<Post>[] = [
    {
      key: 'publishedAt',
      header: 'Publicada',
      sortKey: 'publishedAt',
      render: (post) => (
        <time dateTime={post.publishedAt} style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(post.publishedAt)}
        </time>
      ),
    },
    { key: 'competitor', header: 'Competidor', render: (post) => competitorName(post.competitorId) },
    { key: 'platform', header: 'Red', render: (post) => PLATFORM_LABELS[post.platform] },
    {
      key: 'text',
      header: 'Texto',
      render: (post) => (
        <Stack gap={2} maw={520}>
          <Text size="sm" lineClamp={3}>
            {post.text || '(sin texto)'}
          </Text>
          {post.url && (
            <Anchor href={post.url} target="_blank" rel="noopener noreferrer" size="xs">
              Abrir en {PLATFORM_LABELS[post.platform]}
            </Anchor>
          )}
        </Stack>
      ),
    },
    { key: 'engagement', header: 'Interacción', sortKey: 'engagement', numeric: true, render: (post) => formatNumber(post.engagement) },
    { key: 'rate', header: 'Tasa', numeric: true, render: (post) => (post.engagementRate === null ? '—' : `${percent.format(post.engagementRate)} %`) },
    {
      key: 'sentiment',
      header: 'Sentimiento',
      render: (post) => {
        const { label, tone } = SENTIMENT_LABELS[post.sentiment.label];
        return (
          <Badge variant="light" color={TONES[tone].color} tt="none" styles={{ label: { color: TONES[tone].text } }}>
            {label}
          </Badge>
        );
      },
    },
  ];

  return (
    <>
      <PageTitle>Redes sociales: publicaciones</PageTitle>
      <Stack gap="md">
        <SearchForm
          name="Buscar publicaciones"
          description="Palabras del texto, con o sin tildes: «reformas» también encuentra «reforma»"
          placeholder="Ej.: corrupción Medellín"
          value={values.q ?? ''}
          onSearch={(value) => filters.set({ q: value || null })}
        />
        <SimpleGrid cols={{ base: 1, sm: 2, md: 5 }} spacing="sm">
          <Select
            label="Competidor"
            placeholder={competitors.isPending ? 'Cargando…' : 'Todos'}
            clearable
            searchable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de competidor' }}
            data={(competitors.data ?? []).map((competitor) => ({ value: competitor.id, label: competitor.name }))}
            value={values.competidor ?? null}
            onChange={(value) => filters.set({ competidor: value })}
          />
          <Select
            label="Red"
            placeholder="Todas"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de red' }}
            data={PLATFORM_OPTIONS}
            value={values.red ?? null}
            onChange={(value) => filters.set({ red: value })}
          />
          <TextInput
            label="Publicadas desde"
            type="date"
            value={values.desde ?? ''}
            max={values.hasta || undefined}
            onChange={(event) => filters.set({ desde: event.currentTarget.value || null })}
          />
          <TextInput
            label="Publicadas hasta"
            type="date"
            value={values.hasta ?? ''}
            min={values.desde || undefined}
            onChange={(event) => filters.set({ hasta: event.currentTarget.value || null })}
          />
          <Select
            label="Alertas"
            placeholder="Todas las publicaciones"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de alertas' }}
            data={ALERT_OPTIONS}
            value={values.alerta ?? null}
            onChange={(value) => filters.set({ alerta: value })}
          />
        </SimpleGrid>
        {filters.active.some((name) => name !== 'orden') && (
          <Group>
            <Button variant="subtle" size="xs" onClick={() => filters.set({ q: null, competidor: null, red: null, desde: null, hasta: null, alerta: null })}>
              Quitar la búsqueda y los filtros
            </Button>
          </Group>
        )}
        <ServerTable
          caption="Publicaciones de los competidores"
          path={path}
          columns={columns}
          rowKey={(post) => post.id}
          sort={sort}
          onSortChange={(next) => filters.set({ orden: next.key === 'engagement' ? 'engagement' : null })}
          empty={
            filters.active.length
              ? 'Ninguna publicación coincide con esta búsqueda y estos filtros.'
              : 'Aún no hay publicaciones. Llegan de las redes con conector o de las importaciones.'
          }
        />
      </Stack>
    </>
  );
}
