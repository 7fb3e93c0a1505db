/**
 * The CSV imports report each row's problems as `field: problem; field: problem`, in English (the
 * API's words). Staff read them in Spanish: each screen lists the problems it knows as patterns, and
 * the field names it knows; a problem no list knows yet is shown as the API wrote it rather than lost.
 * The Spanish never holds "; ", which separates a row's problems.
 */
export type ProblemPatterns = readonly (readonly [RegExp, (...groups: string[]) => string])[];

/** A row's message in Spanish, one problem per item. */
export function translateProblems(message: string, patterns: ProblemPatterns, fieldLabels: Readonly<Record<string, string>>): string[] {
  let text = message;
  for (const [pattern, say] of patterns)
    text = text.replace(pattern, (_match, ...groups: unknown[]) => say(...groups.filter((group): group is string => typeof group === 'string')));
  return text.split('; ').map((problem) => {
    const field = /^(\w+): /.exec(problem);
    const named = field?.[1] && fieldLabels[field[1]];
    const spanish = named ? `${named}${problem.slice(field[1]!.length)}` : problem;
    return spanish.charAt(0).toUpperCase() + spanish.slice(1);
  });
}

/** What every import says of a file refused as a whole for the kernel's own reasons (unreadable, too long), or null. */
export function csvFileProblem(code: string | undefined, problem: Record<string, unknown>): string | null {
  switch (code) {
    case 'malformed_csv':
      return 'El archivo no se pudo leer como CSV (comillas sin cerrar o una fila demasiado larga). No se importó nada.';
    case 'too_many_rows':
      return `El archivo tiene más de ${typeof problem.maxRows === 'number' ? problem.maxRows.toLocaleString('es-CO') : '100.000'} filas. Divídalo y envíe cada parte. No se importó nada.`;
    default:
      return null;
  }
}
