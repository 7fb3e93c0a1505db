import { createRequire } from 'node:module';

const requireModule = createRequire(__filename);

/**
 * A library that only some work needs (a spreadsheet export, a template's compile, scoring posts'
 * sentiment), loaded the first time it is asked for instead of when the process starts: each of
 * these costs 100–400 ms of every start (and of every test file) and megabytes of heap otherwise.
 * `onFirstUse<typeof import('exceljs')>('exceljs')` gives a function that returns the module's
 * exports, loading them on its first call; synchronous, so synchronous callers can use it too.
 */
export function onFirstUse<Exports>(specifier: string): () => Exports {
  let loaded: { exports: Exports } | undefined;
  return () => {
    loaded ??= { exports: requireModule(specifier) as Exports };
    return loaded.exports;
  };
}
