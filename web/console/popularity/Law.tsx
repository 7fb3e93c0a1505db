import { Badge, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { plural } from '../app/format';
import { TONES } from '../app/tones';
import type { Poll } from './data';

/** Ley 2494's findings about one field, said beside it (in the form, the input's description, so a screen reader reads them with it). */
export function LawNotes({ messages }: { messages: string[] | undefined }): ReactNode {
  if (!messages?.length) return undefined;
  return messages.map((message) => (
    <Text key={message} component="span" display="block" size="sm" c={TONES.orange.text} fw={500}>
      Ley 2494: {message}
    </Text>
  ));
}

/** A poll's verdict under Ley 2494, in words and colour. */
export function ComplianceBadge({ poll }: { poll: Pick<Poll, 'compliance'> }) {
  const tone = TONES[poll.compliance.compliant ? 'green' : 'red'];
  return (
    <Badge color={tone.color} c={tone.text} variant="light">
      {poll.compliance.compliant ? 'Cumple' : `No cumple: ${plural(poll.compliance.problems.length, 'problema', 'problemas')}`}
    </Badge>
  );
}
