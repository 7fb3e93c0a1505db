import { Anchor, Badge, Button, Group, NativeSelect, Progress, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { CAMPAIGN_STATUSES } from '../../../src/modules/whatsapp/whatsapp.codes';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { formatDateTime, formatNumber } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { patchServerLists, ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { CAMPAIGN_STATUS_COLOURS, CAMPAIGN_STATUS_LABELS, CAMPAIGNS_PATH, doneCount, percentDone, type Campaign, type CampaignStatus } from './campaigns';
import { SimulatorNotice, useSimulated } from './SimulatorNotice';
import { WhatsAppTabs } from './WhatsAppTabs';

export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <Badge color={CAMPAIGN_STATUS_COLOURS[status]} variant="dot" tt="none">
      {CAMPAIGN_STATUS_LABELS[status]}
    </Badge>
  );
}

/** A campaign's progress as a bar and in words (the words are what a screen reader gets). */
export function CampaignProgress({ campaign, size = 'sm' }: { campaign: Campaign; size?: 'sm' | 'lg' }) {
  const percent = percentDone(campaign);
  const words = campaign.queued ? `${percent} % (${formatNumber(doneCount(campaign))} de ${formatNumber(campaign.queued)})` : 'Sin enviar';
  return (
    <Stack gap={2} miw={140}>
      <Progress value={percent} size={size} aria-label={`Avance de ${campaign.name}`} color={campaign.status === 'paused' ? 'orange' : undefined} />
      <Text size="xs">{words}</Text>
    </Stack>
  );
}

/** The campaigns, newest first, paged by the server; their progress moves with `whatsapp:status`. */
export function CampaignList() {
  const { user } = useSignedIn();
  const [status, setStatus] = useState<CampaignStatus | ''>('');
  const simulated = useSimulated();
  // The figures room pushes each changed campaign's counters at most once a second.
  useLiveEvent('whatsapp:status', ({ campaigns }) => {
    if (!campaigns.length) return;
    const changed = new Map(campaigns.map((item) => [item.campaignId, item]));
    patchServerLists<Campaign>(CAMPAIGNS_PATH, (row) => {
      const item = changed.get(row.id);
      return item ? { ...row, status: item.status as CampaignStatus, progress: item.progress } : row;
    });
  });
  const columns: Column<Campaign>[] = [
    {
      key: 'name',
      header: 'Campaña',
      render: (campaign) => (
        <Anchor component={Link} to={`/whatsapp/campanas/${campaign.id}`} fw={600}>
          {campaign.name}
        </Anchor>
      ),
    },
    { key: 'status', header: 'Estado', render: (campaign) => <CampaignStatusBadge status={campaign.status} /> },
    { key: 'progress', header: 'Avance', render: (campaign) => <CampaignProgress campaign={campaign} /> },
    { key: 'audience', header: 'Alcance', numeric: true, render: (campaign) => formatNumber(campaign.audienceSize) },
    {
      key: 'delivered',
      header: simulated ? 'Entregados (simulado)' : 'Entregados',
      numeric: true,
      render: (campaign) => formatNumber(campaign.progress.delivered),
    },
    {
      key: 'when',
      header: 'Cuándo',
      render: (campaign) =>
        campaign.scheduledAt && campaign.status === 'scheduled' ? `Programada: ${formatDateTime(campaign.scheduledAt)}` : `Creada: ${formatDateTime(campaign.createdAt)}`,
    },
  ];
  return (
    <>
      <PageTitle
        actions={
          rolePermitted(user.role, whatsappPolicy.roles('manageCampaigns')) && (
            <Button component={Link} to="/whatsapp/campanas/nueva">
              Nueva campaña
            </Button>
          )
        }
      >
        Campañas de WhatsApp
      </PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>No hay una cuenta de WhatsApp Business configurada: las campañas no salen a WhatsApp, y sus entregas y lecturas las inventa el simulador.</SimulatorNotice>
      <Group mb="sm">
        <NativeSelect
          label="Estado"
          value={status}
          onChange={(event) => setStatus(event.currentTarget.value as CampaignStatus | '')}
          data={[{ value: '', label: 'Todas' }, ...CAMPAIGN_STATUSES.map((value) => ({ value, label: CAMPAIGN_STATUS_LABELS[value] }))]}
        />
      </Group>
      <ServerTable
        caption="Campañas de WhatsApp"
        path={status ? `${CAMPAIGNS_PATH}?status=${status}` : CAMPAIGNS_PATH}
        columns={columns}
        rowKey={(campaign) => campaign.id}
        empty={status ? 'Ninguna campaña en este estado.' : 'Aún no hay campañas. Cree una con una plantilla aprobada y un segmento.'}
      />
    </>
  );
}
