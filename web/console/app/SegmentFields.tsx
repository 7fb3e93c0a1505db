import { Checkbox, Group, MultiSelect, Paper, TagsInput, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import type { z } from 'zod';
import type { segmentSchema } from '../../../src/modules/audience/audience.segment.schemas';
import { api } from './api';
import { localDay, localDayBound, localToday } from './format';
import { schemaErrors } from './forms';
import { TerritoryMultiSelect } from './SearchSelect';

/** The audience module's segment as a form holds it; a channel may add `all` (WhatsApp asks for it explicitly). */
export type SegmentValues = z.input<typeof segmentSchema> & { all?: true };

export interface SegmentFieldsProps<S extends SegmentValues> {
  segment: S;
  /** Sets one condition; `undefined` or an empty list removes it. */
  onChange: <K extends keyof S>(key: K, value: S[K] | undefined) => void;
  /** The form's errors by path (`segment.interestsAny`). */
  errors: Record<string, ReactNode>;
  /** Shows the "everyone" box with this label (a channel whose API wants `all: true` rather than no condition). */
  allLabel?: string;
}

/**
 * The conditions of a segment, for every channel's campaign form: interests (any, all), territories
 * (each with what is inside), the poster campaigns people came from, and the days they registered
 * (Bogotá days, sent as instants). Every condition given must hold.
 */
export function SegmentFields<S extends SegmentValues>({ segment, onChange, errors, allLabel }: SegmentFieldsProps<S>) {
  // The registration days as the date inputs hold them (a segment being edited brings its own).
  const [days, setDays] = useState(() => ({
    from: segment.createdFrom ? localDay(segment.createdFrom) : '',
    to: segment.createdTo ? localDay(segment.createdTo) : '',
  }));
  // The poster campaigns people came from (the people list's filter reads the same cached answer).
  const posters = useQuery({
    queryKey: ['poster-qr', 'campaigns', 'all'],
    queryFn: () => api.all<{ id: string; name: string }>('/api/poster-qr/campaigns', 400),
    staleTime: 60_000,
  });
  const set = onChange as (key: keyof SegmentValues, value: unknown) => void;
  const setDay = (which: 'from' | 'to', date: string) => {
    setDays((current) => ({ ...current, [which]: date }));
    set(which === 'from' ? 'createdFrom' : 'createdTo', localDayBound(date, which === 'from' ? 'start' : 'end'));
  };
  return (
    <>
      {allLabel && <Checkbox label={allLabel} checked={segment.all === true} onChange={(event) => set('all', event.currentTarget.checked ? true : undefined)} />}
      <TagsInput
        label="Con alguno de estos intereses"
        description="Escriba un interés y pulse Enter"
        value={segment.interestsAny ?? []}
        onChange={(list) => set('interestsAny', list)}
        error={errors['segment.interestsAny']}
      />
      <TagsInput
        label="Con todos estos intereses"
        description="Escriba un interés y pulse Enter"
        value={segment.interestsAll ?? []}
        onChange={(list) => set('interestsAll', list)}
        error={errors['segment.interestsAll']}
      />
      <TerritoryMultiSelect
        label="Territorios"
        description="Cada uno incluye lo que está dentro (una comuna, sus barrios)"
        value={segment.territoryIds ?? []}
        onChange={(ids) => set('territoryIds', ids)}
        error={errors['segment.territoryIds']}
      />
      <MultiSelect
        label="Llegaron por campañas de afiches"
        placeholder={posters.isPending ? 'Cargando…' : undefined}
        searchable
        clearable
        clearButtonProps={{ 'aria-label': 'Quitar las campañas de afiches' }}
        nothingFoundMessage="Ninguna campaña de afiches con ese nombre"
        data={(posters.data ?? []).map((campaign) => ({ value: campaign.id, label: campaign.name }))}
        value={segment.qrCampaignIds ?? []}
        onChange={(ids) => set('qrCampaignIds', ids)}
        error={errors['segment.qrCampaignIds']}
      />
      <Group grow align="flex-start">
        <TextInput type="date" label="Registradas desde" max={localToday()} value={days.from} onChange={(event) => setDay('from', event.currentTarget.value)} />
        <TextInput type="date" label="Registradas hasta" value={days.to} onChange={(event) => setDay('to', event.currentTarget.value)} error={errors['segment.createdTo']} />
      </Group>
    </>
  );
}

export interface SegmentReachProps<Answer> {
  segment: SegmentValues;
  /** The channel's preview body schema (`{ segment }`): the count is asked only for a segment it takes. */
  schema: z.ZodType;
  /** The channel's cache key for a segment's count (its JSON). */
  queryKey: (segment: string) => readonly unknown[];
  /** Asks the channel's API how many the segment reaches. */
  count: (segment: SegmentValues) => Promise<Answer>;
  /** The answer in words (the first line bold: "Alcance: …"). */
  describe: (answer: Answer) => ReactNode;
  /** What to say while the segment is not one the API takes. */
  prompt: string;
  describeError: (error: unknown) => string;
  /** The form's error for the segment as a whole. */
  error?: string | undefined;
}

/**
 * Whom the segment reaches right now, as the channel's API counts it (the campaign will count the
 * same way), asked again 400 ms after the last change; a live region, so a screen reader hears it.
 */
export function SegmentReach<Answer>({ segment, schema, queryKey, count, describe, prompt, describeError, error }: SegmentReachProps<Answer>) {
  const [debounced] = useDebouncedValue(JSON.stringify(segment), 400);
  const valid = Object.keys(schemaErrors(schema, { segment: JSON.parse(debounced) as SegmentValues })).length === 0;
  const preview = useQuery({
    queryKey: queryKey(debounced),
    queryFn: () => count(JSON.parse(debounced) as SegmentValues),
    enabled: valid,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
  return (
    <Paper withBorder p="sm" bg="var(--mantine-color-gray-0)">
      <div role="status" aria-live="polite" aria-atomic="true">
        {!valid ? (
          <Text size="sm">{prompt}</Text>
        ) : preview.isError ? (
          <Text size="sm" c="red.8">
            {describeError(preview.error)}
          </Text>
        ) : !preview.data ? (
          <Text size="sm">Contando…</Text>
        ) : (
          describe(preview.data)
        )}
      </div>
      {error && (
        <Text size="sm" c="red.8" mt={4}>
          {error}
        </Text>
      )}
    </Paper>
  );
}
