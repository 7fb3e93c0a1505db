import { Alert, Anchor, Button, Card, FileInput, Group, SimpleGrid, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { CONTACT_IMPORT_MAX_ROWS, IMPORT_COLUMNS, importQuery } from '../../../src/modules/audience/audience.import.schemas';
import { api, ApiError, queryClient } from '../app/api';
import { CsvPreview, ImportFigures, LineMessages, useCsvFile, type DescribedRow } from '../app/CsvImport';
import { formatNumber, formatPhone, plural } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { fileProblem, rowProblems } from './importMessages';
import { peopleProblem } from './problems';
import { PEOPLE, personPath, type ImportAnswer } from './types';

/** What each accepted column holds, in the page's words (the names come from the server's own list). */
const COLUMN_HELP: Record<keyof typeof IMPORT_COLUMNS, string> = {
  name: 'Nombre completo, de 2 a 160 caracteres. Obligatorio.',
  phone: 'Celular en cualquier formato (300 123 4567, +57 300-123-4567). Teléfono o correo, al menos uno.',
  email: 'Correo electrónico.',
  documentId: 'Cédula, de 5 a 12 dígitos; los puntos, espacios y guiones no cuentan.',
  territoryCode: 'Código del territorio (uno de los dos: código o id).',
  territoryId: 'Id del territorio en Comando.',
  neighbourhood: 'Barrio, hasta 120 caracteres.',
  interests: 'Lista separada por punto y coma, coma o barra (salud; empleo).',
  tags: 'Etiquetas del equipo, separadas igual (líder; transporte).',
  whatsappConsent: 'Si autorizó mensajes por WhatsApp: sí o no (también true/false, 1/0, x).',
  emailConsent: 'Si autorizó correos: sí o no.',
};

/** The name of each column a Colombian spreadsheet most likely has. */
const SPANISH_NAMES: Record<keyof typeof IMPORT_COLUMNS, string> = {
  name: 'nombre',
  phone: 'telefono',
  email: 'correo',
  documentId: 'cedula',
  territoryCode: 'codigoTerritorio',
  territoryId: 'idTerritorio',
  neighbourhood: 'barrio',
  interests: 'intereses',
  tags: 'etiquetas',
  whatsappConsent: 'autorizaWhatsapp',
  emailConsent: 'autorizaCorreo',
};

const PREVIEW_ROWS = 10;
const ACTIONS: Record<string, string> = { create: 'Nueva', update: 'Se actualiza', unchanged: 'Sin cambios' };

function ColumnsHelp() {
  return (
    <Card withBorder component="section" aria-labelledby="columnas">
      <Title order={2} size="h4" id="columnas" mb="xs">
        Columnas que se leen
      </Title>
      <Text size="sm" mb="xs">
        La primera fila del archivo nombra las columnas, en español o en inglés; no importan mayúsculas, tildes, espacios ni guiones bajos (Teléfono, autoriza_whatsapp). Se
        necesita <strong>nombre</strong> y <strong>teléfono</strong> o <strong>correo</strong>. Una columna que no está en esta lista rechaza el archivo, para que una autorización
        mal escrita nunca se pierda. Hasta {formatNumber(CONTACT_IMPORT_MAX_ROWS)} filas.
      </Text>
      <Table.ScrollContainer minWidth={500}>
        <Table verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Columna</Table.Th>
              <Table.Th>También se acepta</Table.Th>
              <Table.Th>Qué lleva</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(Object.entries(IMPORT_COLUMNS) as [keyof typeof IMPORT_COLUMNS, readonly string[]][]).map(([column, names]) => {
              // The Spanish name first: the one people write in Colombia; the server's list has them all.
              const spanish = names.includes(SPANISH_NAMES[column]) ? SPANISH_NAMES[column] : names[0]!;
              return (
                <Table.Tr key={column}>
                  <Table.Td>
                    <code>{spanish}</code>
                  </Table.Td>
                  <Table.Td>
                    {names
                      .filter((name) => name !== spanish)
                      .map((name, index) => (
                        <span key={name}>
                          {index > 0 && ', '}
                          <code>{name}</code>
                        </span>
                      ))}
                  </Table.Td>
                  <Table.Td>{COLUMN_HELP[column]}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="sm" mt="xs">
        Una persona que ya está en la base (por su teléfono o, si no tiene, por su correo) se actualiza, nunca se duplica: lo que la fila trae reemplaza, las celdas vacías no
        borran nada, y los intereses y etiquetas se suman. Una importación nunca vuelve a abrir un canal del que la persona se retiró.
      </Text>
    </Card>
  );
}

/** A row's problems in Spanish, with a link to the person a cédula already belongs to. */
function describeRow(message: string): DescribedRow {
  const { problems, contactIds } = rowProblems(message);
  return {
    problems,
    after: contactIds.map((contactId) => (
      <Anchor key={contactId} component={Link} to={personPath(contactId)} size="sm" ml="xs">
        Ver a esa persona
      </Anchor>
    )),
  };
}

function Outcome({ answer }: { answer: ImportAnswer }) {
  const dry = answer.dryRun;
  const figures: [string, number][] = [
    [dry ? 'Se crearían' : 'Creadas', answer.created],
    [dry ? 'Se actualizarían' : 'Actualizadas', answer.updated],
    ['Sin cambios', answer.unchanged],
    [dry ? 'Autorizaciones que se registrarían' : 'Autorizaciones registradas', answer.consentsRecorded],
    [dry ? 'Filas con errores (no se importarían)' : 'Filas con errores (no se importaron)', answer.rejectedCount],
  ];
  return (
    <Card withBorder component="section" aria-labelledby="resultado">
      <Title order={2} size="h4" id="resultado" mb="xs">
        {dry ? 'Revisión: así quedaría' : 'Importación terminada'}
      </Title>
      <Alert color={answer.rejectedCount ? 'orange' : 'green'} role="status" mb="sm">
        {dry
          ? answer.rejectedCount
            ? `No se escribió nada. ${formatNumber(answer.rejectedCount)} ${answer.rejectedCount === 1 ? 'fila tiene errores y no se importaría' : 'filas tienen errores y no se importarían'}; las demás sí. Corrija el archivo y revise de nuevo, o importe sin ellas.`
            : 'No se escribió nada. Todas las filas se pueden importar.'
          : `Se importaron ${plural(answer.created + answer.updated + answer.unchanged, 'persona', 'personas')}${answer.rejectedCount ? `; ${plural(answer.rejectedCount, 'fila con errores quedó por fuera', 'filas con errores quedaron por fuera')}` : ''}.`}
      </Alert>
      <ImportFigures figures={figures} />
      <Stack gap="md">
        <LineMessages title="Errores por línea" items={answer.rejected} total={answer.rejectedCount} tone="red" describe={describeRow} />
        <LineMessages title="Avisos" items={answer.warnings} total={answer.warningCount} tone="orange" describe={describeRow} />
        {dry && answer.preview.length > 0 && (
          <section aria-label="Así se escribirían">
            <Title order={3} size="h5" mb={4}>
              Así se escribirían las primeras filas
            </Title>
            <Table.ScrollContainer minWidth={600}>
              <Table verticalSpacing={4} fz="sm" striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Línea</Table.Th>
                    <Table.Th>Qué pasa</Table.Th>
                    <Table.Th>Nombre</Table.Th>
                    <Table.Th>Teléfono</Table.Th>
                    <Table.Th>Correo</Table.Th>
                    <Table.Th>Cédula</Table.Th>
                    <Table.Th>Autoriza</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {answer.preview.map((row) => (
                    <Table.Tr key={row.line}>
                      <Table.Td>{row.line}</Table.Td>
                      <Table.Td>
                        {row.contactId ? (
                          <Anchor component={Link} to={personPath(row.contactId)} size="sm">
                            {ACTIONS[row.action]}
                          </Anchor>
                        ) : (
                          ACTIONS[row.action]
                        )}
                      </Table.Td>
                      <Table.Td>{row.name}</Table.Td>
                      <Table.Td>{row.phone ? formatPhone(row.phone) : '—'}</Table.Td>
                      <Table.Td>{row.email ?? '—'}</Table.Td>
                      <Table.Td>{row.documentId ?? '—'}</Table.Td>
                      <Table.Td>{[row.whatsappConsent && 'WhatsApp', row.emailConsent && 'correo'].filter(Boolean).join(' y ') || '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </section>
        )}
        {!dry && answer.importId && (
          <Group>
            <Button component={Link} to={`${PEOPLE}?origen=import&campana=${answer.importId}`} variant="default">
              Ver las personas de esta importación
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** `/personas/importar`: a supporters' file, seen before it is sent, checked by the API's dry run line by line, then written. */
export default function ImportPage() {
  const { file, fileError, setFileError, version: fileVersion, choose: chooseFile } = useCsvFile(PREVIEW_ROWS);
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  /** What the last dry run checked (the file and the proof): "Importar" writes only what was reviewed. */
  const [reviewed, setReviewed] = useState<string | null>(null);
  const { form, submit, submitting, formError } = useSchemaForm(importQuery, {
    initialValues: { consentText: '', consentCollection: '', privacyPolicyUrl: '' },
    emptyAs: { consentText: 'absent', consentCollection: 'absent', privacyPolicyUrl: 'absent' },
    messages: {
      consentCollection: 'El texto que aceptaron y cómo se recogió van juntos: escriba los dos, o ninguno si el archivo no trae autorizaciones.',
      privacyPolicyUrl: 'Escriba la dirección completa de la política (https://…).',
    },
  });
  /** Which of the two buttons is at work (for its spinner). */
  const [running, setRunning] = useState<'review' | 'import'>('review');
  const choose = async (chosen: File | null) => {
    setAnswer(null);
    setReviewed(null);
    await chooseFile(chosen);
  };

  /** The file and proof a dry run checked: "Importar" writes only what was reviewed, unchanged since. */
  const reviewKey = () => JSON.stringify([fileVersion, form.getValues()]);

  /** "Revisar" (the API's dry run, nothing written) or "Importar" (writes). */
  const send = (dryRun: boolean) =>
    submit(async (values) => {
      if (!file) return setFileError('Elija primero el archivo.');
      setFileError(null);
      const query = new URLSearchParams({ dryRun: String(dryRun) });
      for (const name of ['consentText', 'consentCollection', 'privacyPolicyUrl'] as const) if (values[name]) query.set(name, values[name]!.trim());
      try {
        const result = await api.postFile<ImportAnswer>(`/api/audience/contacts/import?${query.toString()}`, new Blob([file.body], { type: 'text/csv' }), 300_000);
        setAnswer(result);
        setReviewed(dryRun ? reviewKey() : null);
        if (!dryRun) {
          void queryClient.invalidateQueries({ queryKey: ['list'] });
          void queryClient.invalidateQueries({ queryKey: ['duplicates'] });
        }
      } catch (error) {
        const problem = error instanceof ApiError ? error.problem : undefined;
        const message = problem ? fileProblem(problem.code, problem) : null;
        setAnswer(null);
        setReviewed(null);
        if (message) return setFileError(message);
        // The proof's fields refused by the server: shown on them.
        if (error instanceof ApiError && error.status === 400) throw error;
        setFileError(peopleProblem(error));
      }
    });
  const review = send(true);
  const write = send(false);

  const canImport = file !== null && reviewed !== null && reviewed === reviewKey();

  return (
    <>
      <PageTitle
        actions={
          <Button component={Link} to={PEOPLE} variant="default">
            Volver a Personas
          </Button>
        }
      >
        Importar personas
      </PageTitle>
      <Stack gap="md">
        <ColumnsHelp />
        <Card withBorder component="section" aria-labelledby="archivo">
          <Title order={2} size="h4" id="archivo" mb="xs">
            Archivo y prueba de la autorización
          </Title>
          <form
            onSubmit={(event) => {
              setRunning('review');
              review(event);
            }}
            noValidate
          >
            <Stack gap="sm">
              <FileInput
                label="Archivo CSV"
                description="Desde Excel: Guardar como → CSV UTF-8 (delimitado por comas). También se lee el CSV con punto y coma."
                placeholder="Elegir archivo"
                accept=".csv,text/csv"
                clearable
                clearButtonProps={{ 'aria-label': 'Quitar el archivo' }}
                onChange={(chosen) => void choose(chosen)}
              />
              {fileError && (
                <Alert color="red" role="alert">
                  {fileError}
                </Alert>
              )}
              {file && <CsvPreview file={file} />}
              <Text size="sm">
                Si el archivo trae personas que autorizan WhatsApp o correo, la ley pide poder probarlo: escriba el texto exacto que aceptaron y dónde y cómo se recogió. Se guarda
                una vez, y cada autorización apunta a él.
              </Text>
              <Textarea
                label="Texto que aceptaron"
                description="Las palabras exactas del formulario o la planilla (de 20 a 4.000 caracteres)."
                autosize
                minRows={3}
                {...form.getInputProps('consentText')}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput label="Cómo y dónde se recogió" placeholder="Ej.: planilla firmada en el evento del 12/10 en Bosa" {...form.getInputProps('consentCollection')} />
                <TextInput label="Política de tratamiento de datos (enlace)" placeholder="https://…" type="url" {...form.getInputProps('privacyPolicyUrl')} />
              </SimpleGrid>
              {formError && (
                <Alert color="red" role="alert">
                  {formError}
                </Alert>
              )}
              <Group>
                <Button type="submit" loading={submitting && running === 'review'} disabled={!file || (submitting && running !== 'review')}>
                  Revisar
                </Button>
                <Button
                  type="button"
                  onClick={() => {
                    setRunning('import');
                    write();
                  }}
                  loading={submitting && running === 'import'}
                  disabled={!canImport || (submitting && running !== 'import')}
                >
                  Importar
                </Button>
                {/* Not after an import: the file went in, and the result below says so. */}
                {!canImport && file && (!answer || answer.dryRun) && (
                  <Text size="sm" c="dimmed">
                    Revise el archivo antes de importarlo.
                  </Text>
                )}
              </Group>
            </Stack>
          </form>
        </Card>
        {answer && <Outcome answer={answer} />}
      </Stack>
    </>
  );
}
