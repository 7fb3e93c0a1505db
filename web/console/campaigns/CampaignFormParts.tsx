import { Button, Checkbox, Group, Text, TextInput, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { formatTime, localDay, localInstant, localToday } from '../app/format';
import { SegmentFields, type SegmentFieldsProps, type SegmentValues } from '../app/SegmentFields';

/** Whether the send is scheduled, and the Bogotá day and time the inputs hold. */
export interface Schedule {
  on: boolean;
  date: string;
  time: string;
}

/** The segment with one condition set, or without it when `undefined` or an empty list. */
export function withCondition<S extends object, K extends keyof S>(segment: S, key: K, value: S[K] | undefined): S {
  const next: Partial<S> = { ...segment };
  if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
  else next[key] = value;
  return next as S;
}

/** The schedule's inputs (from the instant a campaign already has), each change handed on as the instant to send at. */
export function useSchedule(scheduledAt: string | null | undefined, onInstant: (instant: string | undefined) => void): [Schedule, (next: Schedule) => void] {
  const [schedule, setSchedule] = useState<Schedule>(() =>
    scheduledAt ? { on: true, date: localDay(scheduledAt), time: formatTime(scheduledAt) } : { on: false, date: '', time: '' },
  );
  const setScheduled = (next: Schedule) => {
    setSchedule(next);
    onInstant(next.on ? localInstant(next.date, next.time) : undefined);
  };
  return [schedule, setScheduled];
}

/** What is wrong with the time to send at, in Spanish (the server refuses a past one too, in English); null when nothing is. */
export function scheduleProblem(schedule: Schedule, scheduledAt: string | undefined): string | null {
  if (schedule.on && !scheduledAt) return 'Elija el día y la hora del envío.';
  if (scheduledAt && Date.parse(scheduledAt) <= Date.now()) return 'Elija un día y una hora que no hayan pasado (hora de Bogotá).';
  return null;
}

/** The options of a template select: a prompt (or that they are loading), then each template. */
export function templateOptions<T extends { id: string }>(templates: UseQueryResult<T[]>, label: (template: T) => string) {
  return [
    { value: '', label: templates.isPending ? 'Cargando plantillas…' : 'Elija una plantilla' },
    ...(templates.data ?? []).map((template) => ({ value: template.id, label: label(template) })),
  ];
}

/** A heading of a campaign form's part. */
export function FormHeading({ children }: { children: ReactNode }) {
  return (
    <Title order={2} size="h4">
      {children}
    </Title>
  );
}

/** "A quién": who the channel sends to, the segment's conditions, and the reach the channel counts. */
export function AudienceFields<S extends SegmentValues>({ intro, reach, ...fields }: SegmentFieldsProps<S> & { intro: string; reach: ReactNode }) {
  return (
    <>
      <FormHeading>A quién</FormHeading>
      <Text size="sm">{intro}</Text>
      <SegmentFields {...fields} />
      {reach}
    </>
  );
}

/** "Cuándo": a draft sent from its page, or a Bogotá day and time to send at. */
export function ScheduleFields({ schedule, onChange, error }: { schedule: Schedule; onChange: (next: Schedule) => void; error: ReactNode }) {
  return (
    <>
      <FormHeading>Cuándo</FormHeading>
      <Checkbox
        label="Programar el envío (si no, queda como borrador y se envía desde su página)"
        checked={schedule.on}
        onChange={(event) => onChange({ ...schedule, on: event.currentTarget.checked })}
      />
      {schedule.on && (
        <Group grow align="flex-start">
          <TextInput
            type="date"
            label="Día"
            description="Hora de Bogotá"
            min={localToday()}
            value={schedule.date}
            onChange={(event) => onChange({ ...schedule, date: event.currentTarget.value })}
          />
          <TextInput
            type="time"
            label="Hora"
            description="Hora de Bogotá"
            value={schedule.time}
            onChange={(event) => onChange({ ...schedule, time: event.currentTarget.value })}
            error={error}
          />
        </Group>
      )}
    </>
  );
}

/** The form's last row: back without saving, and the submit button named for what it does. */
export function FormButtons({ onBack, submitting, children }: { onBack: () => void; submitting: boolean; children: ReactNode }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onBack}>
        Volver
      </Button>
      <Button type="submit" loading={submitting}>
        {children}
      </Button>
    </Group>
  );
}
