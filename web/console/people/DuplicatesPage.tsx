import { Alert, Anchor, Badge, Button, Card, Group, List, Radio, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { Page, Territory } from '../../lib/api-types';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDate, formatDateTime, formatPercent, formatPhone } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { ServerTable, type Column } from '../app/ServerTable';
import { CHANNEL_LABELS, CONSENT_STATE_LABELS, DUPLICATE_REASON_LABELS, label, MERGE_STATUS_LABELS } from './labels';
import { peopleProblem } from './problems';
import { PEOPLE, personPath, type ContactMerge, type DuplicatePair, type PersonDetail } from './types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNDO_HOURS = 24;

/** One side of a pair as the dialogs need it. */
interface Side {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
}

/**
 * What the merge does to each channel when the two were reached at different addresses: an
 * authorisation holds for the number or address it was given for, and the survivor keeps its own.
 */
function addressWarnings(into: Side, from: Side): string[] {
  const warnings: string[] = [];
  if (into.phone && from.phone && into.phone !== from.phone) {
    warnings.push(
      `WhatsApp: queda el teléfono de ${into.name} (${formatPhone(into.phone)}). Lo que ${from.name} autorizó o retiró para el ${formatPhone(from.phone)} se guarda como prueba, pero no abre ni cierra WhatsApp en el ${formatPhone(into.phone)}.`,
    );
  }
  if (into.email && from.email && into.email.toLowerCase() !== from.email.toLowerCase()) {
    warnings.push(`Correo: queda ${into.email}. Lo que ${from.name} autorizó o retiró para ${from.email} se guarda como prueba, pero no vale para ${into.email}.`);
  }
  return warnings;
}

function TerritoryName({ id }: { id: string | null }) {
  const territory = useQuery({ queryKey: ['territories', 'one', id], queryFn: () => api.get<Territory>(`/api/territories/${id}`), enabled: Boolean(id), staleTime: 300_000 });
  if (!id) return <>—</>;
  return <>{territory.data?.name ?? '…'}</>;
}

/** Everything that changes when the two become one, said before it happens. */
function MergeDialog({ sides, opened, onClose, onMerged }: { sides: [Side, Side]; opened: boolean; onClose: () => void; onMerged?: (merge: ContactMerge) => void }) {
  const [survivorId, setSurvivorId] = useState(sides[0].id);
  const into = sides.find((side) => side.id === survivorId) ?? sides[0];
  const from = sides.find((side) => side.id !== into.id) ?? sides[1];
  // Mounted when opened (keyed by it): "until" counts from the moment the dialog is read.
  const [until] = useState(() => new Date(Date.now() + UNDO_HOURS * 3_600_000).toISOString());
  const confirm = async () => {
    const merge = await api.post<ContactMerge>(`/api/audience/contacts/${into.id}/merge`, { from: from.id });
    notifications.show({
      color: 'green',
      title: 'Personas fusionadas',
      message: `${from.name} ahora es parte de ${into.name}. Puede deshacerlo hasta el ${formatDateTime(merge.undoUntil)}.`,
    });
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ['duplicates'] }),
      queryClient.invalidateQueries({ queryKey: ['list'] }),
      queryClient.invalidateQueries({ queryKey: ['person'] }),
    ]);
    onMerged?.(merge);
  };
  return (
    <ConfirmDialog opened={opened} onClose={onClose} title="Fusionar dos registros de la misma persona" confirmLabel="Fusionar" onConfirm={confirm} describeError={peopleProblem}>
      <Radio.Group label="¿Qué registro queda?" description="El que queda conserva sus datos; el otro se une a él." value={survivorId} onChange={setSurvivorId}>
        <Stack gap={6} mt={6}>
          {sides.map((side) => (
            <Radio key={side.id} value={side.id} label={side.name} />
          ))}
        </Stack>
      </Radio.Group>
      <div>
        <Text size="sm" fw={600}>
          Pasa de {from.name} a {into.name}
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>Sus autorizaciones y retiros, sin cambios, con su texto y su prueba; cada una vale para el teléfono o el correo en que se dio.</List.Item>
          <List.Item>De dónde llegó, sus formularios de afiches, su conversación de WhatsApp, sus PQRS, correos, avisos, eventos y turnos.</List.Item>
          <List.Item>Los datos que a {into.name} le faltan (teléfono, correo, cédula, territorio, barrio); los intereses y las etiquetas se juntan.</List.Item>
        </List>
      </div>
      {addressWarnings(into, from).length > 0 && (
        <Alert color="yellow" title="Autorizaciones en otra dirección">
          <List size="sm" spacing={2}>
            {addressWarnings(into, from).map((warning) => (
              <List.Item key={warning}>{warning}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      <Text size="sm">
        El registro de {from.name} queda vacío y deja de aparecer. Si las dos son votantes confirmados o voluntarias, el módulo correspondiente no permite la fusión y lo dirá.
      </Text>
      <Alert color="blue">
        Se puede deshacer durante {UNDO_HOURS} horas, hasta el {formatDateTime(until)}, desde «Fusiones recientes» en esta página.
      </Alert>
    </ConfirmDialog>
  );
}

function DismissDialog({ sides, opened, onClose }: { sides: [Side, Side]; opened: boolean; onClose: () => void }) {
  const confirm = async () => {
    await api.post('/api/audience/duplicates/dismissals', { contactIds: [sides[0].id, sides[1].id] });
    notifications.show({ color: 'green', message: 'Marcadas como personas distintas: la pareja ya no aparecerá.' });
    await queryClient.invalidateQueries({ queryKey: ['duplicates'] });
  };
  return (
    <ConfirmDialog opened={opened} onClose={onClose} title="No son la misma persona" confirmLabel="Son personas distintas" onConfirm={confirm} describeError={peopleProblem}>
      <Text size="sm">
        {sides[0].name} y {sides[1].name} quedan marcadas como personas distintas, y esta pareja deja de aparecer entre los posibles duplicados. Ninguno de sus datos cambia.
      </Text>
    </ConfirmDialog>
  );
}

/** The two actions on a pair, each behind its dialog. */
function PairActions({ sides, onMerged }: { sides: [Side, Side]; onMerged?: (merge: ContactMerge) => void }) {
  const [dialog, setDialog] = useState<'merge' | 'dismiss' | null>(null);
  return (
    <Group gap="xs">
      <Button size="xs" onClick={() => setDialog('merge')}>
        Fusionar
      </Button>
      <Button size="xs" variant="default" onClick={() => setDialog('dismiss')}>
        No son la misma persona
      </Button>
      <MergeDialog key={dialog === 'merge' ? 'open' : 'closed'} sides={sides} opened={dialog === 'merge'} onClose={() => setDialog(null)} onMerged={onMerged} />
      <DismissDialog sides={sides} opened={dialog === 'dismiss'} onClose={() => setDialog(null)} />
    </Group>
  );
}

function SideCard({ side, children }: { side: Side; children: ReactNode }) {
  return (
    <Card withBorder padding="sm" component="article" aria-label={side.name}>
      <Anchor component={Link} to={personPath(side.id)} fw={600}>
        {side.name}
      </Anchor>
      <Stack gap={2} mt={4}>
        {children}
      </Stack>
    </Card>
  );
}

const Line = ({ term, children }: { term: string; children: ReactNode }) => (
  <Text size="sm">
    <Text span c="dimmed" size="sm">
      {term}:{' '}
    </Text>
    {children}
  </Text>
);

function PairCard({ pair }: { pair: DuplicatePair }) {
  const sides: [Side, Side] = [pair.contacts[0], pair.contacts[1]];
  return (
    <Card withBorder component="li">
      <Group justify="space-between" mb="xs" gap="xs">
        <Group gap={4}>
          {pair.reasons.map((reason) => (
            <Badge key={reason} variant="outline" tt="none">
              {label(DUPLICATE_REASON_LABELS, reason)}
            </Badge>
          ))}
        </Group>
        <Text size="sm" fw={600}>
          Coincidencia: {formatPercent(pair.score * 100)}
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mb="sm">
        {pair.contacts.map((contact) => (
          <SideCard key={contact.id} side={contact}>
            <Line term="Teléfono">{contact.phone ?? '—'}</Line>
            <Line term="Correo">{contact.email ?? '—'}</Line>
            <Line term="Territorio">
              <TerritoryName id={contact.territoryId} />
            </Line>
            <Line term="En la base desde">{formatDate(contact.createdAt)}</Line>
          </SideCard>
        ))}
      </SimpleGrid>
      <PairActions sides={sides} />
    </Card>
  );
}

/** Two records named in the address (from a correction that found the phone taken): compared in full, merged or told apart. */
function ChosenPair({ ids, onDone }: { ids: [string, string]; onDone: () => void }) {
  const people = useQuery({
    queryKey: ['person', 'pair', ...ids],
    queryFn: () => Promise.all(ids.map((id) => api.get<PersonDetail>(`/api/audience/contacts/${id}`))),
  });
  const [merged, setMerged] = useState<ContactMerge | null>(null);
  if (merged) {
    return (
      <Alert color="green" role="status" title="Fusionadas">
        <Text size="sm">
          {merged.fromName ?? 'El otro registro'} ahora es parte de{' '}
          <Anchor component={Link} to={personPath(merged.intoContactId)} inherit>
            {merged.intoName}
          </Anchor>
          . Puede deshacerlo hasta el {formatDateTime(merged.undoUntil)} en «Fusiones recientes».
        </Text>
        <Button size="xs" variant="default" mt="xs" onClick={onDone}>
          Ver los demás posibles duplicados
        </Button>
      </Alert>
    );
  }
  if (people.isPending) return <Text c="dimmed">Cargando las dos personas…</Text>;
  if (people.isError) {
    return (
      <Alert color="red" role="alert">
        {peopleProblem(people.error)}{' '}
        <Anchor component="button" type="button" onClick={onDone} inherit>
          Ver los posibles duplicados
        </Anchor>
      </Alert>
    );
  }
  const [a, b] = people.data;
  return (
    <Card withBorder component="section" aria-labelledby="comparar">
      <Title order={2} size="h4" id="comparar" mb="sm">
        Comparar y fusionar
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" mb="sm">
        {[a!, b!].map((person) => (
          <SideCard key={person.id} side={person}>
            <Line term="Teléfono">{person.phone ? formatPhone(person.phone) : '—'}</Line>
            <Line term="Correo">{person.email ?? '—'}</Line>
            <Line term="Cédula">{person.documentId ?? '—'}</Line>
            <Line term="Territorio">{person.territory?.name ?? '—'}</Line>
            <Line term="En la base desde">{formatDate(person.createdAt)}</Line>
            <Line term="Autorizaciones">
              {(['whatsapp', 'email'] as const).map((channel) => `${CHANNEL_LABELS[channel]}: ${CONSENT_STATE_LABELS[person.consent[channel]].toLowerCase()}`).join(' · ')}
            </Line>
            <Line term="Historia">
              {person.timeline.nextCursor ? 'más de ' : ''}
              {person.timeline.data.length} {person.timeline.data.length === 1 ? 'hecho' : 'hechos'}
            </Line>
          </SideCard>
        ))}
      </SimpleGrid>
      <PairActions sides={[a!, b!]} onMerged={setMerged} />
    </Card>
  );
}

function Candidates() {
  const pairs = useInfiniteQuery({
    queryKey: ['duplicates', 'all'],
    queryFn: ({ pageParam }) => api.get<Page<DuplicatePair>>(`/api/audience/duplicates?limit=20${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const list = pairs.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section aria-labelledby="posibles">
      <Title order={2} size="h4" id="posibles" mb="xs">
        Posibles duplicados
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Parejas con la misma cédula, el mismo correo, el mismo teléfono escrito de otra forma, o el mismo nombre en el mismo territorio; las más probables primero. Teléfonos y
        correos se muestran en parte: abra a cada persona para verla completa.
      </Text>
      {pairs.isError && (
        <Alert color="red" role="alert">
          {problemMessage(pairs.error)}
        </Alert>
      )}
      {pairs.isPending && <Text c="dimmed">Buscando parejas…</Text>}
      {pairs.isSuccess && list.length === 0 && <Text>No hay posibles duplicados.</Text>}
      <Stack component="ul" gap="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {list.map((pair) => (
          <PairCard key={`${pair.contacts[0].id}:${pair.contacts[1].id}`} pair={pair} />
        ))}
      </Stack>
      {pairs.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => void pairs.fetchNextPage()} loading={pairs.isFetchingNextPage}>
          Ver más parejas
        </Button>
      )}
    </section>
  );
}

function UndoButton({ merge }: { merge: ContactMerge }) {
  const [open, setOpen] = useState(false);
  const confirm = async () => {
    await api.post<ContactMerge>(`/api/audience/merges/${merge.id}/undo`);
    notifications.show({ color: 'green', title: 'Fusión deshecha', message: `${merge.fromName ?? 'El registro fusionado'} vuelve a ser una persona aparte, con lo suyo.` });
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ['list'] }),
      queryClient.invalidateQueries({ queryKey: ['duplicates'] }),
      queryClient.invalidateQueries({ queryKey: ['person'] }),
    ]);
  };
  return (
    <>
      <Button size="compact-sm" variant="default" onClick={() => setOpen(true)} aria-label={`Deshacer la fusión de ${merge.fromName ?? 'un registro'} en ${merge.intoName}`}>
        Deshacer
      </Button>
      <ConfirmDialog opened={open} onClose={() => setOpen(false)} title="Deshacer la fusión" confirmLabel="Deshacer la fusión" onConfirm={confirm} describeError={peopleProblem}>
        <Text size="sm">
          {merge.fromName ?? 'El registro fusionado'} vuelve a ser una persona aparte de {merge.intoName}: sus autorizaciones, sus mensajes, sus formularios y lo demás que se movió
          regresan a ella, y {merge.intoName} recupera sus propios datos donde nadie los cambió desde la fusión.
        </Text>
      </ConfirmDialog>
    </>
  );
}

const MERGE_COLUMNS: Column<ContactMerge>[] = [
  {
    key: 'into',
    header: 'Quedó',
    render: (merge) =>
      merge.status === 'erased' ? (
        merge.intoName
      ) : (
        <Anchor component={Link} to={personPath(merge.intoContactId)}>
          {merge.intoName}
        </Anchor>
      ),
  },
  { key: 'from', header: 'Se unió a ella', render: (merge) => merge.fromName ?? 'Registro fusionado' },
  {
    key: 'at',
    header: 'Cuándo',
    render: (merge) => (
      <time dateTime={merge.mergedAt} style={{ whiteSpace: 'nowrap' }}>
        {formatDateTime(merge.mergedAt)}
      </time>
    ),
  },
  {
    key: 'status',
    header: 'Estado',
    render: (merge) =>
      merge.status === 'undoable' ? `${label(MERGE_STATUS_LABELS, merge.status)} hasta el ${formatDateTime(merge.undoUntil)}` : label(MERGE_STATUS_LABELS, merge.status),
  },
  { key: 'undo', header: 'Acción', render: (merge) => (merge.status === 'undoable' ? <UndoButton merge={merge} /> : '—') },
];

/** `/personas/duplicados`: pairs that may be one person, side by side, merged (undoable for 24 h) or told apart; and the recent merges. */
export default function DuplicatesPage() {
  const [params, setParams] = useSearchParams();
  const a = params.get('a');
  const b = params.get('b');
  const chosen: [string, string] | null = a && b && UUID.test(a) && UUID.test(b) && a !== b ? [a, b] : null;
  return (
    <>
      <PageTitle
        actions={
          <Button component={Link} to={PEOPLE} variant="default">
            Volver a Personas
          </Button>
        }
      >
        Duplicados y fusiones
      </PageTitle>
      <Stack gap="lg">
        {chosen && <ChosenPair key={chosen.join()} ids={chosen} onDone={() => setParams(new URLSearchParams())} />}
        <Candidates />
        <section aria-labelledby="fusiones">
          <Title order={2} size="h4" id="fusiones" mb="xs">
            Fusiones recientes
          </Title>
          <ServerTable
            caption="Fusiones recientes"
            path="/api/audience/merges"
            columns={MERGE_COLUMNS}
            rowKey={(merge) => merge.id}
            empty="Aún no hay fusiones."
            pageSizes={[10, 25, 50]}
            describeError={peopleProblem}
          />
        </section>
      </Stack>
    </>
  );
}
