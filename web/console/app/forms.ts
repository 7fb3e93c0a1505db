import { useForm, type FormErrors, type UseFormInput, type UseFormReturnType } from '@mantine/form';
import { useState } from 'react';
import type { z } from 'zod';
import { spanishError } from '../../../src/kernel/spanish-issues';
import { ApiError } from './api';
import { NetworkError } from '../../lib/api';
import { knownProblem, problemMessage, type ProblemMessages } from './problems';

type FormValues = Record<string, unknown>;

/**
 * The schema's verdict on the values, in Spanish: a broken rule (too short, not an email, too
 * many) is said from the rule itself (`kernel/spanish-issues.ts`), since the API's
 * own wording is English; only a rule the schema wrote by hand (a refinement) keeps the schema's
 * words, unless `messages` says it in Spanish for that field (a rule of its own or a pattern: a
 * phone, a cédula).
 */
export function schemaErrors(schema: z.ZodType, values: unknown, messages: Record<string, string> = {}): FormErrors {
  const result = schema.safeParse(values, { reportInput: true });
  if (result.success) return {};
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const path = issue.path.join('.');
    if (path in errors) continue;
    if ((issue.code === 'custom' || issue.code === 'invalid_format') && messages[path]) {
      errors[path] = messages[path];
      continue;
    }
    errors[path] = (issue.code === 'custom' ? undefined : spanishError(issue as Parameters<typeof spanishError>[0])) ?? issue.message;
  }
  return errors;
}

/** What an empty text field means to the API: the field left out, or `null` (clear it). */
export type EmptyMeaning = 'absent' | 'null';

/** A field of the form: a top-level one (`date`), or one inside an object (`counterparty.idNumber`). */
export type FieldPath<Values> = (keyof Values & string) | `${keyof Values & string}.${string}`;

/**
 * The values as the API takes them: each field named in `emptyAs` that holds only spaces (or, for
 * a number input or a cleared select, nothing) is left out or null. A dotted name reaches into an object (`counterparty.idNumber`).
 */
export function withoutEmpty<Values extends FormValues>(values: Values, emptyAs: Partial<Record<FieldPath<Values>, EmptyMeaning>>): Values {
  const out: FormValues = { ...values };
  for (const [path, meaning] of Object.entries(emptyAs) as [string, EmptyMeaning][]) {
    const names = path.split('.');
    const field = names.pop()!;
    let holder: FormValues | undefined = out;
    for (const name of names) {
      const inner: unknown = holder?.[name];
      if (!inner || typeof inner !== 'object') {
        holder = undefined;
        break;
      }
      // Copied on the way down, so the form's own values are never changed.
      holder[name] = { ...(inner as FormValues) };
      holder = holder[name] as FormValues;
    }
    if (!holder) continue;
    const value = holder[field];
    // A cleared select holds null: empty too.
    if (!((typeof value === 'string' && value.trim() === '') || value === null)) continue;
    if (meaning === 'null') holder[field] = null;
    else delete holder[field];
  }
  return out as Values;
}

export interface SchemaFormOptions<Values extends FormValues> extends Omit<UseFormInput<Values>, 'validate'> {
  /** Text fields whose emptiness the API reads as "not given" (`absent`) or "remove it" (`null`): validated and sent that way. */
  emptyAs?: Partial<Record<FieldPath<Values>, EmptyMeaning>>;
  /** Spanish for the schema's own rules by field (its refinements and patterns are worded in English for the API). */
  messages?: Partial<Record<keyof Values & string, string>>;
  /**
   * The values as the API takes them, after `emptyAs`, when the form holds more than the body (rows
   * of a list left empty: a poll's results for the competitors it did not ask about). Validated and
   * sent that way, and an error lands on the path it names in the prepared values: what is dropped
   * must leave the paths of the fields that can be refused where they were (or only rows after them).
   */
  prepare?: (values: Values) => Values;
  /** The member of the request body the form's values are sent as (`walkIn` of a check-in): the server's errors under it land on the fields. */
  sentAs?: string;
}

/**
 * A form whose rules are the server's own zod schema for the request body: the same object the API
 * validates with (imported from `src/modules/<module>/<module>.schemas.ts`), so a field's limits are
 * written once. The server still decides: `submit` shows its problem+json errors on the fields
 * they name (`body.<field>`, or `query.<field>` for an upload's options) and anything else as the
 * form's message. `send` gets the values as the API takes them (`emptyAs` applied).
 */
export function useSchemaForm<Values extends FormValues>(
  schema: z.ZodType<unknown, Values>,
  input: SchemaFormOptions<Values>,
  /** The screen's Spanish for refusals it expects, by problem code (on the field the problem names, or above the form). */
  problems?: ProblemMessages,
) {
  const { emptyAs = {}, messages = {}, prepare = (values: Values) => values, sentAs, ...formInput } = input;
  const clean = (values: Values) => prepare(withoutEmpty(values, emptyAs as Partial<Record<FieldPath<Values>, EmptyMeaning>>));
  const form = useForm<Values>({
    mode: 'controlled',
    validateInputOnBlur: true,
    ...formInput,
    validate: (values) => schemaErrors(schema, clean(values), messages as Record<string, string>),
  });
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  /** Validates, sends, and maps a refusal onto the fields; true when the server accepted it. */
  const submit = (send: (values: Values) => Promise<unknown>) =>
    form.onSubmit(async (values) => {
      setFormError(null);
      setSubmitting(true);
      try {
        await send(clean(values));
      } catch (error) {
        setFormError(applyProblem(form, error, problems, sentAs));
      } finally {
        setSubmitting(false);
      }
    });

  return { form, submit, submitting, formError, setFormError };
}

/** Whether the form has the field a problem names (`amount`, or `counterparty.idNumber` inside an object of it). */
function inForm(values: FormValues, path: string): boolean {
  let holder: unknown = values;
  for (const name of path.split('.')) {
    if (!holder || typeof holder !== 'object' || !(name in holder)) return false;
    holder = (holder as FormValues)[name];
  }
  return true;
}

/**
 * Puts a refusal's field errors on the form; returns what is left to say above the form (or null).
 * A code the screen has words for (`problems`) is said with them, on the one field it names.
 */
export function applyProblem<Values extends FormValues>(form: UseFormReturnType<Values>, error: unknown, problems?: ProblemMessages, sentAs?: string): string | null {
  const fieldOf = (path: string) => {
    const field = path.replace(/^(body|query)\./, '');
    return sentAs && field.startsWith(`${sentAs}.`) ? field.slice(sentAs.length + 1) : field;
  };
  if (error instanceof NetworkError) return 'No hay conexión con el servidor. Intente de nuevo.';
  if (!(error instanceof ApiError)) return 'Algo salió mal. Intente de nuevo.';
  const known = knownProblem(error, problems);
  if (known) {
    const fields = (error.problem?.errors ?? []).map((item) => fieldOf(item.path));
    if (fields.length === 1 && inForm(form.getValues(), fields[0]!)) {
      form.setFieldError(fields[0]!, known);
      return null;
    }
    return known;
  }
  const unplaced: string[] = [];
  for (const item of error.problem?.errors ?? []) {
    const field = fieldOf(item.path);
    if (inForm(form.getValues(), field)) form.setFieldError(field, item.message);
    else unplaced.push(item.message);
  }
  if (error.problem?.errors?.length && !unplaced.length) return null;
  return problemMessage(error);
}
