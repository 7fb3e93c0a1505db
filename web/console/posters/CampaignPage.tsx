import { Alert, Anchor, Badge, Button, Card, Group, Loader, NumberInput, SimpleGrid, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import type { CampaignStatus } from '../../../src/modules/qr/qr.constants';
import { canMoveTo, qrPolicy } from '../../../src/modules/qr/qr.policy';
import { generateCodesBody } from '../../../src/modules/qr/qr.schemas';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { Figure } from '../app/Figure';
import { formatDate, formatNumber, formatPercent } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists, ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { CAMPAIGNS_PATH, isOverdue, STATUS_TONES, STATUS_LABELS, type Analysis, type Campaign, type PosterCode, type SheetLink } from './data';

/** Mints codes; the printable sheet opens in a new tab through a short-lived link (a tab cannot send the session's token). */
function CodesSection({ campaign }: { campaign: Campaign }) {
  const codesPath = `${CAMPAIGNS_PATH}/${campaign.id}/codes`;
  const { form, submit, submitting, formError } = useSchemaForm(generateCodesBody, { initialValues: { count: 10, labelPrefix: 'Afiche' } });
  const [opening, setOpening] = useState(false);
  const onSubmit = submit(async (values) => {
    const answer = await api.post<{ codes: unknown[] }>(`${CAMPAIGNS_PATH}/${campaign.id}/generate-codes`, values);
    notifications.show({ color: 'green', message: `${formatNumber(answer.codes.length)} códigos nuevos.` });
    await invalidateServerLists(codesPath);
  });
  const openSheet = async () => {
    setOpening(true);
    try {
      const link = await api.post<SheetLink>(`${CAMPAIGNS_PATH}/${campaign.id}/sheet-link`);
      // The link is for this server: opened here whatever address PUBLIC_BASE_URL gives.
      const url = new URL(link.url);
      window.open(`${url.pathname}${url.search}`, '_blank');
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error) });
    } finally {
      setOpening(false);
    }
  };
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Códigos e impresión
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Group align="flex-end" wrap="wrap">
          <NumberInput label="Cuántos códigos" min={1} max={500} w={160} {...form.getInputProps('count')} />
          <TextInput label="Nombre de cada afiche" description="Se numera: Afiche 1, Afiche 2…" w={260} {...form.getInputProps('labelPrefix')} />
          <Button type="submit" loading={submitting} disabled={campaign.status === 'ended'}>
            Generar códigos
          </Button>
          <Button variant="default" onClick={() => void openSheet()} loading={opening}>
            Abrir hoja para imprimir
          </Button>
        </Group>
        {formError && (
          <Alert color="red" role="alert" mt="sm">
            {formError}
          </Alert>
        )}
      </form>
      <Text size="sm" c="dimmed" mt="xs">
        La hoja abre en otra pestaña: 24 códigos por hoja A4, con el nombre y la dirección bajo cada uno. El enlace vale cinco minutos.
      </Text>
    </Card>
  );
}

/** Where each poster is, whether the site was authorised, and the day the law gives to take it down. */
function RegistrySection({ campaign, manages }: { campaign: Campaign; manages: boolean }) {
  const [overdueOnly, setOverdueOnly] = useState(false);
  const codesPath = `${CAMPAIGNS_PATH}/${campaign.id}/codes`;
  const markRemoved = async (code: PosterCode) => {
    try {
      await api.patch(`/api/poster-qr/codes/${code.id}`, { removedAt: new Date().toISOString() });
      notifications.show({ color: 'green', message: `${code.label}: marcado como retirado.` });
      await invalidateServerLists(codesPath);
    } catch (error) {
      notifications.show({ color: 'red', message: problemMessage(error) });
    }
  };
  const columns: Column<PosterCode>[] = [
    {
      key: 'label',
      header: 'Afiche',
      render: (row) => (
        <Text size="sm" fw={600}>
          {row.label}
        </Text>
      ),
    },
    {
      key: 'code',
      header: 'Código',
      render: (row) => (
        <Text size="sm" ff="monospace">
          {row.code}
        </Text>
      ),
    },
    { key: 'address', header: 'Lugar', render: (row) => row.address ?? '—' },
    { key: 'authorised', header: 'Sitio autorizado', render: (row) => (row.authorisedSite ? 'Sí' : 'No') },
    {
      key: 'deadline',
      header: 'Retirar a más tardar',
      render: (row) =>
        row.removalDeadline ? (
          <Group gap={6}>
            {formatDate(row.removalDeadline)}
            {isOverdue(row) && (
              <Badge color={TONES.red.color} c={TONES.red.text} variant="light">
                Vencido
              </Badge>
            )}
          </Group>
        ) : (
          '—'
        ),
    },
    {
      key: 'removed',
      header: 'Retirado',
      render: (row) =>
        row.removedAt ? (
          formatDate(row.removedAt)
        ) : manages ? (
          <Button size="compact-xs" variant="default" aria-label={`Marcar retirado: ${row.label}`} onClick={() => void markRemoved(row)}>
            Marcar retirado
          </Button>
        ) : (
          'No'
        ),
    },
  ];
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Registro de afiches
        </Title>
        <Switch label="Solo los vencidos (sin retirar pasada la fecha límite)" checked={overdueOnly} onChange={(event) => setOverdueOnly(event.currentTarget.checked)} />
      </Group>
      <ServerTable
        caption="Afiches de la campaña, con su lugar y su fecha límite de retiro"
        path={overdueOnly ? `${codesPath}?overdue=true` : codesPath}
        columns={columns}
        rowKey={(row) => row.id}
        empty={overdueOnly ? 'Ningún afiche sigue puesto después de su fecha límite.' : 'Esta campaña aún no tiene códigos.'}
      />
    </Card>
  );
}

/** Scans (people, with bots apart), leads and conversion, for the campaign and per poster. */

/** A conversion as a share of people's scans; a dash without any scan to divide by (leads typed in, or a code never scanned). */
const conversionWords = (figures: { uniqueScans: number; conversionRate: number }) => (figures.uniqueScans > 0 ? formatPercent(figures.conversionRate * 100) : '—');

function AnalysisSection({ campaign }: { campaign: Campaign }) {
  const analysis = useQuery({ queryKey: ['poster-analysis', campaign.id], queryFn: () => api.get<Analysis>(`/api/qr-leads/campaign/${campaign.id}/analysis`) });
  if (analysis.isPending) return <Loader size="sm" aria-label="Cargando análisis" />;
  if (analysis.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(analysis.error)}
      </Alert>
    );
  const { totals, byCode } = analysis.data;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Análisis
      </Title>
      <SimpleGrid cols={{ base: 2, md: 4 }} mb="md">
        <Figure label="Escaneos de personas" value={formatNumber(totals.uniqueScans)} hint={`${formatNumber(totals.scans)} en total`} />
        <Figure label="Escaneos de bots" value={formatNumber(totals.botScans)} hint="Vistas previas y rastreadores, aparte" />
        <Figure label="Contactos" value={formatNumber(totals.leads)} />
        <Figure label="Conversión" value={conversionWords(totals)} hint="Contactos ÷ escaneos de personas" />
      </SimpleGrid>
      <Table.ScrollContainer minWidth={500}>
        <Table striped>
          <Table.Caption>Por afiche</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Afiche</Table.Th>
              <Table.Th ta="right">Escaneos de personas</Table.Th>
              <Table.Th ta="right">Contactos</Table.Th>
              <Table.Th ta="right">Conversión</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {byCode.map((row) => (
              <Table.Tr key={row.codeId}>
                <Table.Td>{row.label}</Table.Td>
                <Table.Td ta="right">{formatNumber(row.uniqueScans)}</Table.Td>
                <Table.Td ta="right">{formatNumber(row.leads)}</Table.Td>
                <Table.Td ta="right">{conversionWords(row)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

const MOVES: { to: CampaignStatus; label: string }[] = [
  { to: 'active', label: 'Activar' },
  { to: 'paused', label: 'Pausar' },
  { to: 'ended', label: 'Terminar' },
];

/** The status changes the policy allows from here; ending is final, so it asks first. */
function StatusActions({ campaign }: { campaign: Campaign }) {
  const queryClient = useQueryClient();
  const [ending, setEnding] = useState(false);
  const move = async (to: CampaignStatus) => {
    await api.patch(`${CAMPAIGNS_PATH}/${campaign.id}`, { status: to });
    await queryClient.invalidateQueries({ queryKey: ['poster-campaign', campaign.id] });
    await invalidateServerLists(CAMPAIGNS_PATH);
    notifications.show({ color: 'green', message: `Campaña: ${STATUS_LABELS[to].toLowerCase()}.` });
  };
  const moves = MOVES.filter((item) => item.to !== campaign.status && canMoveTo(campaign.status, item.to));
  return (
    <>
      {moves.map((item) =>
        item.to === 'ended' ? (
          <Button key={item.to} size="xs" variant="default" color="red" onClick={() => setEnding(true)}>
            {item.label}
          </Button>
        ) : (
          <Button
            key={item.to}
            size="xs"
            variant="default"
            onClick={() => void move(item.to).catch((error: unknown) => notifications.show({ color: 'red', message: problemMessage(error) }))}
          >
            {campaign.status === 'paused' && item.to === 'active' ? 'Reanudar' : item.label}
          </Button>
        ),
      )}
      <ConfirmDialog
        opened={ending}
        onClose={() => setEnding(false)}
        title="Terminar la campaña"
        confirmLabel="Terminar"
        danger
        onConfirm={() => move('ended').then(() => setEnding(false))}
      >
        <Text size="sm">La página de los afiches dejará de recibir datos y no se podrán generar más códigos. Las cifras y los contactos se conservan. No se puede deshacer.</Text>
      </ConfirmDialog>
    </>
  );
}

export default function CampaignPage() {
  const { id = '' } = useParams();
  const { user } = useSignedIn();
  const manages = rolePermitted(user.role, qrPolicy.roles('manage'));
  const seesLeads = rolePermitted(user.role, qrPolicy.roles('readLeads'));
  const campaign = useQuery({ queryKey: ['poster-campaign', id], queryFn: () => api.get<Campaign>(`${CAMPAIGNS_PATH}/${id}`) });
  if (campaign.isPending) return <Loader aria-label="Cargando campaña" />;
  if (campaign.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(campaign.error)}
      </Alert>
    );
  const data = campaign.data;
  return (
    <>
      <PageTitle
        actions={
          seesLeads && (
            <Button component={Link} to={`/afiches/contactos?campaignId=${data.id}`} variant="default">
              Ver sus contactos
            </Button>
          )
        }
      >
        {data.name}
      </PageTitle>
      <Stack>
        <Group gap="xs">
          <Badge color={TONES[STATUS_TONES[data.status]].color} c={TONES[STATUS_TONES[data.status]].text} variant="light">
            {STATUS_LABELS[data.status]}
          </Badge>
          {manages && <StatusActions campaign={data} />}
          {manages && (
            <Button component={Link} to={`/afiches/${data.id}/editar`} size="xs" variant="default">
              Editar página
            </Button>
          )}
          <Anchor component={Link} to="/afiches" size="sm">
            Todas las campañas
          </Anchor>
        </Group>
        {manages && <CodesSection campaign={data} />}
        <RegistrySection campaign={data} manages={manages} />
        <AnalysisSection campaign={data} />
      </Stack>
    </>
  );
}
