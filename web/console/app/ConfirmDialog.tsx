import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { problemMessage } from './problems';

export interface ConfirmDialogProps {
  opened: boolean;
  onClose: () => void;
  /** The dialog's name (its heading, and what a screen reader announces). */
  title: string;
  children: ReactNode;
  /** The button that does it, in words of the act ("Suprimir datos"), never "Aceptar". */
  confirmLabel: string;
  /** Red for what cannot be taken back. */
  danger?: boolean;
  /** While the person has not yet given what the act needs (a note, the typed name). */
  confirmDisabled?: boolean;
  /** Does the act; a refusal is shown in the dialog, which stays open, as it does when this answers `false` (a form in it showed what is missing). */
  onConfirm: () => Promise<unknown>;
  /** What a refusal says (default: the problem's message); return null to keep the default. */
  describeError?: (error: unknown) => string | null;
  size?: string;
}

/**
 * A confirmation before an act that matters (a withdrawal, an erasure, a merge): says what will
 * happen, does it on the one button named for it, shows a refusal without closing. Mantine's modal
 * traps focus, closes on Escape and gives focus back to the button that opened it.
 */
export function ConfirmDialog({ opened, onClose, title, children, confirmLabel, danger, confirmDisabled, onConfirm, describeError, size = 'lg' }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    if (busy) return;
    setError(null);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const done = await onConfirm();
      setBusy(false);
      if (done !== false) onClose();
    } catch (failure) {
      setBusy(false);
      setError(describeError?.(failure) ?? problemMessage(failure));
    }
  };
  return (
    <Modal opened={opened} onClose={close} title={title} size={size} closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!confirmDisabled) void confirm();
        }}
      >
        <Stack>
          {children}
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={busy}>
              Cancelar
            </Button>
            <Button type="submit" color={danger ? 'red' : undefined} loading={busy} disabled={confirmDisabled}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
