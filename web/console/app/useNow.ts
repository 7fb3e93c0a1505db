import { useEffect, useState } from 'react';

/** The time now, renewed every `everyMs`: relative times ("hace 5 minutos") and deadlines (a window that closes) stay true on a screen left open. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
