import { Alert, Anchor, Badge, Button, Card, FileInput, Group, Loader, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { reverseEntryBody } from '../../../src/modules/finance/finance.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { downloadFile } from '../app/files';
import { formatDate, formatDateTime, formatFileSize } from '../app/format';
import { schemaErrors } from '../app/forms';
import { PageTitle } from '../app/pages';
import { invalidateServerLists } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { DONOR_LABELS, ENTRIES, KIND_LABELS, entryKey, financeProblem, historyKey, signedPesos, type Entry, type History } from './data';
import { FinanceTabs } from './FinanceTabs';
import { RECEIPT_ACCEPT, receiptFile, uploadReceipt } from './receipts';

const ACTIONS: Record<string, string> = { create: 'Registro', update: 'Corrección', reverse: 'Reversión', receipt: 'Soporte subido', settings: 'Configuración', code: 'Catálogo' };
const RECEIPT_EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };
const RULES: Record<string, string> = { cap_exceeded: 'el tope de gastos', donor_limit_exceeded: 'el límite por donante' };

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text>{children}</Text>
    </div>
  );
}

/** The entry's receipt: download it with the session's token; upload or replace it (the API says when a closed entry may not). */
function Receipt({ entry, mayRecord }: { entry: Entry; mayRecord: boolean }) {
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const upload = async () => {
    if (!file) return setMessage({ ok: false, text: 'Elija un archivo.' });
    const checked = receiptFile(file);
    if (checked.error !== null) return setMessage({ ok: false, text: checked.error });
    setBusy(true);
    setMessage(null);
    try {
      await uploadReceipt(entry.id, file);
      setFile(null);
      setMessage({ ok: true, text: `Se subió el soporte ${file.name}.` });
      await Promise.all([queryClient.invalidateQueries({ queryKey: ['finance'] }), invalidateServerLists(ENTRIES)]);
    } catch (error) {
      setMessage({ ok: false, text: financeProblem(error) });
    } finally {
      setBusy(false);
    }
  };
  const download = async () => {
    try {
      await downloadFile(`${ENTRIES}/${entry.id}/receipt`, `soporte-${entry.date}-${entry.id.slice(0, 8)}.${RECEIPT_EXTENSIONS[entry.receipt!.type] ?? 'bin'}`);
    } catch (error) {
      setMessage({ ok: false, text: financeProblem(error) });
    }
  };
  const mayUpload = mayRecord && !(entry.periodClosed && entry.receipt);
  return (
    <Card withBorder component="section" aria-labelledby="receipt-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="receipt-title">
          Soporte
        </Title>
        {entry.receipt ? (
          <Group gap="sm">
            <Button variant="default" onClick={() => void download()}>
              Descargar el soporte
            </Button>
            <Text size="sm" c="dimmed">
              {formatFileSize(entry.receipt.size)}, subido el {formatDateTime(entry.receipt.uploadedAt)} · SHA-256 {entry.receipt.sha256.slice(0, 12)}…
            </Text>
          </Group>
        ) : (
          <Text size="sm">Este movimiento aún no tiene soporte.</Text>
        )}
        {mayUpload && (
          <Group align="flex-end" gap="sm">
            <FileInput
              label={entry.receipt ? 'Reemplazar el soporte' : 'Subir el soporte'}
              description="PDF, JPEG o PNG, hasta 5 MB."
              accept={RECEIPT_ACCEPT}
              value={file}
              onChange={setFile}
              clearable
              clearButtonProps={{ 'aria-label': 'Quitar el archivo elegido' }}
              style={{ flex: 1, maxWidth: 420 }}
            />
            <Button onClick={() => void upload()} loading={busy}>
              Subir
            </Button>
          </Group>
        )}
        {entry.periodClosed && entry.receipt && <Text size="sm">El periodo está cerrado: el soporte que tiene ya no se reemplaza.</Text>}
        {message && (
          <Alert color={message.ok ? 'green' : 'red'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

/** `/finanzas/movimientos/:id`: one entry, its receipt, its reversal and its audit trail. */
export default function EntryPage() {
  const { id = '' } = useParams();
  const { user } = useSignedIn();
  const location = useLocation();
  const created = (location.state as { created?: boolean; corrected?: boolean; uploadProblem?: string | null } | null) ?? null;
  const mayRecord = rolePermitted(user.role, financePolicy.roles('record'));
  const entry = useQuery({ queryKey: entryKey(id), queryFn: () => api.get<Entry>(`${ENTRIES}/${id}`) });
  const history = useQuery({ queryKey: historyKey(id), queryFn: () => api.get<{ data: History }>(`${ENTRIES}/${id}/history`) });
  const [reversing, setReversing] = useState(false);
  const [reason, setReason] = useState('');
  const reasonError = reason.trim() ? schemaErrors(reverseEntryBody, { reason: reason.trim() }).reason : undefined;

  if (entry.isPending) return <Loader aria-label="Cargando" />;
  if (entry.isError)
    return (
      <Alert color="red" role="alert">
        {financeProblem(entry.error)}
      </Alert>
    );
  const row = entry.data;
  const title = `${KIND_LABELS[row.kind]} del ${formatDate(row.date)}`;
  return (
    <>
      <PageTitle
        actions={
          mayRecord &&
          !row.reversesId &&
          !row.reversedById && (
            <Group gap="xs">
              {!row.periodClosed && (
                <Button variant="default" component={Link} to={`/finanzas/movimientos/${row.id}/corregir`}>
                  Corregir
                </Button>
              )}
              <Button variant="default" color="red" onClick={() => setReversing(true)}>
                Reversar
              </Button>
            </Group>
          )
        }
      >
        {title}
      </PageTitle>
      <FinanceTabs />
      <Stack>
        {created?.created && (
          <Alert color="green" role="status">
            Movimiento registrado.
          </Alert>
        )}
        {created?.corrected && (
          <Alert color="green" role="status">
            Corrección guardada.
          </Alert>
        )}
        {created?.uploadProblem && (
          <Alert color="red" role="alert">
            El movimiento quedó registrado, pero el soporte no se subió: {created.uploadProblem} Súbalo abajo.
          </Alert>
        )}
        <Card withBorder>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Field label="Valor">{signedPesos(row.amount)}</Field>
            <Field label="Código">{`${row.code} ${row.codeName}`}</Field>
            <Field label="Fecha">{formatDate(row.date)}</Field>
            <Field label={row.kind === 'income' ? 'Quién aportó' : 'A quién se pagó'}>
              {row.counterparty.name}
              {row.counterparty.idNumber ? ` (${row.counterparty.idNumber})` : ''}
            </Field>
            {row.donorType && <Field label="Tipo de donante">{DONOR_LABELS[row.donorType]}</Field>}
            <Field label="Descripción">{row.description ?? '—'}</Field>
            {row.notes && <Field label="Notas">{row.notes}</Field>}
          </SimpleGrid>
          <Group gap="xs" mt="sm">
            {row.periodClosed && (
              <Badge variant="light" tt="none">
                Periodo cerrado: solo se corrige con una reversión
              </Badge>
            )}
            {row.reversesId && (
              <Anchor component={Link} to={`/finanzas/movimientos/${row.reversesId}`} size="sm">
                Reversa otro movimiento: verlo
              </Anchor>
            )}
            {row.reversedById && (
              <Anchor component={Link} to={`/finanzas/movimientos/${row.reversedById}`} size="sm">
                Reversado: ver la reversión
              </Anchor>
            )}
          </Group>
          {row.override && (
            <Alert color="orange" mt="sm" title="Registrado con autorización">
              Pasó {row.override.rules.map((rule) => RULES[rule] ?? rule).join(' y ')} con la razón: «{row.override.reason}».
            </Alert>
          )}
        </Card>
        <Receipt entry={row} mayRecord={mayRecord} />
        <Card withBorder component="section" aria-labelledby="history-title">
          <Title order={2} size="h4" id="history-title" mb="xs">
            Historial
          </Title>
          {history.data ? (
            <Stack component="ol" gap="xs" style={{ margin: 0, paddingLeft: 20 }}>
              {history.data.data.map((line) => (
                <li key={line.id}>
                  <Text size="sm">
                    <strong>{ACTIONS[line.action] ?? line.action}</strong> · {formatDateTime(line.at)}
                    {line.actorId === user.id ? ' · usted' : ''}
                    {Object.keys(line.changes).length > 0 && line.action !== 'create' ? ` · cambió ${Object.keys(line.changes).join(', ')}` : ''}
                    {line.reason ? ` · razón: «${line.reason}»` : ''}
                  </Text>
                </li>
              ))}
            </Stack>
          ) : history.isError ? (
            <Text size="sm">{financeProblem(history.error)}</Text>
          ) : (
            <Loader size="sm" aria-label="Cargando el historial" />
          )}
        </Card>
      </Stack>
      <ConfirmDialog
        opened={reversing}
        onClose={() => setReversing(false)}
        title="Reversar el movimiento"
        confirmLabel="Reversar"
        danger
        confirmDisabled={Boolean(reasonError)}
        describeError={financeProblem}
        onConfirm={async () => {
          await api.post(`${ENTRIES}/${row.id}/reverse`, reason.trim() ? { reason: reason.trim() } : {});
          await Promise.all([queryClient.invalidateQueries({ queryKey: ['finance'] }), invalidateServerLists(ENTRIES)]);
        }}
      >
        <Text>
          Se registra hoy un movimiento igual con el valor opuesto ({signedPesos(-row.amount)}), con el mismo código y contraparte, y los dos quedan enlazados. Así se corrige un
          movimiento de un periodo cerrado. No se puede deshacer.
        </Text>
        <Textarea
          label="Razón"
          description="Opcional: queda como descripción de la reversión."
          maxLength={500}
          value={reason}
          error={reasonError}
          onChange={(event) => setReason(event.currentTarget.value)}
        />
      </ConfirmDialog>
    </>
  );
}
