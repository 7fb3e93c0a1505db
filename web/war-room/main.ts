import { StationMap, type TileConfig } from './map';
import './war-room.css';
import { ApiError, clock, number } from '../lib/api';
import { WEB_APPS } from '../lib/apps';
import { WebSession } from '../lib/session';
import { bindSignInForm, showSignIn } from '../lib/sign-in-form';
import type {
  Dashboard,
  Incident,
  IncidentEvent,
  LiveMap,
  Page,
  Projection,
  ProjectionSummary,
  SocialAlert,
  SocialAlertEvent,
  StationEvent,
  Territory,
  TerritoryDetail,
  TurnoutItem,
  WhatsappActivity,
  WhatsappActivityEvent,
} from '../lib/api-types';
import { byId, h, setText } from '../lib/dom';
import { incidentTypes, phases, severities } from '../lib/labels';
import { connectLive } from '../lib/live';
import { drawCurve } from './chart';
import { ReloadController, type ReloadReason } from './reload';
import { ScreenState, WarRoomState } from './state';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';

// The shared sign-in: the session in sessionStorage (a wall screen's tab), ended when the token runs out; the war room's roles from the GOTV policy.
const session = new WebSession(WEB_APPS.warRoom, sessionStorage, 'comando.war-room', { endAtExpiry: true });
const api = session.api;
/** The figures, as plain data. */
const state = new WarRoomState();
/** Everything else the screen keeps. */
const view = new ScreenState<StationMap>();
/** When the figures are read again from REST (one reload at a time; none asked for is dropped). */
const reloads = new ReloadController({ load: (reason) => reload(reason), isFinal: (error) => error instanceof ApiError && error.status === 401 });
const MAX_ALERTS = 80;
/** Social alerts and WhatsApp replies read on every (re)load: those that came before the screen opened. */
const RECENT_OTHERS = 20;
/** A full reload from REST this often, whatever happens: the screen never drifts from the API for long. */
const RECONCILE_MS = 60_000;

/** The tile server, when the campaign has one: given by the server in meta tags (no inline script). */
function tileConfig(): TileConfig | undefined {
  const url = document.querySelector<HTMLMetaElement>('meta[name="comando:map-tiles"]')?.content;
  if (!url) return undefined;
  return { url, attribution: document.querySelector<HTMLMetaElement>('meta[name="comando:map-attribution"]')?.content ?? '' };
}

function requestFrame(): void {
  if (view.frameRequested) return;
  view.frameRequested = true;
  requestAnimationFrame(render);
}

/** Everything that changed since the last frame, drawn once: 200 reports a second cost one redraw per frame. */
function render(): void {
  view.frameRequested = false;
  const only = view.filter?.stations;
  if (state.dirty.stations && view.map) {
    const changed = [...state.changed].map((id) => state.stations.get(id)).filter((station) => station !== undefined && (!only || only.has(station.id)));
    view.map.update(changed as NonNullable<(typeof changed)[number]>[]);
    state.changed.clear();
  }
  if (state.dirty.totals) {
    const totals = state.totals(only);
    counter('c-confirmed', totals.confirmed);
    counter('c-voted', totals.voted);
    counter('c-pending', totals.pending);
    counter('c-open', totals.open);
    counter('c-closed', totals.closed);
    counter('c-incident', view.incidentsToday(only));
    setText(byId('c-incident-now'), `${number.format(totals.incident)} ${totals.incident === 1 ? 'puesto sigue' : 'puestos siguen'} en incidente`);
    setText(byId('c-voted-pct'), totals.confirmed ? `${((totals.voted / totals.confirmed) * 100).toFixed(1)} %` : '');
    pendingDue(only);
  }
  // A new projection is drawn at once; the hourly bars alone (every report moves them) at most every two seconds.
  if (state.dirty.projection || (state.dirty.hourly && performance.now() - view.curveDrawnAt > 2000)) {
    view.curveDrawnAt = performance.now();
    renderCurve();
    state.dirty.hourly = false;
  } else if (state.dirty.hourly) view.curveTimer ??= window.setTimeout(() => ((view.curveTimer = undefined), requestFrame()), 2000);
  state.dirty = { stations: false, totals: false, hourly: state.dirty.hourly, projection: false };
}

function counter(id: string, value: number): void {
  const element = byId(id);
  element.dataset.value = String(value);
  setText(element, number.format(value));
}

/** The table is re-sorted and rebuilt at most twice a second: under a burst, counters move, rows need not. */
function pendingDue(only: ReadonlySet<string> | undefined): void {
  const wait = view.pendingDrawnAt + 500 - performance.now();
  if (wait <= 0) {
    view.pendingDrawnAt = performance.now();
    renderPending(only);
  } else
    view.pendingTimer ??= window.setTimeout(() => {
      view.pendingTimer = undefined;
      view.pendingDrawnAt = performance.now();
      renderPending(view.filter?.stations);
    }, wait);
}

function renderPending(only: ReadonlySet<string> | undefined): void {
  const rows = state
    .mostPending(10, only)
    .map((station) =>
      h(
        'tr',
        {},
        h('td', {}, station.name, h('span', { class: 'code' }, ` ${station.code}`)),
        h('td', { class: 'num' }, number.format(station.confirmedVoters - station.confirmedVoted)),
        h('td', { class: 'num' }, `${number.format(station.confirmedVoted)} de ${number.format(station.confirmedVoters)}`),
      ),
    );
  byId('pending').replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'Ningún puesto con apoyos pendientes.'))]));
}

function nowMinutesIn(timeZone: string): number {
  const [hours, minutes] = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone }).format(new Date()).split(':').map(Number);
  return ((hours ?? 0) % 24) * 60 + (minutes ?? 0);
}

function renderCurve(): void {
  const projection = view.filter ? view.filter.projection : state.projection;
  drawCurve(byId('curve'), projection?.curve, state.hourly, nowMinutesIn(state.timeZone));
  const box = byId('projection');
  if (!projection) {
    setText(byId('phase'), '');
    box.replaceChildren(h('p', { id: 'p-none', class: 'muted' }, 'Sin proyección todavía: falta configurar la fecha de la elección.'));
    return;
  }
  setText(byId('phase'), `· ${phases[projection.phase] ?? projection.phase}`);
  // Under a filter the overall figures are the chosen territory's, with everything inside it.
  const figures = projection.overall;
  // A projection is an estimate: it is named as one, with its interval, and says when there is none yet.
  const range = (value: number | null, low: number | null, high: number | null) =>
    value === null ? 'Sin proyección todavía: faltan conteos de los puestos.' : `${number.format(value)} (${number.format(low ?? value)}–${number.format(high ?? value)})`;
  const coverage = Math.round(projection.coverage * 100);
  box.replaceChildren(
    h(
      'dl',
      {},
      h('dt', {}, 'Proyección al cierre: votantes'),
      h('dd', { id: 'p-turnout', 'data-value': figures.projectedTurnout ?? '' }, range(figures.projectedTurnout, figures.projectedTurnoutLow, figures.projectedTurnoutHigh)),
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'Proyección al cierre: apoyos que votarán'),
      h('dd', { id: 'p-confirmed', 'data-value': figures.projectedConfirmedVoted ?? '' }, range(figures.projectedConfirmedVoted, figures.low, figures.high)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Estimaciones, no conteos: entre paréntesis, el intervalo al ${coverage} %. ${number.format(figures.reportingStations)} de ${number.format(figures.stations)} puestos con conteo. Curva ${projection.curve.scope === 'territory' ? 'del territorio' : 'del día'}: ${projection.curve.countedStations} puestos.`,
    ),
  );
}

function renderConnection(): void {
  const element = byId('connection');
  element.dataset.state = view.liveState;
  const text =
    view.liveState === 'live'
      ? view.resyncedAt
        ? `En vivo · resincronizado ${clock(view.resyncedAt, state.timeZone)}`
        : 'En vivo'
      : view.liveState === 'reconnecting'
        ? 'Reconectando…'
        : 'Conectando…';
  setText(element, text);
}

function beep(): void {
  if (!view.sound) return;
  const context = new AudioContext();
  const tone = context.createOscillator();
  const gain = context.createGain();
  tone.frequency.value = 880;
  gain.gain.value = 0.15;
  tone.connect(gain).connect(context.destination);
  tone.start();
  tone.stop(context.currentTime + 0.2);
  tone.onended = () => void context.close();
}

/** What the feed shows, by kind and id: one read from REST and also heard live is shown once. */
const shown = new Map<string, HTMLElement>();

/** Puts an alert in the feed in time order (newest first), whether it is live or read on a reload; undefined when it is there already. */
function addAlert(
  key: string,
  kind: 'incident' | 'social' | 'whatsapp',
  title: string | HTMLElement,
  detail: string,
  severity: string,
  at: string,
  live = true,
): HTMLElement | undefined {
  if (shown.get(key)?.isConnected) return undefined;
  const list = byId('alerts');
  const item = h(
    'li',
    { class: `alert-item ${kind} severity-${severity}`, 'data-at': at, 'data-key': key },
    h('time', { datetime: at }, clock(new Date(at), state.timeZone)),
    typeof title === 'string' ? h('strong', {}, title) : title,
    h('span', {}, detail),
  );
  const later = [...list.children].find((other) => ((other as HTMLElement).dataset.at ?? '') < at);
  list.insertBefore(item, later ?? null);
  byId('no-alerts').hidden = true;
  while (list.children.length > MAX_ALERTS) list.lastElementChild?.remove();
  shown.set(key, item);
  for (const [other, element] of shown) if (!element.isConnected) shown.delete(other);
  if (live && (severity === 'high' || severity === 'critical')) beep();
  return item;
}

function incidentDetail(incident: { stationId: string; severity: string; hasPhoto?: boolean }): string {
  const station = state.stations.get(incident.stationId);
  return `${station ? station.name : 'Puesto'} · gravedad ${severities[incident.severity] ?? incident.severity}${incident.hasPhoto ? ' · con foto' : ''}`;
}

function showIncident(incident: { id: string; stationId: string; type: string; severity: string; createdAt: string; hasPhoto?: boolean }, live: boolean): void {
  if (live && view.countIncident(incident.id, incident.stationId)) {
    state.dirty.totals = true;
    requestFrame();
  }
  const existing = shown.get(`incident:${incident.id}`);
  if (existing?.isConnected) {
    // Read again on a reload: only what may have changed since (a photo added) is redrawn.
    if (incident.hasPhoto) setText(existing.querySelector('span')!, incidentDetail(incident));
    return;
  }
  const title = `Incidente: ${incidentTypes[incident.type] ?? incident.type}`;
  const open = h('button', { type: 'button', class: 'open', 'aria-haspopup': 'dialog', onclick: () => void openIncident(incident.id) }, title);
  const item = addAlert(`incident:${incident.id}`, 'incident', open, incidentDetail(incident), incident.severity, incident.createdAt, live);
  if (item) item.dataset.incident = incident.id;
}

/** The day's incidents from REST (the counter's), the latest of them merged into the feed (those already shown stay as they are). */
async function loadIncidents(since: string): Promise<void> {
  const incidents = await api.all<Incident>(`/api/gotv/incidents?since=${encodeURIComponent(since)}`);
  view.dayIncidents = new Map(incidents.map((incident) => [incident.id, incident.pollingStationId]));
  for (const incident of incidents.slice(0, MAX_ALERTS)) {
    showIncident(
      { id: incident.id, stationId: incident.pollingStationId, type: incident.type, severity: incident.severity, createdAt: incident.createdAt, hasPhoto: incident.photo !== null },
      false,
    );
  }
}

function showSocialAlert(alert: { id: string; title: string; severity: string; createdAt: string }, live: boolean): void {
  addAlert(`social:${alert.id}`, 'social', 'Redes sociales', alert.title, alert.severity, alert.createdAt, live);
}

function showWhatsappReply(message: { id: string; direction: string; createdAt: string }, live: boolean): void {
  if (message.direction === 'in') addAlert(`whatsapp:${message.id}`, 'whatsapp', 'WhatsApp', 'Nueva respuesta de un contacto', 'low', message.createdAt, live);
}

/** Social alerts and WhatsApp replies that came before the screen opened (or while it was away); a module the account may not read is left out. */
async function loadRecentOthers(): Promise<void> {
  const [alerts, replies] = await Promise.allSettled([
    api.get<Page<SocialAlert>>(`/api/social-monitoring/alerts?limit=${RECENT_OTHERS}`),
    api.get<Page<WhatsappActivity>>(`/api/whatsapp/activity?direction=in&limit=${RECENT_OTHERS}`),
  ]);
  if (alerts.status === 'fulfilled') for (const alert of alerts.value.data) showSocialAlert(alert, false);
  if (replies.status === 'fulfilled') for (const reply of replies.value.data) showWhatsappReply(reply, false);
}

/** An incident's detail in a dialog: read afresh (its photo may have arrived), the photo fetched with the session's token. */
async function openIncident(id: string): Promise<void> {
  const dialog = byId<HTMLDialogElement>('incident');
  const body = byId('incident-body');
  setText(byId('incident-title'), 'Incidente');
  body.replaceChildren(h('p', { class: 'muted' }, 'Cargando…'));
  if (!dialog.open) dialog.showModal();
  let incident: Incident;
  try {
    incident = await api.get<Incident>(`/api/gotv/incidents/${id}`);
  } catch {
    body.replaceChildren(h('p', { class: 'error' }, 'No se pudo leer el incidente. Intente de nuevo.'));
    return;
  }
  const station = state.stations.get(incident.pollingStationId);
  const at = new Date(incident.createdAt);
  setText(byId('incident-title'), `Incidente: ${incidentTypes[incident.type] ?? incident.type}`);
  const row = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];
  const photo = h('figure', { class: 'photo' }, h('p', { class: 'muted' }, incident.photo ? 'Cargando la foto…' : 'Sin foto.'));
  body.replaceChildren(
    h(
      'dl',
      { class: 'facts' },
      ...row('Puesto', station ? `${station.name} (${station.code})` : 'Puesto'),
      ...row('Hora', `${clock(at, state.timeZone)} · ${at.toLocaleDateString('es-CO', { timeZone: state.timeZone, day: 'numeric', month: 'long' })}`),
      ...row('Gravedad', severities[incident.severity] ?? incident.severity),
      ...row('Reportó', incident.reportedByName ?? 'Sin nombre'),
    ),
    h('h3', {}, 'Qué pasó'),
    h('p', { class: 'description' }, incident.description),
    photo,
  );
  if (!incident.photo) return;
  try {
    const blob = await api.download(`/api/gotv/incidents/${id}/photo`);
    if (!dialog.open) return;
    releasePhoto();
    view.photoUrl = URL.createObjectURL(blob);
    photo.replaceChildren(
      h('img', { src: view.photoUrl, alt: `Foto del incidente en ${station?.name ?? 'el puesto'}` }),
      h('figcaption', { class: 'muted' }, 'Foto tomada por quien lo reportó.'),
    );
  } catch {
    photo.replaceChildren(h('p', { class: 'error' }, 'No se pudo cargar la foto.'));
  }
}

function releasePhoto(): void {
  if (view.photoUrl) URL.revokeObjectURL(view.photoUrl);
  view.photoUrl = undefined;
}

/** The figures from REST, whole: after connecting, after a reconnection without recovery, after `resync`, and every minute (`reloads` runs one at a time). */
async function reload(reason: ReloadReason): Promise<void> {
  const [live, dashboard, projection] = await Promise.all([
    api.get<LiveMap>('/api/gotv/live-map'),
    api.get<Dashboard>('/api/gotv/dashboard'),
    api.get<Projection>('/api/gotv/projection').then(summaryOf, (error: unknown) => {
      if (error instanceof ApiError && error.status === 409) return undefined; // no election date yet
      throw error;
    }),
  ]);
  state.load(live, dashboard, projection);
  // After the stations, so the feed names them; the same day as the dashboard's count of incidents.
  await Promise.all([loadIncidents(dashboard.incidents.since), loadRecentOthers()]);
  view.map?.update(state.stations.values(), view.filter?.stations ?? new Set(state.stations.keys()));
  if (view.filter) await loadFilter(view.filter.territoryId);
  view.loads++;
  document.body.dataset.loads = String(view.loads);
  if (reason === 'resync' || reason === 'reconnect') view.resyncedAt = new Date();
  renderConnection();
  requestFrame();
}

/** What the screen keeps of the overall projection: what the push carries. */
function summaryOf(projection: Projection): ProjectionSummary {
  const { byTerritory: _perTerritory, ...summary } = projection;
  return summary;
}

async function loadFilter(territoryId: string): Promise<void> {
  const [live, projection] = await Promise.all([
    api.get<LiveMap>(`/api/gotv/live-map?territoryId=${territoryId}`),
    api.get<Projection>(`/api/gotv/projection?territoryId=${territoryId}`).catch(() => undefined),
  ]);
  view.filter = { territoryId, stations: new Set(live.features.map((feature) => feature.properties.id)), projection };
}

/** A territory's projection is not pushed: it is asked for again after pushes, at most every five seconds. */
function refreshFilterProjection(): void {
  if (!view.filter || view.filterRefresh !== undefined) return;
  view.filterRefresh = window.setTimeout(() => {
    view.filterRefresh = undefined;
    if (!view.filter) return;
    const territoryId = view.filter.territoryId;
    void api.get<Projection>(`/api/gotv/projection?territoryId=${territoryId}`).then((projection) => {
      if (view.filter?.territoryId !== territoryId) return;
      view.filter.projection = projection;
      state.dirty.projection = true;
      requestFrame();
    });
  }, 5000);
}

async function applyFilter(territoryId: string): Promise<void> {
  if (territoryId) await loadFilter(territoryId);
  else view.filter = undefined;
  if (view.map) view.map.filtered = Boolean(view.filter);
  view.map?.update(state.stations.values(), view.filter?.stations ?? new Set(state.stations.keys()));
  view.map?.fit();
  state.dirty = { stations: false, totals: true, hourly: true, projection: true };
  requestFrame();
}

/** Territory outlines: the finest level that has shapes among communes and municipalities (at most 200). */
async function loadTerritories(): Promise<void> {
  const territories = await api.all<Territory>('/api/territories');
  const select = byId<HTMLSelectElement>('territory');
  const levels: Record<string, string> = { department: 'Departamento', municipality: 'Municipio', commune: 'Comuna', neighbourhood: 'Barrio', zone: 'Zona' };
  for (const territory of territories.filter((t) => t.type !== 'neighbourhood').sort((a, b) => a.name.localeCompare(b.name))) {
    select.append(h('option', { value: territory.id }, `${territory.name} (${levels[territory.type] ?? territory.type})`));
  }
  const level = ['commune', 'municipality', 'neighbourhood'].find((type) => territories.some((territory) => territory.type === type));
  const shown = territories.filter((territory) => territory.type === level).slice(0, 200);
  const details: TerritoryDetail[] = [];
  for (let i = 0; i < shown.length; i += 8) {
    details.push(...(await Promise.all(shown.slice(i, i + 8).map((territory) => api.get<TerritoryDetail>(`/api/territories/${territory.id}`)))));
  }
  view.map?.showTerritories(details);
}

const PAGE_RELOAD_KEY = 'comando.war-room.reloaded-for-format';

/**
 * A window this page cannot read means the server is newer than the page (a deploy while the
 * screen was open): the page reloads to get the screens the server now serves (once in ten minutes
 * at most, `ScreenState.unreadableTurnout`), within 5 s, so that a war room's screens do not all ask
 * at once; otherwise the figures come from REST, at most every 30 s.
 */
function unreadableTurnout(): void {
  const now = Date.now();
  const answer = view.unreadableTurnout(now, Number(sessionStorage.getItem(PAGE_RELOAD_KEY) ?? 0));
  if (answer === 'page') {
    sessionStorage.setItem(PAGE_RELOAD_KEY, String(now));
    setTimeout(() => location.reload(), Math.random() * 5000);
  } else if (answer === 'figures') void reloads.request('resync');
}

function start(): void {
  byId('login').hidden = true;
  byId('screen').hidden = false;
  view.map = new StationMap(byId('map'), tileConfig());
  void loadTerritories().catch(() => undefined);
  const socket = connectLive({
    token: () => session.current?.token,
    rooms: ['gotv', 'social', 'whatsapp'],
    onState: (next) => {
      view.liveState = next;
      renderConnection();
    },
    onReload: (reason) => void reloads.request(reason),
    onUnauthorized: () => showLogin('La sesión terminó. Ingrese de nuevo.'),
  });
  socket.on('gotv:turnout', (message: TurnoutMessage) => {
    reloads.noteEvent();
    let items: TurnoutItem[];
    try {
      items = decodeTurnout(message);
    } catch (error) {
      console.warn('gotv:turnout not readable here', error);
      unreadableTurnout();
      return;
    }
    state.applyTurnout(items);
    requestFrame();
  });
  socket.on('gotv:station', (event: StationEvent) => {
    reloads.noteEvent();
    state.applyStation(event);
    requestFrame();
  });
  socket.on('gotv:projection', (summary: ProjectionSummary) => {
    state.applyProjection(summary);
    refreshFilterProjection();
    requestFrame();
  });
  socket.on('gotv:incident', (incident: IncidentEvent) => {
    reloads.noteEvent();
    showIncident({ ...incident, hasPhoto: incident.photo }, true);
  });
  socket.on('social:alert', (alert: SocialAlertEvent) => showSocialAlert(alert, true));
  socket.on('whatsapp:activity', (message: WhatsappActivityEvent) => showWhatsappReply(message, true));
  const dialog = byId<HTMLDialogElement>('incident');
  dialog.addEventListener('close', releasePhoto);
  byId('incident-close').addEventListener('click', () => dialog.close());
  window.setInterval(() => void reloads.request('reconcile'), RECONCILE_MS);
  window.setInterval(() => {
    setText(byId('clock'), clock(new Date(), state.timeZone));
    state.dirty.hourly = true; // the "now" line moves
    requestFrame();
  }, 30_000);
  setText(byId('clock'), clock(new Date(), state.timeZone));
  byId('territory').addEventListener('change', (event) => void applyFilter((event.target as HTMLSelectElement).value));
  byId('sound').addEventListener('click', (event) => {
    view.sound = !view.sound;
    const button = event.currentTarget as HTMLButtonElement;
    button.setAttribute('aria-pressed', String(view.sound));
    button.textContent = `Sonido: ${view.sound ? 'sí' : 'no'}`;
  });
  byId('logout').addEventListener('click', () => {
    // Only this screen forgets the token: the API's logout would end the account's other screens too.
    session.signOut();
    location.reload();
  });
  window.addEventListener('resize', () => view.map?.invalidate());
}

function showLogin(message = ''): void {
  session.signOut();
  showSignIn(byId('screen'), message);
  // A running screen whose session ended starts over cleanly once signed in again.
  if (view.map) byId('login-form').dataset.reload = 'true';
}

bindSignInForm(session, (_signedIn, form) => {
  if (form.dataset.reload) location.reload();
  else start();
});

session.onEnded = () => showLogin('La sesión terminó. Ingrese de nuevo.');
if (session.current) start();
else showLogin();
