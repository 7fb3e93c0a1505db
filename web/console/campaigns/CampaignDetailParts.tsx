import { Alert, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactElement, ReactNode } from 'react';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDateTime } from '../app/format';
import { problemMessage, type ProblemMessages } from '../app/problems';

/** What an act on a campaign says: its button, its dialog's title and confirming button; danger marks what cannot be taken back. */
export interface ActWords {
  button: string;
  title: string;
  confirm: string;
  danger?: boolean;
}

/** The loader or the refusal while a campaign is not there to show; null once it is. */
export function campaignNotReady(campaign: UseQueryResult<unknown>, problems: ProblemMessages): ReactElement | null {
  if (campaign.isPending) return <Loader aria-label="Cargando la campaña" />;
  if (campaign.isError) {
    return (
      <Alert color="red" role="alert" title="No se pudo abrir la campaña">
        {problemMessage(campaign.error, problems)}
      </Alert>
    );
  }
  return null;
}

/** A section of a campaign's page, named by its heading. */
export function CampaignSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <Title order={2} size="h4" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </section>
  );
}

/** The "Detalles" section: what the channel says first, then when the campaign was created, scheduled, started and ended. */
export function CampaignTimes({
  children,
  createdAt,
  scheduledAt,
  startedAt,
  endedAt,
}: {
  children: ReactNode;
  createdAt: string;
  scheduledAt: string | null;
  startedAt: string | null;
  endedAt: string | null;
}) {
  return (
    <CampaignSection id="detalles" title="Detalles">
      <Stack gap={4}>
        {children}
        <Text size="sm">Creada: {formatDateTime(createdAt)}</Text>
        {scheduledAt && <Text size="sm">Programada para: {formatDateTime(scheduledAt)} (hora de Bogotá)</Text>}
        {startedAt && <Text size="sm">Empezó: {formatDateTime(startedAt)}</Text>}
        {endedAt && <Text size="sm">Terminó: {formatDateTime(endedAt)}</Text>}
      </Stack>
    </CampaignSection>
  );
}

/**
 * A button per act the campaign allows now (red and plain for those that cannot be taken back), then
 * any other the channel adds; `variant` is the other buttons' (Mantine's own when not given).
 */
export function ActButtons<A extends string>({
  acts,
  words,
  onChoose,
  variant,
  children,
}: {
  acts: readonly A[];
  words: Record<A, ActWords>;
  onChoose: (act: A) => void;
  variant?: 'filled';
  children?: ReactNode;
}) {
  return (
    <Group mt="sm">
      {acts.map((act) => (
        <Button key={act} variant={words[act].danger ? 'default' : variant} color={words[act].danger ? 'red' : undefined} onClick={() => onChoose(act)}>
          {words[act].button}
        </Button>
      ))}
      {children}
    </Group>
  );
}

/** The confirmation of the chosen act: what it will do, and the refusal in the channel's words. */
export function ActDialog<A extends string>({
  act,
  words,
  onClose,
  run,
  explanation,
  problems,
}: {
  act: A;
  words: Record<A, ActWords>;
  onClose: () => void;
  run: (act: A) => Promise<void>;
  explanation: string;
  problems: ProblemMessages;
}) {
  return (
    <ConfirmDialog
      opened
      onClose={onClose}
      title={words[act].title}
      confirmLabel={words[act].confirm}
      danger={words[act].danger}
      onConfirm={() => run(act)}
      describeError={(error) => problemMessage(error, problems)}
    >
      <Text>{explanation}</Text>
    </ConfirmDialog>
  );
}
