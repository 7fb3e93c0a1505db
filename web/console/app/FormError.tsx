import { Alert, type MantineSpacing } from '@mantine/core';

/** A form's refusal that no field holds, announced as an alert; nothing while there is none. */
export function FormError({ error, mt }: { error: string | null; mt?: MantineSpacing }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" mt={mt}>
      {error}
    </Alert>
  );
}
