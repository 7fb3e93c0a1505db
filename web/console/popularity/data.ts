import type { z } from 'zod';
import type { Compliance } from '../../../src/modules/popularity/popularity.compliance';
import type { SwotQuadrant } from '../../../src/modules/popularity/popularity.constants';
import { popularityPolicy } from '../../../src/modules/popularity/popularity.policy';
import type { CreatePollInput, dashboardView, pollView, swotItemView, swotView } from '../../../src/modules/popularity/popularity.schemas';
import type { competitorView } from '../../../src/modules/social/social.schemas';
import type { Section } from '../app/SectionTabs';

export const POLLS_PATH = '/api/popularity/polls';
export const DASHBOARD_PATH = '/api/popularity/dashboard';
export const SWOT_PATH = '/api/popularity/swot';
export const COMPETITORS_PATH = '/api/social-monitoring/competitors?active=true&limit=100';

export type Poll = z.output<typeof pollView>;
export type PopularityDashboard = z.output<typeof dashboardView>;
export type Swot = z.output<typeof swotView>;
export type SwotItem = z.output<typeof swotItemView>;
export type Competitor = z.output<typeof competitorView>;

export const SECTIONS: readonly Section[] = [
  { path: '/popularidad', label: 'Panorama', roles: popularityPolicy.roles('read') },
  { path: '/popularidad/encuestas', label: 'Encuestas', roles: popularityPolicy.roles('read') },
  { path: '/popularidad/dofa', label: 'DOFA', roles: popularityPolicy.roles('read') },
];

export const SCOPE_LABELS: Record<Poll['scope'], string> = {
  national: 'Nacional',
  department: 'Departamental',
  municipality: 'Municipal',
  locality: 'Local (comuna o localidad)',
};

export const METHOD_LABELS: Record<Poll['method'], string> = {
  face_to_face: 'Presencial',
  phone: 'Telefónica',
  online: 'En línea',
  mixed: 'Mixta',
};

export const OPTION_LABELS: Record<NonNullable<Poll['results'][number]['option']>, string> = {
  blank: 'Voto en blanco',
  undecided: 'Indecisos',
  none: 'Ninguno',
};

/** Fortalezas, oportunidades, debilidades, amenazas: the board's order, the strengths and opportunities first. */
export const QUADRANTS: { quadrant: SwotQuadrant; label: string; hint: string }[] = [
  { quadrant: 'strength', label: 'Fortalezas', hint: 'Lo que tenemos a favor' },
  { quadrant: 'opportunity', label: 'Oportunidades', hint: 'Lo que el entorno nos ofrece' },
  { quadrant: 'weakness', label: 'Debilidades', hint: 'Lo que tenemos en contra' },
  { quadrant: 'threat', label: 'Amenazas', hint: 'Lo que el entorno pone en riesgo' },
];

export const COMPONENT_LABELS: Record<string, string> = {
  pollAverage: 'Promedio de encuestas',
  favourabilityNet: 'Favorabilidad neta',
  engagementShare: 'Participación en la conversación',
  sentiment: 'Sentimiento',
  momentum: 'Impulso (14 días)',
};

/** The fields of the technical sheet a compliance problem concerns: beside it the screens say the problem. */
export type SheetField = keyof Pick<
  CreatePollInput,
  'pollster' | 'sponsor' | 'fieldworkStart' | 'fieldworkEnd' | 'publishedAt' | 'universe' | 'sampleSize' | 'probabilistic' | 'marginOfError' | 'confidenceLevel' | 'question'
>;

/** Each Ley 2494 check's code (popularity.compliance.ts) and the field it is about. */
const PROBLEM_FIELDS: Record<string, SheetField> = {
  not_probabilistic: 'probabilistic',
  margin_above_national_limit: 'marginOfError',
  margin_above_territorial_limit: 'marginOfError',
  margin_inconsistent_with_sample: 'marginOfError',
  confidence_below_95: 'confidenceLevel',
  missing_sponsor: 'sponsor',
  missing_universe: 'universe',
  missing_question: 'question',
  fieldwork_after_publication: 'fieldworkEnd',
  fieldwork_dates_reversed: 'fieldworkStart',
};

export type ProblemsByField = Partial<Record<SheetField, string[]>> & { other: string[] };

/** The problems sorted by the field each concerns; a code the screen does not know goes to `other`, so none is lost. */
export function problemsByField(compliance: Compliance | null | undefined): ProblemsByField {
  const out: ProblemsByField = { other: [] };
  for (const problem of compliance?.problems ?? []) {
    const field = PROBLEM_FIELDS[problem.code];
    if (field) (out[field] ??= []).push(problem.message);
    else out.other.push(problem.message);
  }
  return out;
}

const points = new Intl.NumberFormat('es-CO', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** 34,2 (percentage points, one decimal) */
export const formatPoints = (value: number): string => points.format(value);
/** +3,1 / −2,0 (a change or a lead in points) */
export const formatSigned = (value: number): string => `${value > 0 ? '+' : value < 0 ? '−' : ''}${points.format(Math.abs(value))}`;
