import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

export interface FormDialogProps {
  /** The dialog's name (its heading, and what a screen reader announces). */
  title: string;
  onClose: () => void;
  /** The form's submit handler (`useSchemaForm`'s `submit(...)`). */
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
  /** The refusal that belongs to no field, shown above them. */
  formError: string | null;
  submitting: boolean;
  /** The act in words ("Guardar", "Agregar"), never "Aceptar". */
  submitLabel: string;
  children: ReactNode;
  size?: string;
}

/**
 * A dialog holding one form: its refusal above the fields, Cancelar and the act's own button below.
 * Mantine's modal traps focus, closes on Escape and gives focus back to the button that opened it.
 */
export function FormDialog({ title, onClose, onSubmit, formError, submitting, submitLabel, children, size }: FormDialogProps) {
  return (
    <Modal opened onClose={onClose} title={title} size={size} closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          {children}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
