import { Alert, Anchor, Badge, Button, Card, Grid, Group, List, Skeleton, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import type { Page } from '../../lib/api-types';
import { api, ApiError, queryClient } from '../app/api';
import { formatDate, formatDateTime, formatNumber, formatPhone } from '../app/format';
import { PageTitle } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import { ConsentPanel } from './ConsentPanel';
import { DUPLICATE_REASON_LABELS, label, MENTION_PLACES, MODULE_LABELS, ORIGIN_LABELS, PERSON_GONE, RETAINED_LABELS } from './labels';
import { peopleProblem } from './problems';
import { NotesCard } from './NotesCard';
import { PersonTimeline } from './PersonTimeline';
import { mergePath, PEOPLE, personPath, type DuplicatePair, type Erasure, type PersonDetail } from './types';

// The correction and tag forms validate a phone as the server does (libphonenumber): their own chunk, loaded as the page shows.
const PersonEditing = lazy(() => import('./CorrectionForm'));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed" fw={600}>
        {term}
      </Text>
      <Text component="dd" size="sm" m={0}>
        {children}
      </Text>
    </div>
  );
}

/** "Afiche QR: Bosa centro", "PQRS PQRS-2026-000001" (a name that already says its kind is not told it twice). */
function originName(origin: PersonDetail['origins'][number]): string {
  const kind = label(ORIGIN_LABELS, origin.kind);
  if (!origin.name) return kind;
  return origin.name.toLowerCase().startsWith(kind.toLowerCase()) ? origin.name : `${kind}: ${origin.name}`;
}

function Header({ person }: { person: PersonDetail }) {
  return (
    <Card withBorder component="section" aria-label="Datos de la persona">
      <dl style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(190px, 1fr))', gap: 'var(--mantine-spacing-sm)', margin: 0 }}>
        <Fact term="Teléfono">{person.phone ? formatPhone(person.phone) : '—'}</Fact>
        <Fact term="Correo">{person.email ?? '—'}</Fact>
        <Fact term="Cédula">{person.documentId ?? '—'}</Fact>
        <Fact term="Territorio">{person.territory?.name ?? '—'}</Fact>
        <Fact term="Barrio">{person.neighbourhood ?? '—'}</Fact>
        <Fact term="Etiquetas">
          {person.tags.length ? (
            <Group gap={4} component="span">
              {person.tags.map((tag) => (
                <Badge key={tag} size="sm" variant="outline" tt="none" component="span">
                  {tag}
                </Badge>
              ))}
            </Group>
          ) : (
            '—'
          )}
        </Fact>
        <Fact term="Intereses">{person.interests.length ? person.interests.join(', ') : '—'}</Fact>
        <Fact term="En la base desde">
          <time dateTime={person.createdAt} title={formatDateTime(person.createdAt)}>
            {formatDate(person.createdAt)}
          </time>
        </Fact>
        <Fact term="Llegó por">{person.origins.length ? person.origins.map(originName).join(' · ') : 'Registro directo'}</Fact>
      </dl>
    </Card>
  );
}

/** Other records that may be the same person, with the way to compare and merge them. */
function PossibleDuplicates({ personId }: { personId: string }) {
  const pairs = useQuery({
    queryKey: ['duplicates', 'of', personId],
    queryFn: () => api.get<Page<DuplicatePair>>(`/api/audience/duplicates?contactId=${personId}&limit=5`),
  });
  const list = pairs.data?.data ?? [];
  if (!list.length) return null;
  return (
    <Alert color="yellow" title="Puede estar registrada más de una vez">
      <List size="sm" spacing={4}>
        {list.map((pair) => {
          const other = pair.contacts[0].id === personId ? pair.contacts[1] : pair.contacts[0];
          return (
            <List.Item key={other.id}>
              {other.name} ({pair.reasons.map((reason) => label(DUPLICATE_REASON_LABELS, reason).toLowerCase()).join(', ')}) ·{' '}
              <Anchor component={Link} to={mergePath(personId, other.id)} inherit>
                Comparar y fusionar
              </Anchor>
            </List.Item>
          );
        })}
      </List>
    </Alert>
  );
}

function ErasedNotice({ name, erasure }: { name: string; erasure: Erasure }) {
  const rows = Object.values(erasure.counts).reduce((sum, kinds) => sum + Object.values(kinds).reduce((a, b) => a + b, 0), 0);
  return (
    <>
      <PageTitle>Datos suprimidos</PageTitle>
      <Alert color="green" role="status" title="Los datos de esta persona fueron suprimidos">
        <Stack gap="xs">
          <Text size="sm">
            Los datos de {name} se suprimieron en todos los módulos el {formatDateTime(erasure.erasedAt)} ({formatNumber(rows)} registros cambiados). Las cifras de la campaña se
            conservan sin nada que la identifique, y la supresión quedó en la auditoría.
          </Text>
          {erasure.retained.length > 0 && (
            <div>
              <Text size="sm" fw={600}>
                Se conservan por obligación legal (dígaselo a la persona si pregunta)
              </Text>
              <List size="sm">
                {erasure.retained.map((item) => (
                  <List.Item key={`${item.module}:${item.kind}`}>
                    {formatNumber(item.count)} · {RETAINED_LABELS[`${item.module}:${item.kind}`] ?? item.basis}
                  </List.Item>
                ))}
              </List>
            </div>
          )}
          {erasure.mentions.length > 0 && (
            <div>
              <Text size="sm" fw={600}>
                Textos de otras personas que todavía escriben su nombre completo
              </Text>
              <Text size="sm">
                Sus teléfonos, correos y cédulas ya se quitaron de ellos. El nombre no, porque puede ser el de otra persona: revise cada uno y corríjalo donde hable de {name}.
              </Text>
              <List size="sm">
                {erasure.mentions.map((mention) => {
                  const place = MENTION_PLACES[mention.kind];
                  const words = `${place?.label ?? label({}, mention.kind)} (${label(MODULE_LABELS, mention.module)})`;
                  return (
                    <List.Item key={`${mention.module}:${mention.id}`}>
                      {place?.path && mention.recordId ? (
                        <Anchor component={Link} to={place.path(mention.recordId)} inherit c="inherit" underline="always">
                          {words}
                        </Anchor>
                      ) : (
                        words
                      )}
                    </List.Item>
                  );
                })}
              </List>
            </div>
          )}
          <Button component={Link} to={PEOPLE} w="fit-content">
            Volver a Personas
          </Button>
        </Stack>
      </Alert>
    </>
  );
}

/** `/personas/:id`: who the person is, everything that happened with them across modules, their consent and rights, notes, corrections and tags. */
export default function PersonPage() {
  const { id = '' } = useParams();
  const valid = UUID.test(id);
  const [erased, setErased] = useState<{ name: string; erasure: Erasure } | null>(null);
  const person = useQuery({
    queryKey: ['person', id],
    queryFn: () => api.get<PersonDetail>(`/api/audience/contacts/${id}`),
    enabled: valid && !erased,
  });

  if (erased) return <ErasedNotice {...erased} />;
  const mergedIntoId = person.error instanceof ApiError && person.error.problem?.code === 'contact_merged' ? person.error.problem.mergedIntoId : undefined;
  if (typeof mergedIntoId === 'string') {
    return (
      <>
        <PageTitle>Registro fusionado</PageTitle>
        <Alert color="blue" role="status" mb="md">
          Este registro se unió a otro de la misma persona: sus datos, su historia y sus autorizaciones están ahora allí.
        </Alert>
        <Button component={Link} to={personPath(mergedIntoId)}>
          Ver a la persona
        </Button>
      </>
    );
  }
  if (!valid || person.isError) {
    const gone = !valid || (person.error instanceof ApiError && person.error.status === 404);
    return (
      <>
        <PageTitle>{gone ? 'Persona no encontrada' : 'Persona'}</PageTitle>
        <Alert color={gone ? 'yellow' : 'red'} role="alert" mb="md">
          {gone ? PERSON_GONE : peopleProblem(person.error)}
        </Alert>
        <Button component={Link} to={PEOPLE}>
          Volver a Personas
        </Button>
      </>
    );
  }
  if (person.isPending) return <PageLoader />;
  const data = person.data;

  const onErased = (erasure: Erasure) => {
    setErased({ name: data.name, erasure });
    queryClient.removeQueries({ queryKey: ['person', id] });
    void queryClient.invalidateQueries({ queryKey: ['list'] });
    void queryClient.invalidateQueries({ queryKey: ['duplicates'] });
  };

  return (
    <>
      <PageTitle
        actions={
          <Button component={Link} to={PEOPLE} variant="default">
            Volver a Personas
          </Button>
        }
      >
        {data.name}
      </PageTitle>
      <Stack gap="md">
        <Header person={data} />
        <PossibleDuplicates personId={data.id} />
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <PersonTimeline key={data.timeline.nextCursor ?? 'todo'} personId={data.id} first={data.timeline} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack gap="md">
              <ConsentPanel person={data} onErased={onErased} />
              <NotesCard personId={data.id} notes={data.notes} />
              <Suspense fallback={<Skeleton height={220} radius="md" aria-label="Cargando los formularios" />}>
                <PersonEditing person={data} />
              </Suspense>
            </Stack>
          </Grid.Col>
        </Grid>
      </Stack>
    </>
  );
}
