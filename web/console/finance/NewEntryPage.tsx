import { Alert, Button, FileInput, Group, NativeSelect, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { z } from 'zod';
import type { EntryKind } from '../../../src/modules/finance/finance.codes';
import { DONOR_TYPES } from '../../../src/modules/finance/finance.codes';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { createEntryBody, updateEntryBody } from '../../../src/modules/finance/finance.schemas';
import type { eventView } from '../../../src/modules/agenda/agenda.schemas';
import type { Page } from '../../lib/api-types';
import { api, ApiError, queryClient } from '../app/api';
import { formatDate, localToday } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { invalidateServerLists } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import {
  CODES,
  DONOR_LABELS,
  ENTRIES,
  FINANCE_PROBLEMS,
  KIND_LABELS,
  RULE_LAWS,
  SETTINGS,
  codesKey,
  financeProblem,
  isOverridable,
  settingsKey,
  type Code,
  type Entry,
  type OverridableRule,
  type Settings,
} from './data';
import { useSummary } from './LedgerPage';
import { RuleRefusal } from './refusal';
import { FinanceTabs } from './FinanceTabs';
import { RECEIPT_ACCEPT, receiptFile, uploadReceipt } from './receipts';

type AgendaEvent = z.output<typeof eventView>;

/** The form's values: what the inputs hold (text, or '' for "none"), which the API's schema checks as the request it becomes. */
interface EntryForm extends Record<string, unknown> {
  kind: EntryKind;
  date: string;
  amount: number | string;
  code: string;
  counterparty: { name: string; idNumber: string };
  description: string;
  notes: string;
  donorType: string;
  eventId: string;
  override?: { reason: string };
}

const entrySchema = createEntryBody as unknown as z.ZodType<unknown, EntryForm>;
/** A correction is the same form without its kind (the API does not change it): checked with the API's schema for a PATCH. */
const withoutKind = ({ kind: _kind, ...rest }: Record<string, unknown>) => rest;
const correctionSchema = z.preprocess((values) => withoutKind(values as Record<string, unknown>), updateEntryBody) as unknown as z.ZodType<unknown, EntryForm>;

export const useSettings = () => useQuery({ queryKey: settingsKey, queryFn: () => api.get<Settings>(SETTINGS) });

/**
 * `/finanzas/nuevo`: an income or expense with its receipt; `/finanzas/movimientos/:id/corregir`:
 * the same form for an entry of an open period. The fields take their rules from the API's own
 * schema (whole pesos, a day not after today, a code of the kind, a donor's number); the server's
 * refusals land beside the fields they name. An entry past the spending cap or the donor limit is
 * refused with the rule and its law, and a manager records it with a reason.
 */
export function EntryFormScreen({ entry }: { entry?: Entry | undefined }) {
  const navigate = useNavigate();
  const { user } = useSignedIn();
  const mayOverride = rolePermitted(user.role, financePolicy.roles('override'));
  const summary = useSummary();
  const settings = useSettings();
  const codes = useQuery({ queryKey: [...codesKey, 'active'], queryFn: () => api.get<{ data: Code[] }>(`${CODES}?active=true`) });
  const events = useQuery({ queryKey: ['finance', 'events'], queryFn: () => api.get<Page<AgendaEvent>>('/api/agenda/events?limit=100') });
  const [refused, setRefused] = useState<OverridableRule | null>(null);
  const [receipt, setReceipt] = useState<File | null>(null);
  const [receiptError, setReceiptError] = useState<string | null>(null);
  // A correction clears what is emptied (null); a new entry leaves it out.
  const empty = entry ? 'null' : 'absent';

  const { form, submit, submitting, formError } = useSchemaForm<EntryForm>(
    entry ? correctionSchema : entrySchema,
    {
      initialValues: {
        kind: entry?.kind ?? 'expense',
        date: entry?.date ?? localToday(),
        amount: entry?.amount ?? '',
        code: entry?.code ?? '',
        counterparty: { name: entry?.counterparty.name ?? '', idNumber: entry?.counterparty.idNumber ?? '' },
        description: entry?.description ?? '',
        notes: entry?.notes ?? '',
        donorType: entry?.donorType ?? '',
        eventId: entry?.eventId ?? '',
      },
      emptyAs: { amount: 'absent', code: 'absent', description: empty, notes: empty, donorType: empty, eventId: empty, 'counterparty.idNumber': empty },
      messages: {
        'counterparty.idNumber': 'Un NIT o una cédula: de 3 a 20 dígitos o letras (puntos, espacios y dígito de verificación se quitan).',
        donorType: 'Solo un ingreso tiene donante.',
      },
    },
    FINANCE_PROBLEMS,
  );
  const values = form.getValues();
  const kindCodes = (codes.data?.data ?? []).filter((code) => code.kind === values.kind);
  const chosenCode = kindCodes.find((code) => code.code === values.code);

  /** A refusal is of the figures that were sent: changing one of them asks again, without the authorisation. */
  const clearRefusal = () => {
    if (!refused) return;
    setRefused(null);
    form.setFieldValue('override', undefined);
  };
  const chooseKind = (kind: EntryKind) => {
    form.setValues({ kind, code: '', donorType: '' });
    clearRefusal();
  };
  /** The input's props, its changes also clearing a refusal (the amount, the code, the donor). */
  const figure = (path: 'amount' | 'code' | 'donorType' | 'counterparty.idNumber') => {
    const props = form.getInputProps(path);
    return {
      ...props,
      onChange: (value: unknown) => {
        props.onChange(value);
        clearRefusal();
      },
    };
  };

  const onSubmit = submit(async (input) => {
    // A donation names its donor (the API refuses it otherwise): said beside the fields, in Spanish, before sending.
    if (input.kind === 'income' && chosenCode?.donation) {
      const missing = { donorType: !input.donorType, 'counterparty.idNumber': !input.counterparty.idNumber };
      if (missing.donorType) form.setFieldError('donorType', `Una donación dice quién la dio (${RULE_LAWS.donation_names_donor}).`);
      if (missing['counterparty.idNumber'])
        form.setFieldError('counterparty.idNumber', `Una donación lleva el NIT o la cédula de quien la dio (${RULE_LAWS.donation_names_donor}).`);
      if (missing.donorType || missing['counterparty.idNumber']) return;
    }
    const typeError = receipt ? receiptFile(receipt).error : null;
    if (typeError) {
      setReceiptError(typeError);
      return;
    }
    let saved: Entry;
    try {
      saved = entry ? await api.patch<Entry>(`${ENTRIES}/${entry.id}`, withoutKind(input)) : await api.post<Entry>(ENTRIES, input);
    } catch (error) {
      const code = error instanceof ApiError ? error.problem?.code : undefined;
      if (isOverridable(code)) {
        setRefused(code);
        // The summary's figures (what is left under the cap) are read again for the refusal.
        void queryClient.invalidateQueries({ queryKey: ['finance'] });
        if (rolePermitted(user.role, financePolicy.roles('override')) && !form.getValues().override) form.setFieldValue('override', { reason: '' });
        return;
      }
      throw error;
    }
    let uploadProblem: string | null = null;
    if (receipt) {
      try {
        await uploadReceipt(saved.id, receipt);
      } catch (error) {
        uploadProblem = financeProblem(error);
      }
    }
    await Promise.all([invalidateServerLists(ENTRIES), queryClient.invalidateQueries({ queryKey: ['finance'] })]);
    void navigate(`/finanzas/movimientos/${saved.id}`, { state: entry ? { corrected: true } : { created: true, uploadProblem } });
  });

  return (
    <>
      <PageTitle>{entry ? 'Corregir movimiento' : 'Registrar movimiento'}</PageTitle>
      <FinanceTabs />
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={820}>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <div>
            <Text size="sm" fw={500} id="entry-kind-label" mb={4}>
              Tipo
            </Text>
            <SegmentedControl
              aria-labelledby="entry-kind-label"
              value={values.kind}
              onChange={(value) => chooseKind(value as EntryKind)}
              disabled={Boolean(entry)}
              data={(['expense', 'income'] as const).map((kind) => ({ value: kind, label: KIND_LABELS[kind] }))}
            />
          </div>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput type="date" label="Fecha" description="El día en que ocurrió; no después de hoy." required max={localToday()} {...form.getInputProps('date')} />
            <NumberInput
              label="Valor (pesos)"
              description="Pesos enteros, sin centavos."
              required
              min={1}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator="."
              decimalSeparator=","
              {...figure('amount')}
            />
          </SimpleGrid>
          <NativeSelect
            label="Código del Formulario 5B"
            required
            description={chosenCode?.donation ? 'Código de donación: pide el tipo de donante y su NIT o cédula (Ley 1475 de 2011, art. 27).' : undefined}
            data={[
              { value: '', label: codes.isPending ? 'Cargando el catálogo…' : 'Elija un código' },
              ...kindCodes.map((code) => ({ value: code.code, label: `${code.code} ${code.name}` })),
            ]}
            {...figure('code')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label={values.kind === 'income' ? 'Quién aportó' : 'A quién se pagó'} required autoComplete="off" {...form.getInputProps('counterparty.name')} />
            <TextInput label="NIT o cédula" required={chosenCode?.donation} autoComplete="off" {...figure('counterparty.idNumber')} />
          </SimpleGrid>
          {values.kind === 'income' && (
            <NativeSelect
              label="Tipo de donante"
              required={chosenCode?.donation}
              data={[{ value: '', label: 'Sin indicar' }, ...DONOR_TYPES.map((type) => ({ value: type, label: DONOR_LABELS[type] }))]}
              {...figure('donorType')}
            />
          )}
          <NativeSelect
            label="Evento de la agenda"
            description="Opcional: el movimiento cuenta en el presupuesto del evento."
            data={[{ value: '', label: 'Ninguno' }, ...(events.data?.data ?? []).map((event) => ({ value: event.id, label: `${event.title} (${formatDate(event.startsAt)})` }))]}
            {...form.getInputProps('eventId')}
          />
          <TextInput label="Descripción" maxLength={500} {...form.getInputProps('description')} />
          <Textarea label="Notas" autosize minRows={2} maxLength={5000} {...form.getInputProps('notes')} />
          {!entry && (
            <FileInput
              label="Soporte (factura o recibo)"
              description="PDF, JPEG o PNG, hasta 5 MB. También puede subirlo después."
              accept={RECEIPT_ACCEPT}
              clearable
              clearButtonProps={{ 'aria-label': 'Quitar el soporte elegido' }}
              value={receipt}
              error={receiptError}
              onChange={(file) => {
                setReceipt(file);
                setReceiptError(file ? receiptFile(file).error : null);
              }}
            />
          )}
          {refused && <RuleRefusal rule={refused} role={user.role} summary={summary.data} settings={settings.data} />}
          {refused && mayOverride && values.override && (
            <Textarea
              label="Razón de la autorización"
              description="Queda en el movimiento y en su historial, con su nombre."
              required
              autosize
              minRows={2}
              maxLength={500}
              {...form.getInputProps('override.reason')}
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" component={Link} to={entry ? `/finanzas/movimientos/${entry.id}` : '/finanzas'}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              {refused && values.override ? (entry ? 'Guardar con autorización' : 'Registrar con autorización') : entry ? 'Guardar la corrección' : 'Registrar'}
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}

export default function NewEntryPage() {
  return <EntryFormScreen />;
}
