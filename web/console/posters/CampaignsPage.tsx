import { Anchor, Badge, Button, Group } from '@mantine/core';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { qrPolicy } from '../../../src/modules/qr/qr.policy';
import { formatDate } from '../app/format';
import { PageTitle } from '../app/pages';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { CAMPAIGNS_PATH, STATUS_TONES, STATUS_LABELS, type Campaign } from './data';

export default function CampaignsPage() {
  const { user } = useSignedIn();
  const manages = rolePermitted(user.role, qrPolicy.roles('manage'));
  const seesLeads = rolePermitted(user.role, qrPolicy.roles('readLeads'));
  const columns: Column<Campaign>[] = [
    {
      key: 'name',
      header: 'Campaña',
      render: (row) => (
        <Anchor component={Link} to={`/afiches/${row.id}`} fw={600}>
          {row.name}
        </Anchor>
      ),
    },
    {
      key: 'status',
      header: 'Estado',
      render: (row) => (
        <Badge color={TONES[STATUS_TONES[row.status]].color} c={TONES[STATUS_TONES[row.status]].text} variant="light">
          {STATUS_LABELS[row.status]}
        </Badge>
      ),
    },
    {
      key: 'dates',
      header: 'Vigencia',
      render: (row) => (row.startsAt || row.endsAt ? `${row.startsAt ? formatDate(row.startsAt) : '…'} – ${row.endsAt ? formatDate(row.endsAt) : '…'}` : 'Sin fechas'),
    },
    { key: 'created', header: 'Creada', render: (row) => formatDate(row.createdAt) },
  ];
  return (
    <>
      <PageTitle
        actions={
          <Group gap="xs">
            {seesLeads && (
              <Button component={Link} to="/afiches/contactos" variant="default">
                Contactos captados
              </Button>
            )}
            {manages && (
              <Button component={Link} to="/afiches/nueva">
                Nueva campaña
              </Button>
            )}
          </Group>
        }
      >
        Afiches QR
      </PageTitle>
      <ServerTable
        caption="Campañas de afiches, las más recientes primero"
        path={CAMPAIGNS_PATH}
        columns={columns}
        rowKey={(row) => row.id}
        empty="Aún no hay campañas de afiches."
      />
    </>
  );
}
