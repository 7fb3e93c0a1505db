import { Card, Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A card of the request's page with its heading (a landmark for screen readers). */
export function Section({ title, id, children, actions }: { title: string; id: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <Card withBorder component="section" aria-labelledby={id} padding="md">
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={2} size="h4" id={id}>
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </Card>
  );
}
