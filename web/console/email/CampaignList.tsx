import { Anchor, Badge, Button, Text } from '@mantine/core';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { formatDateTime, formatNumber } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { invalidateServerLists, patchServerLists, ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { EmailTabs } from './EmailTabs';
import { CAMPAIGNS_PATH, PHASE_LABELS, STATUS_COLOURS, STATUS_LABELS, type CampaignStatus, type EmailCampaign } from './data';

export function StatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <Badge color={STATUS_COLOURS[status]} variant="dot" tt="none">
      {STATUS_LABELS[status]}
    </Badge>
  );
}

/** The email campaigns, newest first, paged by the server; their status moves with `email:campaign`. */
export function CampaignList() {
  const { user } = useSignedIn();
  useLiveEvent('email:campaign', (event) => {
    patchServerLists<EmailCampaign>(CAMPAIGNS_PATH, (row) => (row.id === event.campaignId ? { ...row, status: event.status, abPhase: event.abPhase, winner: event.winner } : row));
    void invalidateServerLists(CAMPAIGNS_PATH);
  });
  const columns: Column<EmailCampaign>[] = [
    {
      key: 'name',
      header: 'Campaña',
      render: (campaign) => (
        <Anchor component={Link} to={`/correo/${campaign.id}`} fw={600}>
          {campaign.name}
        </Anchor>
      ),
    },
    { key: 'status', header: 'Estado', render: (campaign) => <StatusBadge status={campaign.status} /> },
    {
      key: 'ab',
      header: 'Prueba A/B',
      render: (campaign) =>
        campaign.abTest ? (
          <Text size="sm">
            {PHASE_LABELS[campaign.abPhase].replace('Prueba A/B: ', '')}
            {campaign.winner ? ` (ganó ${campaign.winner})` : ''}
          </Text>
        ) : (
          <Text size="sm">No</Text>
        ),
    },
    { key: 'variants', header: 'Variantes', numeric: true, render: (campaign) => campaign.variants.length },
    { key: 'audience', header: 'Alcance', numeric: true, render: (campaign) => formatNumber(campaign.audienceSize) },
    {
      key: 'when',
      header: 'Cuándo',
      render: (campaign) =>
        campaign.scheduledAt && campaign.status === 'scheduled'
          ? `Programada: ${formatDateTime(campaign.scheduledAt)}`
          : campaign.startedAt
            ? `Empezó: ${formatDateTime(campaign.startedAt)}`
            : `Creada: ${formatDateTime(campaign.createdAt)}`,
    },
  ];
  return (
    <>
      <PageTitle
        actions={
          rolePermitted(user.role, emailPolicy.roles('manageCampaigns')) && (
            <Button component={Link} to="/correo/nueva">
              Nueva campaña
            </Button>
          )
        }
      >
        Campañas de correo
      </PageTitle>
      <EmailTabs />
      <ServerTable
        caption="Campañas de correo"
        path={CAMPAIGNS_PATH}
        columns={columns}
        rowKey={(campaign) => campaign.id}
        empty="Aún no hay campañas de correo. Cree una con una plantilla y un segmento."
      />
    </>
  );
}
