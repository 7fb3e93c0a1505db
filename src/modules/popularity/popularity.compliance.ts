/**
 * Checks a poll's technical sheet against Ley 2494 de 2025 (publishing electoral polls in Colombia).
 * Pure: one sheet in, the list of problems out. Rules and limits: docs/popularity.md — keep the two in step.
 */

export type PollScope = 'national' | 'department' | 'municipality' | 'locality';
export type PollMethod = 'face_to_face' | 'phone' | 'online' | 'mixed';

export interface PollSheet {
  pollster: string;
  sponsor: string | null;
  /** 'YYYY-MM-DD' */
  fieldworkStart: string;
  /** 'YYYY-MM-DD' */
  fieldworkEnd: string;
  /** 'YYYY-MM-DD' */
  publishedAt: string;
  scope: PollScope;
  universe: string | null;
  sampleSize: number;
  method: PollMethod;
  probabilistic: boolean;
  /** Design margin of error, in percentage points. */
  marginOfError: number;
  /** In percent, e.g. 95. */
  confidenceLevel: number;
  question: string | null;
}

export interface ComplianceProblem {
  code: string;
  message: string;
}

export interface Compliance {
  compliant: boolean;
  problems: ComplianceProblem[];
}

/** The legal limits, in percentage points and percent. */
export const LEGAL_LIMITS = {
  nationalMaxMargin: 3,
  territorialMaxMargin: 5,
  minConfidence: 95,
  /** A stated margin below this share of the sample's theoretical margin claims precision the sample cannot give. */
  marginConsistencyTolerance: 0.9,
} as const;

// Acklam's rational approximation of the inverse normal CDF (relative error below 1.2e-9).
const CENTRAL_NUMERATOR = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239] as const;
const CENTRAL_DENOMINATOR = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1] as const;
const TAIL_NUMERATOR = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783] as const;
const TAIL_DENOMINATOR = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1] as const;
const TAIL_BREAK = 0.02425;

/** Evaluates a polynomial given highest-degree coefficient first (Horner's rule). */
function horner(coefficients: readonly number[], x: number): number {
  let sum = 0;
  for (const coefficient of coefficients) sum = sum * x + coefficient;
  return sum;
}

/** The standard normal quantile: the z with P(Z ≤ z) = p, for 0 < p < 1. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile needs 0 < p < 1, got ${p}`);
  if (p < TAIL_BREAK) {
    const q = Math.sqrt(-2 * Math.log(p));
    return horner(TAIL_NUMERATOR, q) / horner(TAIL_DENOMINATOR, q);
  }
  if (p > 1 - TAIL_BREAK) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -horner(TAIL_NUMERATOR, q) / horner(TAIL_DENOMINATOR, q);
  }
  const q = p - 0.5;
  const r = q * q;
  return (horner(CENTRAL_NUMERATOR, r) * q) / horner(CENTRAL_DENOMINATOR, r);
}

/** The two-sided z for a confidence given as a fraction (0.95 → 1.960). */
export function twoSidedZ(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be between 0 and 1 (exclusive), got ${confidence}`);
  return normalQuantile(1 - (1 - confidence) / 2);
}

/**
 * The margin of error, in percentage points, of a proportion from a simple random sample of
 * `sampleSize` at `confidenceLevel` percent, in the worst case p = 0.5: z · √(0.25 / n) · 100.
 */
export function theoreticalMarginOfError(sampleSize: number, confidenceLevel: number): number {
  if (!(Number.isFinite(sampleSize) && sampleSize > 0)) throw new RangeError(`sampleSize must be positive, got ${sampleSize}`);
  if (!(confidenceLevel > 0 && confidenceLevel < 100)) throw new RangeError(`confidenceLevel must be between 0 and 100 (exclusive), got ${confidenceLevel}`);
  return twoSidedZ(confidenceLevel / 100) * Math.sqrt(0.25 / sampleSize) * 100;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A 'YYYY-MM-DD' that names a real day (so that string order is date order). */
function assertDate(field: string, value: string): void {
  if (!ISO_DATE.test(value) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw new RangeError(`${field} must be a date 'YYYY-MM-DD', got "${value}"`);
  }
}

const blank = (text: string | null) => text === null || text.trim() === '';

/**
 * Every rule the sheet breaks, each as its own problem. A sheet that cannot describe a poll at all
 * (bad dates, a non-positive sample, a confidence outside 0–100) throws a RangeError instead: that
 * is invalid input for the caller to reject, not a finding about the poll.
 */
export function checkCompliance(sheet: PollSheet): Compliance {
  assertDate('fieldworkStart', sheet.fieldworkStart);
  assertDate('fieldworkEnd', sheet.fieldworkEnd);
  assertDate('publishedAt', sheet.publishedAt);
  if (!(Number.isFinite(sheet.marginOfError) && sheet.marginOfError >= 0)) throw new RangeError(`marginOfError must be a non-negative number, got ${sheet.marginOfError}`);
  const theoretical = theoreticalMarginOfError(sheet.sampleSize, sheet.confidenceLevel);

  const problems: ComplianceProblem[] = [];
  const flag = (code: string, message: string) => problems.push({ code, message });

  if (!sheet.probabilistic) {
    flag(
      'not_probabilistic',
      'La Ley 2494 de 2025 solo admite como encuesta electoral un estudio probabilístico; un sondeo no probabilístico debe advertir que no es representativo.',
    );
  }
  if (sheet.scope === 'national' && sheet.marginOfError > LEGAL_LIMITS.nationalMaxMargin) {
    flag(
      'margin_above_national_limit',
      `El margen de error (${sheet.marginOfError} puntos) supera el máximo de ${LEGAL_LIMITS.nationalMaxMargin} puntos que la Ley 2494 de 2025 fija para encuestas nacionales.`,
    );
  }
  if (sheet.scope !== 'national' && sheet.marginOfError > LEGAL_LIMITS.territorialMaxMargin) {
    flag(
      'margin_above_territorial_limit',
      `El margen de error (${sheet.marginOfError} puntos) supera el máximo de ${LEGAL_LIMITS.territorialMaxMargin} puntos que la Ley 2494 de 2025 fija para encuestas territoriales.`,
    );
  }
  if (sheet.confidenceLevel < LEGAL_LIMITS.minConfidence) {
    flag('confidence_below_95', `El nivel de confianza (${sheet.confidenceLevel} %) es inferior al mínimo del ${LEGAL_LIMITS.minConfidence} % que exige la Ley 2494 de 2025.`);
  }
  if (sheet.marginOfError < LEGAL_LIMITS.marginConsistencyTolerance * theoretical) {
    flag(
      'margin_inconsistent_with_sample',
      `El margen declarado (${sheet.marginOfError} puntos) es menor que el que permite una muestra de ${sheet.sampleSize} al ${sheet.confidenceLevel} % (${theoretical.toFixed(2)} puntos en muestreo aleatorio simple), y la Ley 2494 de 2025 exige declarar el margen de error de diseño.`,
    );
  }
  if (blank(sheet.sponsor)) {
    flag('missing_sponsor', 'La ficha técnica no indica quién pagó la encuesta, dato que la Ley 2494 de 2025 exige publicar.');
  }
  if (blank(sheet.universe)) {
    flag('missing_universe', 'La ficha técnica no describe el universo de la encuesta, dato que la Ley 2494 de 2025 exige publicar.');
  }
  if (blank(sheet.question)) {
    flag('missing_question', 'La ficha técnica no incluye el texto literal de la pregunta, que la Ley 2494 de 2025 exige publicar.');
  }
  if (sheet.fieldworkEnd > sheet.publishedAt) {
    flag(
      'fieldwork_after_publication',
      `El trabajo de campo termina (${sheet.fieldworkEnd}) después de la publicación (${sheet.publishedAt}), así que la ficha técnica que exige la Ley 2494 de 2025 no puede ser correcta.`,
    );
  }
  if (sheet.fieldworkStart > sheet.fieldworkEnd) {
    flag(
      'fieldwork_dates_reversed',
      `El trabajo de campo empieza (${sheet.fieldworkStart}) después de terminar (${sheet.fieldworkEnd}), así que las fechas de la ficha técnica que exige la Ley 2494 de 2025 no son válidas.`,
    );
  }
  return { compliant: problems.length === 0, problems };
}
