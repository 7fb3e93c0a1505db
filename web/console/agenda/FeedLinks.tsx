import { Alert, Button, CopyButton, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { problemMessage } from '../app/problems';
import { FEED_TOKEN_PATH, type FeedToken } from './data';

/** An address to paste into a calendar app, with a copy button. */
function CopyableAddress({ label, value, description }: { label: string; value: string; description: string }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-end">
      <TextInput label={label} description={description} value={value} readOnly style={{ flex: 1 }} onFocus={(event) => event.currentTarget.select()} />
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button onClick={copy} aria-label={`Copiar: ${label}`}>
            {copied ? 'Copiado' : 'Copiar'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

/**
 * The iCalendar feed: the public address (public events, for anyone) and a personal one (the
 * team's internal events too), made here and shown once, since calendar apps cannot send a token.
 */
export function FeedLinks() {
  const [personal, setPersonal] = useState<FeedToken | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [ending, setEnding] = useState(false);
  const publicUrl = `${window.location.origin}/api/agenda/events.ics`;
  const make = async () => {
    setBusy(true);
    setError(null);
    try {
      setPersonal(await api.post<FeedToken>(FEED_TOKEN_PATH, {}));
    } catch (failure) {
      setError(problemMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="md" mt="lg" component="section" aria-labelledby="agenda-feed">
      <Title order={2} size="h4" id="agenda-feed" mb="xs">
        Suscribirse desde un calendario (iCalendar)
      </Title>
      <Stack gap="sm">
        <CopyableAddress
          label="Calendario público"
          value={publicUrl}
          description="Los eventos públicos, para cualquiera: Google Calendar, Outlook o el celular lo leen con «Suscribirse por URL»."
        />
        {personal ? (
          <CopyableAddress
            label="Mi calendario del equipo"
            value={personal.url}
            description="También los eventos internos. Es secreta y se muestra una sola vez: guárdela en su calendario. Crear otra anula esta."
          />
        ) : (
          <Text size="sm">
            Su dirección personal incluye también los eventos internos del equipo. Crear una nueva anula la anterior; cerrar sesión en todos los dispositivos también la anula.
          </Text>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group gap="xs">
          <Button variant="default" onClick={() => void make()} loading={busy}>
            {personal ? 'Crear otra dirección personal' : 'Crear mi dirección personal'}
          </Button>
          <Button variant="subtle" color="red" onClick={() => setEnding(true)}>
            Anular mi dirección personal
          </Button>
        </Group>
      </Stack>
      <ConfirmDialog
        opened={ending}
        onClose={() => setEnding(false)}
        title="Anular mi dirección personal"
        confirmLabel="Anular la dirección"
        danger
        onConfirm={async () => {
          await api.delete(FEED_TOKEN_PATH);
          setPersonal(null);
          setEnding(false);
        }}
      >
        <Text>Los calendarios suscritos con ella dejan de recibir los eventos del equipo. Puede crear otra cuando quiera.</Text>
      </ConfirmDialog>
    </Paper>
  );
}
