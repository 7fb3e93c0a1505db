import { PassThrough, type Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { z } from 'zod';
import { AppError } from './errors';

/** How many rejected rows an import answer lists (all are counted). */
export const MAX_REPORTED_REJECTIONS = 1000;

export const rejectedRows = {
  rejected: z.array(z.object({ line: z.number().int(), message: z.string() })).describe(`the first ${MAX_REPORTED_REJECTIONS} rejected rows`),
  rejectedCount: z.number().int(),
};

export interface Rejections {
  rejected: { line: number; message: string }[];
  rejectedCount: number;
}

/** Counts a rejected row and lists it while the list is short. */
export function reject(answer: Rejections, line: number, message: string): void {
  answer.rejectedCount++;
  if (answer.rejected.length < MAX_REPORTED_REJECTIONS) answer.rejected.push({ line, message });
}

/** A row's zod issues as one line of the answer: `field: message; field: message`. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

/** A header cell as imports match it: without case, accents, spaces, dots, dashes or underscores (`Teléfono`, `DIRECCIÓN`, `codigo_municipio`). */
export const headerKey = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\s_.-]+/g, '')
    .toLowerCase();

/**
 * The file's header as the names rows are keyed by: each known column under its one name (the
 * first of a repeated one), anything else under a name no row field uses.
 */
export function headerReader<C extends string>(columns: Record<C, readonly string[]>): (given: string[]) => string[] {
  const byHeader = new Map<string, C>(Object.entries<readonly string[]>(columns).flatMap(([column, names]) => names.map((name) => [headerKey(name), column as C])));
  return (given) => {
    const seen = new Set<C>();
    return given.map((name, index) => {
      const column = byHeader.get(headerKey(name));
      if (!column || seen.has(column)) return `ignored:${index}`;
      seen.add(column);
      return column;
    });
  };
}

/**
 * Reads an uploaded CSV as it streams in: a header row, then each data row handed to `onRow` with
 * its line number (the header is line 1). A problem with the file itself refuses all of it before
 * anything is written: more than `maxRows` data rows (413 `too_many_rows`), a header without a
 * required column (400 `missing_columns`), CSV that cannot be parsed (400 `malformed_csv`). The
 * rest of the body is drained after a refusal, so the client reads the answer instead of a reset.
 */
export async function readCsvRows(
  csv: Readable,
  options: {
    maxRows: number;
    requiredColumns?: readonly string[];
    maxRecordSize?: number;
    /**
     * Reads the header row before any data row: returns the names the rows are keyed by (an import
     * that accepts a column under several names gives each its one name), or throws an `AppError`
     * refusing the file. Runs before `requiredColumns` is checked against what it returns.
     */
    header?: (columns: string[]) => string[];
    /** Read the header line first and split on whichever of these it holds most of (outside quotes): the Registraduría's files come with `,` or `;`. */
    delimiters?: readonly string[];
  },
  onRow: (record: Record<string, string>, line: number) => void,
): Promise<void> {
  const required = options.requiredColumns ?? [];
  const { delimiter, source } = options.delimiters?.length ? await sniffDelimiter(csv, options.delimiters) : { delimiter: ',', source: csv };
  const parser = source.pipe(
    parse({
      columns: (given: string[]) => {
        const header = options.header ? options.header(given) : given;
        const missing = required.filter((column) => !header.includes(column));
        if (missing.length) throw missingColumns(missing);
        return header;
      },
      skip_empty_lines: true,
      trim: true,
      bom: true,
      delimiter,
      relax_column_count: true,
      max_record_size: options.maxRecordSize ?? 10_000,
    }),
  );
  let line = 1;
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      line++;
      if (line - 1 > options.maxRows) throw tooManyRows(options.maxRows);
      onRow(record, line);
    }
  } catch (error) {
    source.unpipe();
    source.resume();
    if (error instanceof CsvError) {
      throw new AppError(400, 'malformed_csv', 'Malformed CSV', `The CSV could not be read (${error.message}); nothing was imported.`);
    }
    throw error;
  }
}

/**
 * Reads the body up to the end of its first line, picks the delimiter that line holds most of
 * outside quotes (the first given on a tie), and gives back a stream of the whole body again.
 */
async function sniffDelimiter(csv: Readable, delimiters: readonly string[]): Promise<{ delimiter: string; source: Readable }> {
  const chunks: Buffer[] = [];
  const ended = await new Promise<boolean>((resolve, fail) => {
    const finish = (atEnd: boolean) => {
      csv.off('data', onData);
      csv.off('end', onEnd);
      csv.off('error', fail);
      csv.pause();
      resolve(atEnd);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      if (bytes.includes(10)) finish(false);
    };
    const onEnd = () => finish(true);
    csv.on('data', onData);
    csv.once('end', onEnd);
    csv.once('error', fail);
  });
  const head = Buffer.concat(chunks);
  const firstLine = head.subarray(0, head.includes(10) ? head.indexOf(10) : head.length).toString('utf8');
  const outsideQuotes = firstLine.replace(/"[^"]*"/g, '');
  let delimiter = delimiters[0]!;
  for (const candidate of delimiters) if (outsideQuotes.split(candidate).length > outsideQuotes.split(delimiter).length) delimiter = candidate;
  const source = new PassThrough();
  if (ended || csv.readableEnded) source.end(head);
  else {
    source.write(head);
    csv.pipe(source);
  }
  return { delimiter, source };
}

function tooManyRows(maxRows: number): AppError {
  return new AppError(
    413,
    'too_many_rows',
    'Too many rows',
    `The import takes at most ${maxRows.toLocaleString('en')} data rows and this file has more; nothing was imported. Split the file and send each part.`,
    undefined,
    { maxRows },
  );
}

function missingColumns(missing: string[]): AppError {
  return new AppError(400, 'missing_columns', 'Missing columns', `The header row has no ${missing.join(', ')} column; nothing was imported.`, undefined, { missing });
}
