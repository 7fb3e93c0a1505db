import { Button, Group, type ButtonVariant } from '@mantine/core';
import type { FormEventHandler, ReactNode } from 'react';
import { FormError } from './FormError';

/** A small form on one wrapping row (its fields, then its button), named for screen readers, with its refusal below. */
export function InlineForm({
  label,
  onSubmit,
  submitLabel,
  submitting,
  variant,
  formError,
  children,
}: {
  label: string;
  onSubmit: FormEventHandler<HTMLFormElement>;
  submitLabel: string;
  submitting: boolean;
  variant?: ButtonVariant;
  formError: string | null;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate aria-label={label}>
      <Group align="flex-start" wrap="wrap">
        {children}
        <Button type="submit" variant={variant} loading={submitting} mt={25}>
          {submitLabel}
        </Button>
      </Group>
      <FormError error={formError} mt="sm" />
    </form>
  );
}
