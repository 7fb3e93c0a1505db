import { Anchor, Button, Group, NativeSelect } from '@mantine/core';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { POLL_SCOPES } from '../../../src/modules/popularity/popularity.constants';
import { popularityPolicy } from '../../../src/modules/popularity/popularity.policy';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDate, formatNumber } from '../app/format';
import { PageTitle } from '../app/pages';
import { SectionTabs } from '../app/SectionTabs';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { ComplianceBadge } from './Law';
import { formatPoints, POLLS_PATH, SCOPE_LABELS, SECTIONS, type Poll } from './data';

const COMPLIANCE_FILTER = [
  { value: '', label: 'Todas' },
  { value: 'true', label: 'Cumplen la Ley 2494' },
  { value: 'false', label: 'No cumplen' },
];

/** The poll register, newest publication first, paged by the server. */
export default function PollsPage() {
  const { user } = useSignedIn();
  const records = rolePermitted(user.role, popularityPolicy.roles('record'));
  const filters = useUrlFilters(['cumple', 'alcance'] as const);
  const path = `${POLLS_PATH}${queryString({ compliant: filters.values.cumple, scope: filters.values.alcance })}`;
  const columns: Column<Poll>[] = [
    {
      key: 'pollster',
      header: 'Encuestadora',
      render: (row) => (
        <Anchor component={Link} to={`/popularidad/encuestas/${row.id}`} fw={600}>
          {row.pollster}
        </Anchor>
      ),
    },
    { key: 'published', header: 'Publicada', render: (row) => formatDate(row.publishedAt) },
    { key: 'fieldwork', header: 'Trabajo de campo', render: (row) => `${formatDate(row.fieldworkStart)} – ${formatDate(row.fieldworkEnd)}` },
    { key: 'scope', header: 'Alcance', render: (row) => SCOPE_LABELS[row.scope] },
    { key: 'sample', header: 'Muestra', numeric: true, render: (row) => formatNumber(row.sampleSize) },
    { key: 'margin', header: 'Margen de error', numeric: true, render: (row) => `±${formatPoints(row.marginOfError)}` },
    { key: 'compliance', header: 'Ley 2494', render: (row) => <ComplianceBadge poll={row} /> },
  ];
  return (
    <>
      <PageTitle
        actions={
          records && (
            <Button component={Link} to="/popularidad/encuestas/nueva">
              Registrar encuesta
            </Button>
          )
        }
      >
        Encuestas
      </PageTitle>
      <SectionTabs label="Secciones de popularidad" sections={SECTIONS} />
      <Group mb="sm" align="flex-end">
        <NativeSelect label="Ley 2494" data={COMPLIANCE_FILTER} value={filters.values.cumple ?? ''} onChange={(event) => filters.set({ cumple: event.currentTarget.value })} />
        <NativeSelect
          label="Alcance"
          data={[{ value: '', label: 'Todos' }, ...POLL_SCOPES.map((scope) => ({ value: scope, label: SCOPE_LABELS[scope] }))]}
          value={filters.values.alcance ?? ''}
          onChange={(event) => filters.set({ alcance: event.currentTarget.value })}
        />
      </Group>
      <ServerTable
        caption="Encuestas registradas, la publicación más reciente primero"
        path={path}
        columns={columns}
        rowKey={(row) => row.id}
        empty={filters.active.length ? 'Ninguna encuesta coincide con los filtros.' : 'Aún no hay encuestas registradas.'}
      />
    </>
  );
}
