import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatDateTime, formatNumber, plural } from '../app/format';
import { ServerTable, type Column } from '../app/ServerTable';
import { SOURCE_LABELS, TYPE_LABELS, UNIT_LABELS, volunteerProblem } from './labels';
import { volunteerPath, type Activity } from './types';

/** "40 puertas", "1 llamada", or nothing without a quantity. */
export function quantityText(activity: Pick<Activity, 'quantity' | 'unit'>): string {
  if (activity.quantity === null || !activity.unit) return '';
  const [one, many] = UNIT_LABELS[activity.unit];
  return plural(activity.quantity, one, many);
}

const minutes = (value: number) => (value >= 60 ? `${formatNumber(Math.floor(value / 60))} h ${value % 60 ? `${value % 60} min` : ''}`.trim() : `${value} min`);

export interface ActivityTableProps {
  caption: string;
  /** `/api/volunteers/activities` with its filters. */
  path: string;
  /** Names by volunteer id, to show who did each (the module's activity log); left out on one volunteer's page. */
  names?: ReadonlyMap<string, string>;
  empty: string;
}

/** Activities, latest first, paged by the server. */
export function ActivityTable({ caption, path, names, empty }: ActivityTableProps) {
  const columns: Column<Activity>[] = [
    {
      key: 'occurredAt',
      header: 'Cuándo',
      render: (activity) => (
        <time dateTime={activity.occurredAt} style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(activity.occurredAt)}
        </time>
      ),
    },
    ...(names
      ? [
          {
            key: 'volunteer',
            header: 'Voluntario',
            render: (activity: Activity) => (
              <Anchor component={Link} to={volunteerPath(activity.volunteerId)}>
                {names.get(activity.volunteerId) ?? 'Voluntario'}
              </Anchor>
            ),
          },
        ]
      : []),
    { key: 'type', header: 'Actividad', render: (activity) => TYPE_LABELS[activity.type] },
    { key: 'quantity', header: 'Cantidad', render: (activity) => quantityText(activity) || '—' },
    { key: 'duration', header: 'Duración', render: (activity) => (activity.durationMinutes ? minutes(activity.durationMinutes) : '—') },
    {
      key: 'notes',
      header: 'Notas',
      render: (activity) => (
        <>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {activity.notes ?? '—'}
          </Text>
          <Text size="xs" c="dimmed">
            {SOURCE_LABELS[activity.source] ?? activity.source}
          </Text>
        </>
      ),
    },
  ];
  return <ServerTable<Activity> caption={caption} path={path} columns={columns} rowKey={(activity) => activity.id} describeError={volunteerProblem} empty={empty} />;
}
