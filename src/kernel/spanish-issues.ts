/*
 * Zod's verdicts in plain Spanish, for whoever reads them on a screen: staff at the console's forms
 * and citizens at the landing page and the PQRS form. Zod's own Spanish locale reads "Demasiado
 * pequeño: se esperaba que texto tuviera >=10 caracteres"; the common rules are said here, and the
 * rest falls back to that locale. No server dependency: the console imports this file.
 */
import type { z } from 'zod';
import { es } from 'zod/locales';

type Issue = z.core.$ZodIssue;

const count = (n: number | bigint, one: string, many: string) => `${Number(n).toLocaleString('es-CO')} ${Number(n) === 1 ? one : many}`;

/** Formats a rule of that name asks for, as a person at the form would read it. */
const FORMAT_WORDS: Record<string, string> = {
  email: 'Escriba un correo válido, como nombre@dominio.co.',
  url: 'Escriba una dirección web completa, como https://campana.co.',
  uuid: 'Elija una opción de la lista.',
  date: 'Escriba una fecha válida.',
  datetime: 'Escriba una fecha y hora válidas.',
  time: 'Escriba una hora válida.',
};

/**
 * The common rules said plainly (zod's Spanish locale reads "Demasiado pequeño: se esperaba que
 * texto tuviera >=10 caracteres"); what is not here falls back to that locale.
 */
export function plainSpanish(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'too_small': {
      const { minimum, inclusive = true, origin } = issue;
      if (origin === 'string') return Number(minimum) <= 1 ? 'Escriba algo en este campo.' : `Escriba al menos ${count(minimum, 'carácter', 'caracteres')}.`;
      if (origin === 'array' || origin === 'set') return `Elija al menos ${count(minimum, 'opción', 'opciones')}.`;
      if (origin === 'number' || origin === 'bigint')
        return inclusive ? `Escriba ${Number(minimum).toLocaleString('es-CO')} o más.` : `Escriba un número mayor que ${Number(minimum).toLocaleString('es-CO')}.`;
      return undefined;
    }
    case 'too_big': {
      const { maximum, inclusive = true, origin } = issue;
      if (origin === 'string') return `Escriba como mucho ${count(maximum, 'carácter', 'caracteres')}.`;
      if (origin === 'array' || origin === 'set') return `Elija como mucho ${count(maximum, 'opción', 'opciones')}.`;
      if (origin === 'number' || origin === 'bigint')
        return inclusive ? `Escriba ${Number(maximum).toLocaleString('es-CO')} o menos.` : `Escriba un número menor que ${Number(maximum).toLocaleString('es-CO')}.`;
      return undefined;
    }
    case 'invalid_format':
      return FORMAT_WORDS[issue.format] ?? (issue.format === 'regex' ? 'Revise lo escrito: no tiene la forma que se espera.' : undefined);
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null || issue.input === '') return 'Este campo es obligatorio.';
      if (issue.expected === 'number' || issue.expected === 'int') return 'Escriba un número.';
      return undefined;
    case 'invalid_value':
      return 'Elija una de las opciones.';
    case 'not_multiple_of':
      return `Escriba un múltiplo de ${Number(issue.divisor).toLocaleString('es-CO')}.`;
    default:
      return undefined;
  }
}

const locale = es().localeError;

/** An error map for `safeParse(value, { error: spanishError })`: `plainSpanish`, else zod's Spanish locale. */
export function spanishError(issue: Parameters<typeof locale>[0]): string | undefined {
  const said = plainSpanish(issue as Issue) ?? locale(issue);
  return typeof said === 'string' ? said : said?.message;
}
