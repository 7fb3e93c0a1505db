import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../app/api';
import { keys, type WhatsAppDashboard } from './inbox';

/** Whether the server runs its simulator (no Cloud API token): undefined until it says. */
export function useSimulated(): boolean | undefined {
  const dashboard = useQuery({ queryKey: keys.dashboard, queryFn: () => api.get<WhatsAppDashboard>('/api/whatsapp/dashboard'), staleTime: Infinity });
  return dashboard.data ? dashboard.data.provider === 'simulator' : undefined;
}

/** Says so on every WhatsApp screen when nothing reaches WhatsApp: with no Cloud API token the server runs its simulator. */
export function SimulatorNotice({ children }: { children: string }) {
  if (!useSimulated()) return null;
  return (
    <Alert color="yellow" variant="light" mb="sm" py={6} title="Simulado: nada llega a WhatsApp">
      {children}
    </Alert>
  );
}
