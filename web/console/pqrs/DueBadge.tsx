import { Badge, type BadgeProps } from '@mantine/core';
import { countdown, DUE_STATE_TONES, TONES } from './labels';
import type { PqrsRequest } from './data';

/** The legal countdown as a badge: its words say what its colour does (red overdue, orange due in three business days or fewer). */
export function DueBadge({ request, ...props }: { request: Pick<PqrsRequest, 'dueState' | 'businessDaysLeft' | 'answeredLate'> } & BadgeProps) {
  const tone = TONES[DUE_STATE_TONES[request.dueState]];
  return (
    <Badge
      variant="light"
      color={tone.color}
      c={tone.text}
      tt="none"
      fw={600}
      radius="sm"
      // The whole sentence, never cut short with an ellipsis.
      styles={{ root: { overflow: 'visible', flexShrink: 0 }, label: { overflow: 'visible', textOverflow: 'clip', whiteSpace: 'nowrap' } }}
      {...props}
    >
      {countdown(request)}
    </Badge>
  );
}
