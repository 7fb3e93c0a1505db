import { formatDateTime, formatRelative } from './format';

/** "hace 5 minutos", with the exact time in its title and in `dateTime` for machines. */
export function RelativeTime({ value }: { value: string }) {
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {formatRelative(value)}
    </time>
  );
}
