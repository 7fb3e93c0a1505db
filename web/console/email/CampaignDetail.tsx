import { Alert, Anchor, Badge, Button, Loader, Progress, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { api, queryClient } from '../app/api';
import { formatDateTime, formatNumber, plural } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { Figure } from '../app/Figure';
import { ActButtons, ActDialog, CampaignSection, campaignNotReady, CampaignTimes, type ActWords } from '../campaigns/CampaignDetailParts';
import { StatusBadge } from './CampaignList';
import { EmailTabs } from './EmailTabs';
import {
  CAMPAIGNS_PATH,
  countAndRate,
  EMAIL_PROBLEMS,
  emailKeys,
  PHASE_LABELS,
  rateWords,
  REASON_LABELS,
  significanceWords,
  type EmailCampaign,
  type EmailStats,
  type SendAnswer,
} from './data';

type Act = 'send' | 'decide-winner' | 'resume';

const ACTS: Record<Act, ActWords> = {
  send: { button: 'Enviar ahora', title: 'Enviar la campaña', confirm: 'Enviar' },
  'decide-winner': { button: 'Decidir la ganadora ahora', title: 'Terminar la espera de la prueba A/B', confirm: 'Decidir y enviar' },
  resume: { button: 'Reanudar', title: 'Reanudar el envío', confirm: 'Reanudar' },
};

function explain(act: Act, campaign: EmailCampaign): string {
  switch (act) {
    case 'send':
      return campaign.abTest
        ? `Sale ya la prueba: el ${campaign.abTest.testPercent} % del segmento recibe las ${campaign.variants.length} variantes por igual; tras ${plural(campaign.abTest.waitMinutes, 'minuto', 'minutos')} la ganadora va al resto. Las personas se cuentan de nuevo al enviar. No se puede deshacer.`
        : `Se escribirá un correo para cada una de las ${formatNumber(campaign.audienceSize)} personas del segmento que hoy pueden recibirlo (se cuentan de nuevo al enviar). No se puede deshacer.`;
    case 'decide-winner':
      return 'Se decide con las cifras de ahora, con la misma regla que al terminar la espera, y la ganadora sale al resto del segmento. Con pocas cifras, gana la variante de control.';
    case 'resume':
      return 'El envío sigue donde quedó. Hágalo cuando se haya corregido lo que lo detuvo (el aviso dice qué).';
  }
}

/** The A/B test: each variant's figures over its test share, and the decision with its significance. */
function AbSection({ campaign, stats }: { campaign: EmailCampaign; stats: EmailStats }) {
  const { abTest } = stats;
  const significance = significanceWords(abTest.pValue, abTest.zScore);
  return (
    <CampaignSection id="prueba-ab" title="Prueba A/B">
      <Stack gap="xs">
        <Text size="sm">
          {/* A test set up and not yet started is phase "none" too: it is said as planned, not as absent. */}
          {abTest.phase === 'none' && campaign.abTest ? 'Prueba A/B preparada: empieza con el envío' : PHASE_LABELS[abTest.phase]}.{' '}
          {campaign.abTest && `Prueba con el ${campaign.abTest.testPercent} % del segmento; gana por ${abTest.metric === 'open' ? 'aperturas' : 'clics'}.`}
        </Text>
        {abTest.phase === 'waiting' && campaign.abDecideAt && <Text size="sm">Se decide sola el {formatDateTime(campaign.abDecideAt)}.</Text>}
        {abTest.winner && (
          <Alert color="green" role="status" title={`Ganadora: variante ${abTest.winner}`}>
            <Stack gap={4}>
              {abTest.reason && <Text size="sm">{REASON_LABELS[abTest.reason] ?? abTest.reason}</Text>}
              {significance && <Text size="sm">{significance}</Text>}
              {abTest.excluded.length > 0 && <Text size="sm">Excluidas por provocar bajas: {abTest.excluded.join(', ')}.</Text>}
              {abTest.decidedAt && <Text size="sm">Decidida el {formatDateTime(abTest.decidedAt)}.</Text>}
            </Stack>
          </Alert>
        )}
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Caption>Cifras de cada variante sobre los correos entregados (toda la campaña; la decisión usó solo la muestra de prueba)</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Variante</Table.Th>
                <Table.Th>Asunto</Table.Th>
                <Table.Th ta="right">Destinatarios</Table.Th>
                <Table.Th ta="right">Entregados</Table.Th>
                <Table.Th ta="right">Aperturas únicas</Table.Th>
                <Table.Th ta="right">Clics únicos</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {stats.variants.map((variant) => (
                <Table.Tr key={variant.name}>
                  <Table.Td>
                    {variant.name}{' '}
                    {abTest.winner === variant.name && (
                      <Badge color="green" variant="light" tt="none" c="#1b6b2c">
                        ganadora
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{variant.subject}</Table.Td>
                  <Table.Td ta="right">{formatNumber(variant.recipients)}</Table.Td>
                  <Table.Td ta="right">{formatNumber(variant.sent)}</Table.Td>
                  <Table.Td ta="right">{countAndRate(variant.uniqueOpens, variant.openRate)}</Table.Td>
                  <Table.Td ta="right">{countAndRate(variant.uniqueClicks, variant.clickRate)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>
    </CampaignSection>
  );
}

/** One campaign: progress and state live over the socket, the figures, the A/B decision, and send, decide or resume. */
export function CampaignDetail() {
  const { campaignId = '' } = useParams();
  const { user } = useSignedIn();
  const manages = rolePermitted(user.role, emailPolicy.roles('manageCampaigns'));
  const campaign = useQuery({ queryKey: emailKeys.campaign(campaignId), queryFn: () => api.get<EmailCampaign>(`${CAMPAIGNS_PATH}/${campaignId}`) });
  const stats = useQuery({ queryKey: emailKeys.stats(campaignId), queryFn: () => api.get<EmailStats>(`${CAMPAIGNS_PATH}/${campaignId}/stats`) });
  const [act, setAct] = useState<Act | null>(null);

  // State changes carry the new status; progress (at most once a second) says figures moved.
  useLiveEvent('email:campaign', (event) => {
    if (event.campaignId !== campaignId) return;
    queryClient.setQueryData<EmailCampaign>(emailKeys.campaign(campaignId), (current) =>
      current ? { ...current, status: event.status, abPhase: event.abPhase, winner: event.winner } : current,
    );
    void queryClient.invalidateQueries({ queryKey: emailKeys.campaign(campaignId) });
    void queryClient.invalidateQueries({ queryKey: emailKeys.stats(campaignId) });
  });
  useLiveEvent('email:progress', (event) => {
    if (event.campaignId !== campaignId) return;
    queryClient.setQueryData<EmailStats>(emailKeys.stats(campaignId), (current) =>
      current ? { ...current, sent: current.sent + event.sent, bounced: current.bounced + event.bounced, failed: current.failed + event.failed } : current,
    );
    void queryClient.invalidateQueries({ queryKey: emailKeys.stats(campaignId) });
  });

  if (!campaign.isSuccess) return campaignNotReady(campaign, EMAIL_PROBLEMS);
  const view = campaign.data;
  const figures = stats.data;
  const acts: Act[] = [];
  const editable = view.status === 'draft' || view.status === 'scheduled';
  if (editable) acts.push('send');
  if (view.abPhase === 'waiting') acts.push('decide-winner');
  if (view.status === 'paused') acts.push('resume');

  const run = async (chosen: Act) => {
    if (chosen === 'send') await api.post<SendAnswer>(`${CAMPAIGNS_PATH}/${campaignId}/send`, {});
    else queryClient.setQueryData(emailKeys.campaign(campaignId), await api.post<EmailCampaign>(`${CAMPAIGNS_PATH}/${campaignId}/${chosen}`, {}));
    await Promise.all([queryClient.invalidateQueries({ queryKey: emailKeys.campaign(campaignId) }), queryClient.invalidateQueries({ queryKey: emailKeys.stats(campaignId) })]);
    void invalidateServerLists(CAMPAIGNS_PATH);
  };

  const done = figures ? figures.sent + figures.bounced + figures.failed : 0;
  const percent = view.audienceSize ? Math.min(100, Math.round((done / view.audienceSize) * 100)) : 0;
  return (
    <>
      <PageTitle actions={<StatusBadge status={view.status} />}>{view.name}</PageTitle>
      <EmailTabs />
      <Stack>
        {view.notice && (
          <Alert color="orange" role="status" title="El envío se detuvo">
            {view.notice}
          </Alert>
        )}
        <CampaignSection id="avance" title="Avance">
          <div aria-live="polite">
            <Progress value={percent} size="lg" aria-label={`Avance de ${view.name}`} color={view.status === 'paused' ? 'orange' : undefined} />
            <Text size="sm" mt={4}>
              {view.status === 'draft' || view.status === 'scheduled'
                ? 'Sin enviar.'
                : `${percent} %: ${formatNumber(done)} de ${formatNumber(view.audienceSize)} procesados${view.abPhase === 'waiting' ? ' (el resto espera a la ganadora)' : ''}.`}
            </Text>
          </div>
          {manages && (acts.length > 0 || editable) && (
            <ActButtons acts={acts} words={ACTS} onChoose={setAct}>
              {editable && (
                <Button variant="default" component={Link} to={`/correo/${view.id}/editar`}>
                  Cambiar
                </Button>
              )}
            </ActButtons>
          )}
        </CampaignSection>
        <CampaignSection id="cifras" title="Cifras">
          {stats.isError && (
            <Alert color="red" role="alert">
              {problemMessage(stats.error, EMAIL_PROBLEMS)}
            </Alert>
          )}
          {figures ? (
            <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
              <Figure label="Alcance" value={formatNumber(view.audienceSize)} hint="al crearla" />
              <Figure label="Entregados" value={formatNumber(figures.sent)} hint="aceptados por el servidor de correo" />
              <Figure
                label="Aperturas únicas"
                value={countAndRate(figures.opens.unique, figures.opens.rate)}
                hint={`${formatNumber(figures.opens.total)} aperturas de personas registradas; quien hizo clic cuenta como abierto`}
              />
              <Figure label="Aperturas de máquinas" value={formatNumber(figures.opens.machine)} hint="Apple Mail Privacy, antivirus y robots: aparte, no cuentan" />
              <Figure
                label="Clics únicos"
                value={countAndRate(figures.clicks.unique, figures.clicks.rate)}
                hint={`${formatNumber(figures.clicks.total)} en total; ${rateWords(figures.clicks.clickToOpenRate)} de quienes abrieron`}
              />
              <Figure label="Bajas" value={formatNumber(figures.unsubscribed)} hint="cancelaron la suscripción desde el correo" />
              <Figure label="Rebotes duros" value={formatNumber(figures.bounced)} hint="dirección rechazada: no se le vuelve a escribir" />
              <Figure
                label="Rebotes blandos"
                value={formatNumber(figures.softBounced)}
                hint={`respuesta temporal (4xx) o sin conexión al menos una vez; ${figures.retrying ? `${formatNumber(figures.retrying)} esperan reintento` : 'ninguno espera reintento'}`}
              />
              <Figure label="Fallidos" value={formatNumber(figures.failed)} hint="mensaje rechazado, o rebote blando que agotó sus reintentos" />
            </SimpleGrid>
          ) : (
            !stats.isError && <Loader size="sm" aria-label="Cargando las cifras" />
          )}
        </CampaignSection>
        {figures && view.abTest && <AbSection campaign={view} stats={figures} />}
        {figures && figures.links.length > 0 && (
          <CampaignSection id="enlaces" title="Enlaces">
            <Table.ScrollContainer minWidth={500}>
              <Table striped>
                <Table.Caption>Clics por enlace</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Enlace</Table.Th>
                    <Table.Th ta="right">Clics únicos</Table.Th>
                    <Table.Th ta="right">Clics en total</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {figures.links.map((link) => (
                    <Table.Tr key={link.url}>
                      <Table.Td style={{ wordBreak: 'break-all' }}>
                        <Anchor href={link.url} target="_blank" rel="noreferrer">
                          {link.url}
                        </Anchor>
                      </Table.Td>
                      <Table.Td ta="right">{formatNumber(link.uniqueClicks)}</Table.Td>
                      <Table.Td ta="right">{formatNumber(link.totalClicks)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </CampaignSection>
        )}
        <CampaignTimes createdAt={view.createdAt} scheduledAt={view.scheduledAt} startedAt={view.startedAt} endedAt={view.finishedAt}>
          <Text size="sm">
            Remitente: {view.fromName} &lt;{view.fromEmail}&gt;{view.replyTo ? `; respuestas a ${view.replyTo}` : ''}
          </Text>
        </CampaignTimes>
      </Stack>
      {act && <ActDialog act={act} words={ACTS} onClose={() => setAct(null)} run={run} explanation={explain(act, view)} problems={EMAIL_PROBLEMS} />}
    </>
  );
}
