import { Alert, Skeleton, Stack, Text } from '@mantine/core';
import { formatDate, formatDateTime, formatFileSize } from '../app/format';
import { problemMessage } from '../app/problems';
import { useAssignees, useHistory, type PqrsHistory, type PqrsNotice } from './data';
import { CHANNEL_LABELS, noticeShort, PRIORITY_LABELS, STATUS_LABELS, termLabel, TYPE_LABELS } from './labels';

type Line = PqrsHistory[number];

const NOTICE_KIND: Record<string, string> = { receivedNotice: 'de radicación', extensionNotice: 'de prórroga', answerNotice: 'de respuesta' };
const FILE_KIND: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/jpeg': 'imagen JPEG',
  'image/png': 'imagen PNG',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'documento de Word',
};

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const label = (labels: Record<string, string>, value: unknown) => (typeof value === 'string' ? (labels[value] ?? value) : '—');
const day = (value: unknown) => (typeof value === 'string' ? formatDate(value) : '—');

/** Who did it, in words: a staff member by name, else the citizen (filing, their files) or the desk itself. */
function who(line: Line): string {
  if (line.actorName) return line.actorName;
  if (line.actorId) return 'Una persona del equipo';
  if (line.action === 'filed' || line.action === 'attachment') return 'El ciudadano';
  return 'El sistema';
}

const FIELD_ORDER = ['status', 'assigneeId', 'priority', 'type', 'termDays', 'dueDate', 'territoryId'];
const fieldRank = (field: string) => (FIELD_ORDER.includes(field) ? FIELD_ORDER.indexOf(field) : FIELD_ORDER.length);

/** One change of a request in words ("cambió el estado de Recibida a En trámite"). */
function describe(line: Line, nameOf: (id: string) => string): string[] {
  const changes = line.changes;
  switch (line.action) {
    case 'filed':
      return [
        `radicó la solicitud ${String(changes.number?.after ?? '')} (${label(TYPE_LABELS, changes.type?.after)}, ${label(CHANNEL_LABELS, changes.channel?.after).toLowerCase()}), con vencimiento el ${day(changes.dueDate?.after)}`,
      ];
    case 'update': {
      const said: string[] = [];
      // In a fixed order: the stored changes come back with their keys sorted by the database.
      const fields = Object.keys(changes).sort((a, b) => fieldRank(a) - fieldRank(b));
      for (const field of fields) {
        const change = changes[field]!;
        if (field === 'status') said.push(`cambió el estado de ${label(STATUS_LABELS, change.before)} a ${label(STATUS_LABELS, change.after)}`);
        else if (field === 'assigneeId') said.push(change.after ? `asignó la solicitud a ${nameOf(String(change.after))}` : 'quitó la asignación');
        else if (field === 'priority') said.push(`cambió la prioridad de ${label(PRIORITY_LABELS, change.before)} a ${label(PRIORITY_LABELS, change.after)}`);
        else if (field === 'type') said.push(`reclasificó la solicitud de ${label(TYPE_LABELS, change.before)} a ${label(TYPE_LABELS, change.after)}`);
        else if (field === 'termDays') said.push(`el término pasó de ${termLabel(Number(change.before))} a ${termLabel(Number(change.after))}`);
        else if (field === 'dueDate') said.push(`el vencimiento pasó del ${day(change.before)} al ${day(change.after)}`);
        else if (field === 'territoryId') said.push(change.after ? 'cambió el territorio' : 'quitó el territorio');
        else said.push(`cambió ${field}`);
      }
      return said;
    }
    case 'extend':
      return [`prorrogó el plazo del ${day(changes.dueDate?.before)} al ${day(changes.dueDate?.after)}`];
    case 'answer': {
      const late = changes.answeredLate?.after === true;
      const closed = changes.status?.after === 'closed';
      return [`respondió la solicitud ${late ? 'fuera de término' : 'a tiempo'}${closed ? ' y la cerró' : ''}`];
    }
    case 'attachment': {
      const file = changes.attachment?.after as { type?: string; size?: number } | undefined;
      return [`adjuntó un archivo${file?.type ? ` (${FILE_KIND[file.type] ?? file.type}${file.size ? `, ${formatFileSize(file.size)}` : ''})` : ''}`];
    }
    case 'due_soon':
      return ['marcó la solicitud como próxima a vencer (3 días hábiles o menos)'];
    case 'notice': {
      const [field, change] = Object.entries(changes)[0] ?? [];
      const notice = change?.after as PqrsNotice;
      return [`aviso ${NOTICE_KIND[field ?? ''] ?? ''} al ciudadano: ${notice ? noticeShort(notice) : 'sin resultado'}`];
    }
    case 'erase':
      return ['suprimió los datos del ciudadano a su solicitud'];
  }
}

/** Every change of the request, oldest first: when, who, and what, in words; notes only for those who may read them. */
export function History({ id }: { id: string }) {
  const history = useHistory(id);
  const assignees = useAssignees();
  const nameOf = (userId: string) => assignees.byId.get(userId)?.name ?? 'otra persona del equipo';
  if (history.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(history.error)}
      </Alert>
    );
  if (!history.data) return <Skeleton h={120} />;
  return (
    <Stack component="ol" gap="sm" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {history.data.data.map((line) => (
        <li key={line.id}>
          <Text size="xs" c="dimmed">
            <time dateTime={line.at}>{formatDateTime(line.at)}</time>
          </Text>
          <Text size="sm">
            {line.action === 'notice' ? (
              <>{capitalise(describe(line, nameOf).join('; '))}.</>
            ) : (
              <>
                <strong>{who(line)}</strong> {describe(line, nameOf).join('; ')}.
              </>
            )}
          </Text>
          {line.note && (
            <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
              {line.action === 'extend' ? 'Motivo' : 'Nota'}: {line.note}
            </Text>
          )}
        </li>
      ))}
    </Stack>
  );
}
