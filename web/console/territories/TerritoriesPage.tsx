import { Alert, Badge, Button, FileButton, Group, Loader, Modal, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import { allowedParentTypes, territoriesPolicy } from '../../../src/modules/territories/territories.policy';
import { createTerritoryBody, updateTerritoryBody, type territoryView } from '../../../src/modules/territories/territories.schemas';
import type { Problem } from '../../lib/api-types';
import { api, ApiError, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { FormDialog } from '../app/FormDialog';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { TreeToggle, treeIndent } from '../app/TreeToggle';

type Territory = z.output<typeof territoryView>;
type Level = Territory['type'];

const TERRITORIES = '/api/territories';
const LEVELS: Record<Level, string> = { department: 'Departamento', municipality: 'Municipio', commune: 'Comuna o localidad', neighbourhood: 'Barrio o vereda', zone: 'Zona' };
/** The levels that may sit under each one (the policy's rule, read the other way round). */
const childLevels = (parent: Level): Level[] => (Object.keys(LEVELS) as Level[]).filter((level) => allowedParentTypes(level).includes(parent));

const PROBLEMS = { territory_code_taken: 'Ese código ya lo tiene otro territorio del mismo nivel.' };

/** Why a removal was refused, in Spanish, from the counts the API gives (each module names its own rows). */
export function inUseMessage(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.problem?.code !== 'territory_in_use') return null;
  const references = ((error.problem as Problem).references ?? []) as { count: number; one: string; many: string }[];
  const said = references.map((reference) => `${reference.count.toLocaleString('es-CO')} ${reference.count === 1 ? reference.one : reference.many}`).join(', ');
  return `No se puede eliminar: todavía lo usan ${said}. Muévalos o elimínelos primero; no se eliminó nada.`;
}

const childrenKey = (parentId: string | null) => ['territories', 'children', parentId ?? 'roots'];
const refresh = () => queryClient.invalidateQueries({ queryKey: ['territories'] });

/** One level of the tree: the departments (and zones standing alone) at the top, a territory's own below it. */
function Branch({ parent, depth, onAct, manage }: { parent: Territory | null; depth: number; onAct: (act: Act) => void; manage: boolean }) {
  const children = useQuery({
    queryKey: childrenKey(parent?.id ?? null),
    queryFn: async () =>
      parent
        ? api.all<Territory>(`${TERRITORIES}?parentId=${parent.id}`)
        : [...(await api.all<Territory>(`${TERRITORIES}?type=department`)), ...(await api.all<Territory>(`${TERRITORIES}?type=zone`)).filter((zone) => zone.parentId === null)],
  });
  if (children.isPending)
    return (
      <Table.Tr>
        <Table.Td colSpan={4} pl={treeIndent(depth)}>
          <Loader size="xs" aria-label="Cargando" />
        </Table.Td>
      </Table.Tr>
    );
  if (children.isError)
    return (
      <Table.Tr>
        <Table.Td colSpan={4}>
          <Alert color="red">{problemMessage(children.error)}</Alert>
        </Table.Td>
      </Table.Tr>
    );
  return (
    <>
      {children.data.map((territory) => (
        <Node key={territory.id} territory={territory} depth={depth} onAct={onAct} manage={manage} />
      ))}
    </>
  );
}

function Node({ territory, depth, onAct, manage }: { territory: Territory; depth: number; onAct: (act: Act) => void; manage: boolean }) {
  const [open, setOpen] = useState(false);
  const canHaveChildren = childLevels(territory.type).length > 0;
  return (
    <>
      <Table.Tr data-territory={territory.id}>
        <Table.Td pl={treeIndent(depth)}>
          <TreeToggle open={open} onToggle={() => setOpen(!open)} expandable={canHaveChildren}>
            {territory.name}
          </TreeToggle>
        </Table.Td>
        <Table.Td>
          <Badge variant="dot" color="gray" tt="none">
            {LEVELS[territory.type]}
          </Badge>
        </Table.Td>
        <Table.Td>{territory.code ?? '—'}</Table.Td>
        <Table.Td>
          {manage && (
            <Group gap={4} wrap="nowrap">
              <Button size="xs" variant="default" onClick={() => onAct({ kind: 'edit', territory })} aria-label={`Editar ${territory.name}`}>
                Editar
              </Button>
              {canHaveChildren && (
                <Button size="xs" variant="default" onClick={() => onAct({ kind: 'add', parent: territory })} aria-label={`Agregar dentro de ${territory.name}`}>
                  Agregar dentro
                </Button>
              )}
              <Button size="xs" variant="subtle" color="red" onClick={() => onAct({ kind: 'remove', territory })} aria-label={`Eliminar ${territory.name}`}>
                Eliminar
              </Button>
            </Group>
          )}
        </Table.Td>
      </Table.Tr>
      {open && <Branch parent={territory} depth={depth + 1} onAct={onAct} manage={manage} />}
    </>
  );
}

type Act = { kind: 'edit'; territory: Territory } | { kind: 'add'; parent: Territory | null } | { kind: 'remove'; territory: Territory } | { kind: 'import' } | null;

function EditDialog({ territory, onClose }: { territory: Territory; onClose: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    updateTerritoryBody,
    { initialValues: { name: territory.name, code: territory.code ?? '' }, emptyAs: { code: 'null' } },
    PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.patch(`${TERRITORIES}/${territory.id}`, values);
    notifications.show({ color: 'green', message: `Se guardó ${String(values.name)}.` });
    await refresh();
    onClose();
  });
  return (
    <FormDialog title={`Editar ${territory.name}`} onClose={onClose} onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Guardar">
      <TextInput label="Nombre" required data-autofocus {...form.getInputProps('name')} />
      <TextInput label="Código" description="DIVIPOLE o el de la campaña; vacío: sin código" {...form.getInputProps('code')} />
    </FormDialog>
  );
}

function AddDialog({ parent, onClose }: { parent: Territory | null; onClose: () => void }) {
  const levels = parent ? childLevels(parent.type) : (['department', 'zone'] as Level[]);
  const { form, submit, submitting, formError } = useSchemaForm(
    createTerritoryBody,
    { initialValues: { name: '', type: levels[0]!, code: '', ...(parent ? { parentId: parent.id } : {}) }, emptyAs: { code: 'absent' } },
    PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.post(TERRITORIES, values);
    notifications.show({ color: 'green', message: `Se agregó ${values.name}.` });
    await refresh();
    onClose();
  });
  return (
    <FormDialog
      title={parent ? `Agregar dentro de ${parent.name}` : 'Agregar territorio'}
      onClose={onClose}
      onSubmit={onSubmit}
      formError={formError}
      submitting={submitting}
      submitLabel="Agregar"
    >
      <TextInput label="Nombre" required data-autofocus {...form.getInputProps('name')} />
      <Select label="Nivel" required allowDeselect={false} data={levels.map((level) => ({ value: level, label: LEVELS[level] }))} {...form.getInputProps('type')} />
      <TextInput label="Código" description="Opcional" {...form.getInputProps('code')} />
    </FormDialog>
  );
}

interface ImportAnswer {
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  rejected: { line: number; message: string }[];
  rejectedCount: number;
}

/** A divisions file (DIVIPOLE, or the Registraduría's puestos): checked first without writing, then imported. */
function ImportDialog({ onClose }: { onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const result = await api.postFile<ImportAnswer>(`${TERRITORIES}/import?dryRun=${dryRun}`, new Blob([await file.arrayBuffer()], { type: 'text/csv' }));
      setAnswer(result);
      if (!dryRun) await refresh();
    } catch (failure) {
      setError(problemMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title="Importar territorios" size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <Stack>
        <Text size="sm">
          Un CSV con las columnas de DIVIPOLE (departamento, municipio, sus códigos, comuna) o el archivo de puestos de la Registraduría tal como se publica. Primero se revisa sin
          guardar nada.
        </Text>
        <Group>
          <FileButton onChange={(chosen) => (setFile(chosen), setAnswer(null))} accept=".csv,text/csv">
            {(props) => (
              <Button variant="default" {...props}>
                Elegir archivo
              </Button>
            )}
          </FileButton>
          <Text size="sm">{file ? file.name : 'Ningún archivo elegido'}</Text>
        </Group>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {answer && (
          <Alert color={answer.rejectedCount ? 'yellow' : 'green'} title={answer.dryRun ? 'Revisión (no se guardó nada)' : 'Importado'} role="status">
            <Text size="sm">
              {answer.created} nuevos, {answer.updated} actualizados, {answer.unchanged} sin cambios, {answer.rejectedCount} filas rechazadas.
            </Text>
            {answer.rejected.slice(0, 50).map((row) => (
              <Text size="sm" key={`${row.line}-${row.message}`}>
                Línea {row.line}: {row.message}
              </Text>
            ))}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cerrar
          </Button>
          <Button variant="default" disabled={!file} loading={busy} onClick={() => void send(true)}>
            Revisar sin guardar
          </Button>
          <Button disabled={!file || !answer?.dryRun} loading={busy} onClick={() => void send(false)}>
            Importar
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** `/territorios`: the campaign's places as a tree (departamento → municipio → comuna → barrio, and its zones). */
export default function TerritoriesPage() {
  const { user } = useSignedIn();
  const manage = territoriesPolicy.allows(user, 'create');
  const [act, setAct] = useState<Act>(null);
  const close = () => setAct(null);
  return (
    <>
      <PageTitle
        actions={
          manage && (
            <Group>
              <Button variant="default" onClick={() => setAct({ kind: 'import' })}>
                Importar CSV
              </Button>
              <Button onClick={() => setAct({ kind: 'add', parent: null })}>Agregar territorio</Button>
            </Group>
          )
        }
      >
        Territorios
      </PageTitle>
      <Text size="sm" c="dimmed" mb="md">
        Los lugares donde trabaja la campaña. Cada módulo ubica en ellos sus registros (puestos, personas, voluntarios, PQRS, eventos); un territorio que algo usa no se puede
        eliminar.
      </Text>
      <Table.ScrollContainer minWidth={600}>
        <Table verticalSpacing="xs" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Nombre</Table.Th>
              <Table.Th>Nivel</Table.Th>
              <Table.Th>Código</Table.Th>
              <Table.Th>{manage ? 'Acciones' : ''}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Branch parent={null} depth={0} onAct={setAct} manage={manage} />
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {act?.kind === 'edit' && <EditDialog territory={act.territory} onClose={close} />}
      {act?.kind === 'add' && <AddDialog parent={act.parent} onClose={close} />}
      {act?.kind === 'import' && <ImportDialog onClose={close} />}
      <ConfirmDialog
        opened={act?.kind === 'remove'}
        onClose={close}
        title="Eliminar territorio"
        confirmLabel="Eliminar"
        danger
        describeError={inUseMessage}
        onConfirm={async () => {
          if (act?.kind !== 'remove') return;
          await api.delete(`${TERRITORIES}/${act.territory.id}`);
          notifications.show({ color: 'green', message: `Se eliminó ${act.territory.name}.` });
          await refresh();
        }}
      >
        <Text>{act?.kind === 'remove' ? `${act.territory.name} se elimina solo si nada lo usa: ni puestos, ni personas, ni sub-territorios.` : ''}</Text>
      </ConfirmDialog>
    </>
  );
}
