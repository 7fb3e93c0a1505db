import { Alert, Button, Card, FileInput, Group, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, ApiError, queryClient } from '../app/api';
import { CsvPreview, ImportFigures, LineMessages, useCsvFile } from '../app/CsvImport';
import { formatNumber } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { GOTV } from './gotv';
import { gotvFileProblem, gotvRowProblems } from './importMessages';

type Kind = 'stations' | 'voters';

/** What the stations' and voters' imports answer (`dryRun: true`: nothing was written). */
interface Answer {
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  rejected: { line: number; message: string }[];
  rejectedCount: number;
}

const PREVIEW_ROWS = 10;

/** Each file's columns, in the page's words; the names are the API's (`docs/api.md`). */
const COLUMNS: Record<Kind, [string, string][]> = {
  stations: [
    ['code', 'Código del puesto. Obligatorio: un código nuevo registra el puesto, uno registrado lo cambia.'],
    ['name', 'Nombre del puesto (para uno nuevo).'],
    ['address', 'Dirección.'],
    ['territoryCode', 'Código del territorio donde queda (DANE), o territoryId con su id.'],
    ['lat, lng', 'Coordenadas, con punto decimal (para uno nuevo: es un punto del mapa).'],
    ['tables', 'Mesas (para uno nuevo).'],
    ['registeredVoters', 'Potencial electoral: inscritos en el puesto (para uno nuevo).'],
    ['previousTurnout', 'Votantes del puesto en la elección anterior comparable, para la proyección; no más que los inscritos.'],
  ],
  voters: [
    ['name', 'Nombre completo, de 2 a 160 caracteres.'],
    ['documentId', 'Cédula, de 5 a 12 dígitos; los puntos, espacios y guiones no cuentan. Una cédula registrada actualiza a ese votante.'],
    ['phone', 'Celular (opcional).'],
    ['pollingStationCode', 'Código del puesto donde vota: el puesto debe estar registrado.'],
    ['tableNumber', 'Mesa (opcional; no más que las mesas del puesto).'],
    ['priority', 'low, normal o high (vacía: normal).'],
  ],
};

const INTRO: Record<Kind, string> = {
  stations:
    'Dos archivos usan esta importación: el de todos los puestos (code,name,lat,lng,tables,registeredVoters…), o solo code,previousTurnout con los votantes de cada puesto en la elección anterior. Las celdas vacías no cambian nada. También se lee el archivo de puestos de la Registraduría tal como viene. Hasta 20.000 filas.',
  voters:
    'Los apoyos confirmados, cada uno con el puesto donde vota (primero importe los puestos). Un archivo corregido se puede enviar de nuevo: lo que ya está igual no cambia. Hasta 100.000 filas.',
};

const NOUN: Record<Kind, [string, string]> = { stations: ['puesto', 'puestos'], voters: ['votante', 'votantes'] };

function ColumnsHelp({ kind }: { kind: Kind }) {
  return (
    <Card withBorder component="section" aria-labelledby={`columnas-${kind}`}>
      <Title order={2} size="h4" id={`columnas-${kind}`} mb="xs">
        Columnas que se leen
      </Title>
      <Text size="sm" mb="xs">
        {INTRO[kind]}
      </Text>
      <Table verticalSpacing={4} fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Columna</Table.Th>
            <Table.Th>Qué lleva</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {COLUMNS[kind].map(([column, help]) => (
            <Table.Tr key={column}>
              <Table.Td>
                <code>{column}</code>
              </Table.Td>
              <Table.Td>{help}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

function Outcome({ kind, answer }: { kind: Kind; answer: Answer }) {
  const dry = answer.dryRun;
  const [one, many] = NOUN[kind];
  const written = answer.created + answer.updated + answer.unchanged;
  return (
    <Card withBorder component="section" aria-labelledby={`resultado-${kind}`}>
      <Title order={2} size="h4" id={`resultado-${kind}`} mb="xs">
        {dry ? 'Revisión: así quedaría' : 'Importación terminada'}
      </Title>
      <Alert color={answer.rejectedCount ? 'orange' : 'green'} role="status" mb="sm">
        {dry
          ? answer.rejectedCount
            ? `No se escribió nada. ${formatNumber(answer.rejectedCount)} ${answer.rejectedCount === 1 ? 'fila tiene errores y no se importaría' : 'filas tienen errores y no se importarían'}; las demás sí. Corrija el archivo y revise de nuevo, o importe sin ellas.`
            : 'No se escribió nada. Todas las filas se pueden importar.'
          : `Se importaron ${formatNumber(written)} ${written === 1 ? one : many}${answer.rejectedCount ? `; ${formatNumber(answer.rejectedCount)} filas con errores quedaron por fuera` : ''}.`}
      </Alert>
      <ImportFigures
        figures={[
          [dry ? 'Se crearían' : 'Creados', answer.created],
          [dry ? 'Se actualizarían' : 'Actualizados', answer.updated],
          ['Sin cambios', answer.unchanged],
          [dry ? 'Filas con errores (no se importarían)' : 'Filas con errores (no se importaron)', answer.rejectedCount],
        ]}
      />
      <LineMessages title="Errores por línea" items={answer.rejected} total={answer.rejectedCount} tone="red" describe={gotvRowProblems} />
    </Card>
  );
}

/** One file's import: chosen and previewed here, checked by the API's dry run line by line, then written. */
function FileImport({ kind }: { kind: Kind }) {
  const { file, fileError, setFileError, version, choose } = useCsvFile(PREVIEW_ROWS);
  const [answer, setAnswer] = useState<Answer | null>(null);
  /** The file a dry run checked: "Importar" writes only a file reviewed, unchanged since. */
  const [reviewed, setReviewed] = useState<number | null>(null);
  const [running, setRunning] = useState<'review' | 'import' | null>(null);
  const path = kind === 'stations' ? `${GOTV}/polling-stations/import` : `${GOTV}/voters/import`;

  const send = async (dryRun: boolean) => {
    if (!file) return setFileError('Elija primero el archivo.');
    setFileError(null);
    setRunning(dryRun ? 'review' : 'import');
    try {
      const result = await api.postFile<Answer>(`${path}?dryRun=${dryRun}`, new Blob([file.body], { type: 'text/csv' }), 300_000);
      setAnswer(result);
      setReviewed(dryRun ? version : null);
      if (!dryRun) void queryClient.invalidateQueries({ queryKey: ['gotv'] });
    } catch (error) {
      setAnswer(null);
      setReviewed(null);
      const problem = error instanceof ApiError ? error.problem : undefined;
      setFileError((problem && gotvFileProblem(problem.code, problem)) ?? problemMessage(error));
    } finally {
      setRunning(null);
    }
  };

  const canImport = file !== null && reviewed === version;
  return (
    <Stack gap="md">
      <ColumnsHelp kind={kind} />
      <Card withBorder component="section" aria-labelledby={`archivo-${kind}`}>
        <Title order={2} size="h4" id={`archivo-${kind}`} mb="xs">
          Archivo
        </Title>
        <Stack gap="sm">
          <FileInput
            label={kind === 'stations' ? 'Archivo CSV de puestos' : 'Archivo CSV de votantes'}
            description="Desde Excel: Guardar como → CSV UTF-8 (delimitado por comas). También se lee el CSV con punto y coma."
            placeholder="Elegir archivo"
            accept=".csv,text/csv"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el archivo' }}
            onChange={(chosen) => {
              setAnswer(null);
              setReviewed(null);
              void choose(chosen);
            }}
          />
          {fileError && (
            <Alert color="red" role="alert">
              {fileError}
            </Alert>
          )}
          {file && <CsvPreview file={file} headingId={`vista-previa-${kind}`} />}
          <Group>
            <Button onClick={() => void send(true)} loading={running === 'review'} disabled={!file || running === 'import'}>
              Revisar
            </Button>
            <Button onClick={() => void send(false)} loading={running === 'import'} disabled={!canImport || running === 'review'}>
              Importar
            </Button>
            {!canImport && file && (
              <Text size="sm" c="dimmed">
                Revise el archivo antes de importarlo.
              </Text>
            )}
          </Group>
        </Stack>
      </Card>
      {answer && <Outcome kind={kind} answer={answer} />}
    </Stack>
  );
}

/** `/dia-electoral/importar`: the polling stations' and confirmed voters' files, each previewed, checked without writing, then imported. */
export default function ImportPage() {
  const [params, setParams] = useSearchParams();
  const kind: Kind = params.get('archivo') === 'votantes' ? 'voters' : 'stations';
  return (
    <>
      <PageTitle>Importar puestos y votantes</PageTitle>
      <Tabs value={kind} onChange={(value) => setParams(value === 'voters' ? { archivo: 'votantes' } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="stations">Puestos de votación</Tabs.Tab>
          <Tabs.Tab value="voters">Votantes confirmados</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="stations">
          <FileImport kind="stations" />
        </Tabs.Panel>
        <Tabs.Panel value="voters">
          <FileImport kind="voters" />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
