/**
 * Reading a CSV in the browser to show it before it is sent (an import's first rows), the way the
 * server's reader takes it: quoted fields with `""` for a quote, line breaks inside quotes, empty
 * lines skipped (not lines of empty cells), cells trimmed. Excel in Spanish separates with `;`: the delimiter is the one the
 * header line uses, and `toCsv` writes the rows again with commas for an API that reads only those.
 */

export interface CsvTable {
  /** `,` or `;`, as the header line uses. */
  delimiter: ',' | ';';
  header: string[];
  /** Data rows, in order, each with its line as the server counts it (the header is line 1, empty lines not counted). */
  rows: { line: number; cells: string[] }[];
  /** Data rows in the whole file (`rows` may stop at `maxRows`). */
  rowCount: number;
}

function detectDelimiter(text: string): ',' | ';' {
  let inQuotes = false;
  let commas = 0;
  let semicolons = 0;
  for (const char of text) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\n' || char === '\r')) break;
    else if (!inQuotes && char === ',') commas++;
    else if (!inQuotes && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** Every record of the text, as arrays of cells (quotes removed, not trimmed). */
function* records(text: string, delimiter: string): Generator<string[]> {
  let cells: string[] = [];
  let cell = '';
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inQuotes) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') inQuotes = false;
      else cell += char;
    } else if (char === '"') inQuotes = true;
    else if (char === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      yield cells;
      cells = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || cells.length) {
    cells.push(cell);
    yield cells;
  }
}

/** An empty line (the server skips those; a line of empty cells is a row). */
const isEmpty = (cells: string[]) => cells.length === 1 && cells[0]!.trim() === '';

/** The header and the first `maxRows` data rows (all of them counted). */
export function readCsv(text: string, maxRows = Number.POSITIVE_INFINITY): CsvTable {
  const delimiter = detectDelimiter(text);
  let header: string[] | undefined;
  const rows: CsvTable['rows'] = [];
  let line = 1;
  let rowCount = 0;
  for (const cells of records(text, delimiter)) {
    if (isEmpty(cells)) continue;
    const trimmed = cells.map((cell) => cell.trim());
    if (!header) {
      header = trimmed;
      continue;
    }
    line++;
    rowCount++;
    if (rows.length < maxRows) rows.push({ line, cells: trimmed });
  }
  return { delimiter, header: header ?? [], rows, rowCount };
}

const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);

/** The text again with commas between cells (for a file Excel wrote with `;`), empty lines dropped: the server counts the same lines. */
export function withCommas(text: string): string {
  const delimiter = detectDelimiter(text);
  if (delimiter === ',') return text;
  const out: string[] = [];
  for (const cells of records(text, delimiter)) if (!isEmpty(cells)) out.push(cells.map(quoted).join(','));
  return `${out.join('\n')}\n`;
}
