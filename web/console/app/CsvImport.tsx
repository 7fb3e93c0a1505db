/**
 * The pieces every CSV import screen shares (people, polling stations, voters): the file read in
 * the browser and its first rows shown before anything is sent, the figures of the API's answer,
 * and its rejected rows listed by line. Each screen says its own problems in Spanish.
 */
import { Alert, Card, List, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { readCsv, withCommas, type CsvTable } from './csv';
import { readTextFile } from './files';
import { formatNumber } from './format';

/** A file chosen for an import, read here. */
export interface ChosenCsv {
  name: string;
  /** The text as it is sent: UTF-8, with commas. */
  body: string;
  table: CsvTable;
  /** What reading it changed (its encoding, its separator), to say above the preview. */
  notes: string[];
}

/**
 * The file staff chose, read in the browser (Excel's Windows encoding and `;` separator taken as
 * they come), its first `previewRows` rows kept for the preview. `version` changes with each choice,
 * even of a file with the same name, so a screen knows a review was of another file.
 */
export function useCsvFile(previewRows = 10) {
  const [file, setFile] = useState<ChosenCsv | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  const choose = async (chosen: File | null) => {
    setFileError(null);
    setVersion((value) => value + 1);
    if (!chosen) return setFile(null);
    const { text, encoding } = await readTextFile(chosen);
    const table = readCsv(text, previewRows);
    const notes: string[] = [];
    if (encoding === 'windows-1252') notes.push('El archivo no estaba guardado en UTF-8: se leyó como lo guarda Excel en Windows, para que las tildes y la ñ lleguen bien.');
    if (table.delimiter === ';') notes.push('El archivo separa las columnas con punto y coma (Excel en español): se enviará separado por comas, con las mismas filas.');
    if (!table.header.length) {
      setFile(null);
      return setFileError('El archivo está vacío.');
    }
    setFile({ name: chosen.name, body: withCommas(text), table, notes });
  };

  return { file, fileError, setFileError, version, choose };
}

/** The chosen file's first rows, as read on this computer, before anything is sent. */
export function CsvPreview({ file, headingId = 'vista-previa' }: { file: ChosenCsv; headingId?: string }) {
  const { table } = file;
  return (
    <Card withBorder component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="xs">
        Vista previa del archivo
      </Title>
      <Text size="sm" mb="xs">
        {file.name}: {formatNumber(table.rowCount)} {table.rowCount === 1 ? 'fila' : 'filas'} de datos
        {table.rowCount > table.rows.length ? `; estas son las primeras ${table.rows.length}` : ''}. Aún no se ha enviado nada.
      </Text>
      {file.notes.map((note) => (
        <Alert key={note} color="blue" mb="xs">
          {note}
        </Alert>
      ))}
      <Table.ScrollContainer minWidth={600}>
        <Table striped verticalSpacing={4} fz="sm">
          <Table.Caption>Primeras filas, tal como se leyeron en este computador</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Línea</Table.Th>
              {table.header.map((name, index) => (
                <Table.Th key={`${name}-${index}`}>{name}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {table.rows.map((row) => (
              <Table.Tr key={row.line}>
                <Table.Td>{row.line}</Table.Td>
                {table.header.map((_, index) => (
                  <Table.Td key={index}>{row.cells[index] ?? ''}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

/** A row's problems as a screen says them, and anything to show after them (a link to the person named). */
export interface DescribedRow {
  problems: string[];
  after?: ReactNode;
}

/** Rejected rows (or warnings) by line, each with every problem it has; the API lists the first thousand and counts them all. */
export function LineMessages({
  title,
  items,
  total,
  tone,
  describe,
}: {
  title: string;
  items: { line: number; message: string }[];
  total: number;
  tone: 'red' | 'orange';
  describe: (message: string) => DescribedRow;
}) {
  if (!total) return null;
  return (
    <section aria-label={title}>
      <Title order={3} size="h5" c={`${tone}.9`} mb={4}>
        {title} ({formatNumber(total)})
      </Title>
      <Table.ScrollContainer minWidth={500}>
        <Table verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={70}>Línea</Table.Th>
              <Table.Th>{tone === 'red' ? 'Problemas' : 'Aviso'}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((item) => {
              const { problems, after } = describe(item.message);
              return (
                <Table.Tr key={`${item.line}:${item.message}`}>
                  <Table.Td>{item.line}</Table.Td>
                  <Table.Td>
                    {problems.length === 1 ? (
                      problems[0]
                    ) : (
                      <List size="sm" spacing={0}>
                        {problems.map((problem) => (
                          <List.Item key={problem}>{problem}</List.Item>
                        ))}
                      </List>
                    )}
                    {after}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {total > items.length && (
        <Text size="sm" c="dimmed">
          Y {formatNumber(total - items.length)} más: corrija estas y revise de nuevo.
        </Text>
      )}
    </section>
  );
}

/** An import answer's counts, large, each with its name. */
export function ImportFigures({ figures }: { figures: readonly (readonly [string, number])[] }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: figures.length }} spacing="xs" mb="sm">
      {figures.map(([name, value]) => (
        <div key={name}>
          <Text fz={24} fw={700} lh={1.2}>
            {formatNumber(value)}
          </Text>
          <Text size="xs" c="dimmed">
            {name}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}
