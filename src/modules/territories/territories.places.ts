/*
 * Place names as the Registraduría's files write them (upper case, often without accents, comunas
 * with their number glued on: "01COMUNA 1 POPULAR") and as the campaign shows them.
 */

/** A place name as imports match it: without accents, case, punctuation or repeated spaces. */
export function placeKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Words written in lower case inside a name ("San Juan de Urabá"). */
const PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'el', 'y', 'e', 'en', 'a', 'al']);

/** Abbreviations the files put before a comuna's name, and the word they stand for. */
const COMMUNE_WORDS: readonly [RegExp, string][] = [
  [/^LOC(?:ALIDAD)?(?:\b|(?=\d))\.?\s*/i, 'Localidad '],
  [/^CORR(?:EGIMIENTO|EGIMIENTIO|EG|E)?(?:\b|(?=\d))\.?\s*/i, 'Corregimiento '],
  [/^COM(?:UNA)?(?:\b|(?=\d))\.?\s*/i, 'Comuna '],
];

/**
 * A name from an upper-case file as people write it: "SAN JUAN NEPOMUCENO" → "San Juan
 * Nepomuceno", "BOGOTA D.C." → "Bogota D.C." (initials stay capitals). A name already in mixed
 * case is kept as given.
 */
export function placeName(raw: string): string {
  const name = raw.replace(/\s+/g, ' ').trim();
  if (name !== name.toUpperCase()) return name;
  return name
    .split(' ')
    .map((word, index, words) => {
      if (/^(\p{L}\.){2,}$/u.test(word)) return word;
      const lower = word.toLocaleLowerCase('es-CO');
      // After a number a particle begins the name proper ("Localidad 2 La Virgen").
      if (index > 0 && PARTICLES.has(lower) && !/^\d+$/.test(words[index - 1]!)) return lower;
      return lower.charAt(0).toLocaleUpperCase('es-CO') + lower.slice(1);
    })
    .join(' ');
}

/**
 * A comuna cell of the Registraduría's files: the number it starts with, kept apart, and a name
 * people read ("01LOC. 1 HISTORICA Y DEL CARIBE" → `01`, "Localidad 1 Historica y del Caribe").
 * Undefined for an empty cell.
 */
export function communeCell(raw: string): { number: string | null; name: string } | undefined {
  const cell = raw.replace(/\s+/g, ' ').trim();
  if (!cell) return undefined;
  const match = /^(\d+)\s*(.*)$/.exec(cell);
  let rest = (match ? match[2]! : cell).trim();
  const number = match ? match[1]! : null;
  if (!rest) return { number, name: `Comuna ${number}` };
  for (const [pattern, word] of COMMUNE_WORDS) {
    if (pattern.test(rest)) {
      rest = `${word}${rest.replace(pattern, '')}`.trim();
      break;
    }
  }
  return { number, name: placeName(rest.toUpperCase() === rest ? rest : rest.toUpperCase()) };
}
