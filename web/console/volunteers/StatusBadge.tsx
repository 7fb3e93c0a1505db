import { Badge } from '@mantine/core';
import { TONES } from '../app/tones';
import { STATUS_LABELS, STATUS_TONES } from './labels';
import type { Volunteer } from './types';

/** The team's label for the volunteer (prospect, active, inactive), in words and a colour with AA contrast. */
export function StatusBadge({ status }: { status: Volunteer['status'] }) {
  const tone = TONES[STATUS_TONES[status]];
  return (
    <Badge variant="light" color={tone.color} c={tone.text} tt="none">
      {STATUS_LABELS[status]}
    </Badge>
  );
}
