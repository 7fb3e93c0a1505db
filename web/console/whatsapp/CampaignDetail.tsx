import { Alert, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { api, queryClient } from '../app/api';
import { formatDateTime, formatNumber, formatPercent, plural } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { invalidateServerLists } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { Figure } from '../app/Figure';
import { ActButtons, ActDialog, CampaignSection, campaignNotReady, CampaignTimes, type ActWords } from '../campaigns/CampaignDetailParts';
import { CampaignProgress, CampaignStatusBadge } from './CampaignList';
import { CAMPAIGN_PROBLEMS, campaignKeys, CAMPAIGNS_PATH, type Campaign, type CampaignStatus, type SendAnswer } from './campaigns';
import { SimulatorNotice } from './SimulatorNotice';
import { WhatsAppTabs } from './WhatsAppTabs';

type Act = 'send' | 'pause' | 'resume' | 'cancel';

const ACTS: Record<Act, ActWords & { from: readonly CampaignStatus[] }> = {
  send: { from: ['draft', 'scheduled'], button: 'Enviar ahora', title: 'Enviar la campaña', confirm: 'Enviar' },
  pause: { from: ['sending', 'scheduled'], button: 'Pausar', title: 'Pausar el envío', confirm: 'Pausar' },
  resume: { from: ['paused'], button: 'Reanudar', title: 'Reanudar el envío', confirm: 'Reanudar' },
  cancel: { from: ['draft', 'scheduled', 'sending', 'paused'], button: 'Cancelar campaña', title: 'Cancelar la campaña', confirm: 'Cancelar campaña', danger: true },
};

function explain(act: Act, campaign: Campaign): string {
  const waiting = campaign.progress.queued;
  switch (act) {
    case 'send':
      return `Se escribirá un mensaje para cada una de las ${formatNumber(campaign.audienceSize)} personas del segmento que hoy tienen autorización (se cuentan de nuevo al enviar) y saldrán al ritmo del número. No se puede deshacer, pero sí pausar.`;
    case 'pause':
      return `No saldrán más mensajes hasta que la reanude; los que ya están en camino terminan. ${waiting ? `${plural(waiting, 'mensaje queda', 'mensajes quedan')} en espera.` : ''}`;
    case 'resume':
      return `El envío sigue donde quedó${waiting ? `: faltan ${plural(waiting, 'mensaje', 'mensajes')}` : ''}.`;
    case 'cancel':
      return `Los mensajes que aún no salieron${waiting ? ` (${formatNumber(waiting)})` : ''} no se enviarán nunca. Los ya enviados no se pueden recoger. No se puede deshacer.`;
  }
}

/** The segment's conditions in words. */
function segmentWords(segment: Record<string, unknown>): string[] {
  const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : '');
  const words: string[] = [];
  if (segment.all) words.push('Todas las personas con autorización de WhatsApp');
  if (segment.interestsAny) words.push(`Con alguno de estos intereses: ${list(segment.interestsAny)}`);
  if (segment.interestsAll) words.push(`Con todos estos intereses: ${list(segment.interestsAll)}`);
  if (Array.isArray(segment.territoryIds)) words.push(plural(segment.territoryIds.length, 'territorio (con lo que está dentro)', 'territorios (con lo que está dentro)'));
  if (Array.isArray(segment.qrCampaignIds)) words.push(`Llegadas por ${plural(segment.qrCampaignIds.length, 'campaña de afiches', 'campañas de afiches')}`);
  if (typeof segment.createdFrom === 'string') words.push(`Registradas desde ${formatDateTime(segment.createdFrom)}`);
  if (typeof segment.createdTo === 'string') words.push(`Registradas hasta ${formatDateTime(segment.createdTo)}`);
  return words;
}

/** One campaign: its progress moving live, its figures, and pause, resume, cancel or send with confirmation. */
export function CampaignDetail() {
  const { campaignId = '' } = useParams();
  const { user } = useSignedIn();
  const manages = rolePermitted(user.role, whatsappPolicy.roles('manageCampaigns'));
  const campaign = useQuery({ queryKey: campaignKeys.campaign(campaignId), queryFn: () => api.get<Campaign>(`${CAMPAIGNS_PATH}/${campaignId}`) });
  const [act, setAct] = useState<Act | null>(null);
  const [sendNotice, setSendNotice] = useState<string | null>(null);

  useLiveEvent('whatsapp:status', ({ campaigns }) => {
    const item = campaigns.find((candidate) => candidate.campaignId === campaignId);
    if (!item) return;
    queryClient.setQueryData<Campaign>(campaignKeys.campaign(campaignId), (current) =>
      current ? { ...current, status: item.status as CampaignStatus, progress: item.progress } : current,
    );
  });

  if (!campaign.isSuccess) return campaignNotReady(campaign, CAMPAIGN_PROBLEMS);
  const view = campaign.data;
  const { progress } = view;
  const simulated = progress.simulated > 0;
  const made = simulated ? ' (simulado)' : '';

  const run = async (chosen: Act) => {
    if (chosen === 'send') {
      const answer = await api.post<SendAnswer>(`${CAMPAIGNS_PATH}/${campaignId}/send`, {});
      setSendNotice(answer.notice);
      await queryClient.invalidateQueries({ queryKey: campaignKeys.campaign(campaignId) });
    } else {
      queryClient.setQueryData(campaignKeys.campaign(campaignId), await api.post<Campaign>(`${CAMPAIGNS_PATH}/${campaignId}/${chosen}`, {}));
    }
    void invalidateServerLists(CAMPAIGNS_PATH);
  };

  const rate = (part: number, whole: number) => (whole > 0 ? formatPercent((part / whole) * 100) : '—');
  return (
    <>
      <PageTitle actions={<CampaignStatusBadge status={view.status} />}>{view.name}</PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>
        Esta campaña no sale a WhatsApp: el simulador toma cada mensaje e inventa sus entregas, lecturas y respuestas. Ninguna cifra de aquí viene de Meta.
      </SimulatorNotice>
      <Stack>
        {(view.notice || sendNotice) && (
          <Alert color="orange" role="status" title="Aviso del envío">
            {view.notice ?? sendNotice}
          </Alert>
        )}
        <CampaignSection id="avance" title="Avance">
          <div aria-live="polite">
            <CampaignProgress campaign={view} size="lg" />
          </div>
          {manages && (
            <ActButtons acts={(Object.keys(ACTS) as Act[]).filter((candidate) => ACTS[candidate].from.includes(view.status))} words={ACTS} onChoose={setAct} variant="filled" />
          )}
        </CampaignSection>
        <CampaignSection id="cifras" title="Cifras">
          {simulated && (
            <Text size="sm" mb="xs">
              El simulador tomó {plural(progress.simulated, 'mensaje', 'mensajes')}: no llegaron a WhatsApp, y sus entregas y lecturas no son de Meta.
            </Text>
          )}
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
            <Figure label="Alcance" value={formatNumber(view.audienceSize)} hint="al crearla" />
            <Figure label="En cola" value={formatNumber(progress.queued + progress.sending)} />
            <Figure label={`Enviados${made}`} value={formatNumber(progress.sent)} />
            <Figure label={`Entregados${made}`} value={formatNumber(progress.delivered)} hint={`${rate(progress.delivered, progress.sent)} de los enviados`} />
            <Figure label={`Leídos${made}`} value={formatNumber(progress.read)} hint={`${rate(progress.read, progress.delivered)} de los entregados`} />
            <Figure label={`Respuestas${made}`} value={formatNumber(progress.replied)} hint={`${rate(progress.replied, progress.delivered)} de los entregados`} />
            <Figure label="Fallidos" value={formatNumber(progress.failed)} />
            <Figure label="En duda" value={formatNumber(progress.inDoubt)} hint="nunca se reenvían solos" />
            <Figure label="Omitidos" value={formatNumber(progress.skipped)} hint="se dieron de baja antes" />
            <Figure label="Cancelados" value={formatNumber(progress.cancelled)} />
            <Figure label="Simulados" value={formatNumber(progress.simulated)} hint="no salieron a WhatsApp" />
          </SimpleGrid>
        </CampaignSection>
        <CampaignTimes createdAt={view.createdAt} scheduledAt={view.scheduledAt} startedAt={view.startedAt} endedAt={view.completedAt}>
          <Text size="sm">Segmento: {segmentWords(view.segment).join('; ') || '—'}</Text>
        </CampaignTimes>
      </Stack>
      {act && <ActDialog act={act} words={ACTS} onClose={() => setAct(null)} run={run} explanation={explain(act, view)} problems={CAMPAIGN_PROBLEMS} />}
    </>
  );
}
