import { StationMap, type TileConfig } from './map';
import './war-room.css';
import { Api, ApiError, clock, number } from '../lib/api';
import type {
  Dashboard,
  Incident,
  IncidentEvent,
  LiveMap,
  Page,
  Projection,
  ProjectionSummary,
  SocialAlertEvent,
  StationEvent,
  Territory,
  TerritoryDetail,
  TurnoutItem,
  WhatsappActivityEvent,
} from '../lib/api-types';
import { byId, h, setText } from '../lib/dom';
import { incidentTypes, phases, severities } from '../lib/labels';
import { connectLive, type LiveState } from '../lib/live';
import { drawCurve } from './chart';
import { WarRoomState } from './state';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';

const api = new Api(sessionStorage, 'comando.war-room');
const state = new WarRoomState();
const MAX_ALERTS = 80;
/** The incidents read from REST on every (re)load: the feed is whole again after a reload or a reconnection. */
const RECENT_INCIDENTS = 50;
/** A full reload from REST this often, whatever happens: the screen never drifts from the API for long. */
const RECONCILE_MS = 60_000;

/** The tile server, when the campaign has one: given by the server in meta tags (no inline script). */
function tileConfig(): TileConfig | undefined {
  const url = document.querySelector<HTMLMetaElement>('meta[name="comando:map-tiles"]')?.content;
  if (!url) return undefined;
  return { url, attribution: document.querySelector<HTMLMetaElement>('meta[name="comando:map-attribution"]')?.content ?? '' };
}

let map: StationMap | undefined;
/** The stations of the chosen territory (all when undefined) and that territory's projection. */
let filter: { territoryId: string; stations: Set<string>; projection: ProjectionSummary | undefined } | undefined;
let liveState: LiveState = 'connecting';
let resyncedAt: Date | undefined;
let loading = false;
let eventsDuringLoad = false;
let followUp: number | undefined;
let sound = false;
let frameRequested = false;
const loads = { count: 0 };

function requestFrame(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(render);
}

/** Everything that changed since the last frame, drawn once: 200 reports a second cost one redraw per frame. */
function render(): void {
  frameRequested = false;
  const only = filter?.stations;
  if (state.dirty.stations && map) {
    const changed = [...state.changed].map((id) => state.stations.get(id)).filter((station) => station !== undefined && (!only || only.has(station.id)));
    map.update(changed as NonNullable<(typeof changed)[number]>[]);
    state.changed.clear();
  }
  if (state.dirty.totals) {
    const totals = state.totals(only);
    counter('c-confirmed', totals.confirmed);
    counter('c-voted', totals.voted);
    counter('c-pending', totals.pending);
    counter('c-open', totals.open);
    counter('c-closed', totals.closed);
    counter('c-incident', totals.incident);
    setText(byId('c-voted-pct'), totals.confirmed ? `${((totals.voted / totals.confirmed) * 100).toFixed(1)} %` : '');
    pendingDue(only);
  }
  // A new projection is drawn at once; the hourly bars alone (every report moves them) at most every two seconds.
  if (state.dirty.projection || (state.dirty.hourly && performance.now() - curveDrawnAt > 2000)) {
    curveDrawnAt = performance.now();
    renderCurve();
    state.dirty.hourly = false;
  } else if (state.dirty.hourly) curveTimer ??= window.setTimeout(() => ((curveTimer = undefined), requestFrame()), 2000);
  state.dirty = { stations: false, totals: false, hourly: state.dirty.hourly, projection: false };
}

function counter(id: string, value: number): void {
  const element = byId(id);
  element.dataset.value = String(value);
  setText(element, number.format(value));
}

let curveDrawnAt = 0;
let curveTimer: number | undefined;
let pendingDrawnAt = 0;
let pendingTimer: number | undefined;
/** The table is re-sorted and rebuilt at most twice a second: under a burst, counters move, rows need not. */
function pendingDue(only: ReadonlySet<string> | undefined): void {
  const wait = pendingDrawnAt + 500 - performance.now();
  if (wait <= 0) {
    pendingDrawnAt = performance.now();
    renderPending(only);
  } else
    pendingTimer ??= window.setTimeout(() => {
      pendingTimer = undefined;
      pendingDrawnAt = performance.now();
      renderPending(filter?.stations);
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
  const projection = filter ? filter.projection : state.projection;
  drawCurve(byId('curve'), projection?.curve, state.hourly, nowMinutesIn(state.timeZone));
  const box = byId('projection');
  if (!projection) {
    setText(byId('phase'), '');
    box.replaceChildren(h('p', { class: 'muted' }, 'Sin proyección: falta configurar la fecha de la elección.'));
    return;
  }
  setText(byId('phase'), `· ${phases[projection.phase] ?? projection.phase}`);
  const figures = filter ? (projection.byTerritory.find((row) => row.territoryId === filter?.territoryId) ?? projection.overall) : projection.overall;
  const range = (value: number | null, low: number | null, high: number | null) =>
    value === null ? 'sin datos suficientes' : `${number.format(value)} (entre ${number.format(low ?? value)} y ${number.format(high ?? value)})`;
  const coverage = Math.round(projection.coverage * 100);
  box.replaceChildren(
    h(
      'dl',
      {},
      h('dt', {}, 'Votantes al cierre'),
      h('dd', { id: 'p-turnout', 'data-value': figures.projectedTurnout ?? '' }, range(figures.projectedTurnout, figures.projectedTurnoutLow, figures.projectedTurnoutHigh)),
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'Apoyos que votarán'),
      h('dd', { id: 'p-confirmed', 'data-value': figures.projectedConfirmedVoted ?? '' }, range(figures.projectedConfirmedVoted, figures.low, figures.high)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Intervalos al ${coverage} %. ${number.format(figures.reportingStations)} de ${number.format(figures.stations)} puestos con conteo. Curva ${projection.curve.scope === 'territory' ? 'del territorio' : 'del día'}: ${projection.curve.countedStations} puestos.`,
    ),
  );
}

function renderConnection(): void {
  const element = byId('connection');
  element.dataset.state = liveState;
  const text =
    liveState === 'live'
      ? resyncedAt
        ? `En vivo · resincronizado ${clock(resyncedAt, state.timeZone)}`
        : 'En vivo'
      : liveState === 'reconnecting'
        ? 'Reconectando…'
        : 'Conectando…';
  setText(element, text);
}

function beep(): void {
  if (!sound) return;
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

/** The incidents in the feed, by id: one read from REST and also heard live is shown once. */
const shownIncidents = new Map<string, HTMLElement>();

/** Puts an alert in the feed in time order (newest first), whether it is live or read on a reload. */
function addAlert(kind: 'incident' | 'social' | 'whatsapp', title: string, detail: string, severity: string, at: string, live = true): HTMLElement {
  const list = byId('alerts');
  const item = h(
    'li',
    { class: `alert-item ${kind} severity-${severity}`, 'data-at': at },
    h('time', { datetime: at }, clock(new Date(at), state.timeZone)),
    h('strong', {}, title),
    h('span', {}, detail),
  );
  const later = [...list.children].find((other) => ((other as HTMLElement).dataset.at ?? '') < at);
  list.insertBefore(item, later ?? null);
  byId('no-alerts').hidden = true;
  while (list.children.length > MAX_ALERTS) list.lastElementChild?.remove();
  if (live && (severity === 'high' || severity === 'critical')) beep();
  return item;
}

function incidentDetail(incident: { stationId: string; severity: string; hasPhoto?: boolean }): string {
  const station = state.stations.get(incident.stationId);
  return `${station ? station.name : 'Puesto'} · gravedad ${severities[incident.severity] ?? incident.severity}${incident.hasPhoto ? ' · con foto' : ''}`;
}

function showIncident(incident: { id: string; stationId: string; type: string; severity: string; createdAt: string; hasPhoto?: boolean }, live: boolean): void {
  const shown = shownIncidents.get(incident.id);
  if (shown) {
    // Read again on a reload: only what may have changed since (a photo added) is redrawn.
    if (incident.hasPhoto) setText(shown.querySelector('span')!, incidentDetail(incident));
    return;
  }
  const item = addAlert('incident', `Incidente: ${incidentTypes[incident.type] ?? incident.type}`, incidentDetail(incident), incident.severity, incident.createdAt, live);
  item.dataset.incident = incident.id;
  shownIncidents.set(incident.id, item);
  for (const [id, element] of shownIncidents) if (!element.isConnected) shownIncidents.delete(id);
}

/** The latest incidents from REST, merged into the feed (those already shown stay as they are). */
async function loadIncidents(): Promise<void> {
  const page = await api.get<Page<Incident>>(`/api/gotv/incidents?limit=${RECENT_INCIDENTS}`);
  for (const incident of page.data) {
    showIncident(
      { id: incident.id, stationId: incident.pollingStationId, type: incident.type, severity: incident.severity, createdAt: incident.createdAt, hasPhoto: incident.photo !== null },
      false,
    );
  }
}

/** The figures from REST, whole: after connecting, after a reconnection without recovery, after `resync`. */
async function reload(reason: 'connect' | 'reconnect' | 'resync' | 'reconcile'): Promise<void> {
  if (loading) {
    eventsDuringLoad = true;
    return;
  }
  loading = true;
  eventsDuringLoad = false;
  try {
    const [live, dashboard, projection] = await Promise.all([
      api.get<LiveMap>('/api/gotv/live-map'),
      api.get<Dashboard>('/api/gotv/dashboard'),
      api.get<Projection>('/api/gotv/projection').then(withoutStations, (error: unknown) => {
        if (error instanceof ApiError && error.status === 409) return undefined; // no election date yet
        throw error;
      }),
    ]);
    state.load(live, dashboard, projection);
    // After the stations, so the feed names them.
    await loadIncidents();
    map?.update(state.stations.values(), filter?.stations ?? new Set(state.stations.keys()));
    if (filter) await loadFilter(filter.territoryId);
    loads.count++;
    document.body.dataset.loads = String(loads.count);
    if (reason === 'resync' || reason === 'reconnect') resyncedAt = new Date();
    renderConnection();
    requestFrame();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) scheduleFollowUp(3000);
  } finally {
    loading = false;
  }
  // Events that arrived while the answers were on their way may or may not be in them: look again shortly.
  if (eventsDuringLoad) scheduleFollowUp(2000);
}

function scheduleFollowUp(delayMs: number): void {
  if (followUp !== undefined) return;
  followUp = window.setTimeout(() => {
    followUp = undefined;
    void reload('reconcile');
  }, delayMs);
}

function withoutStations(projection: Projection): ProjectionSummary {
  const { stations: _stations, ...summary } = projection;
  return summary;
}

async function loadFilter(territoryId: string): Promise<void> {
  const [live, projection] = await Promise.all([
    api.get<LiveMap>(`/api/gotv/live-map?territoryId=${territoryId}`),
    api.get<Projection>(`/api/gotv/projection?territoryId=${territoryId}`).then(withoutStations, () => undefined),
  ]);
  filter = { territoryId, stations: new Set(live.features.map((feature) => feature.properties.id)), projection };
}

let filterRefresh: number | undefined;
/** A territory's projection is not pushed: it is asked for again after pushes, at most every five seconds. */
function refreshFilterProjection(): void {
  if (!filter || filterRefresh !== undefined) return;
  filterRefresh = window.setTimeout(() => {
    filterRefresh = undefined;
    if (!filter) return;
    const territoryId = filter.territoryId;
    void api.get<Projection>(`/api/gotv/projection?territoryId=${territoryId}`).then((projection) => {
      if (filter?.territoryId !== territoryId) return;
      filter.projection = withoutStations(projection);
      state.dirty.projection = true;
      requestFrame();
    });
  }, 5000);
}

async function applyFilter(territoryId: string): Promise<void> {
  if (territoryId) await loadFilter(territoryId);
  else filter = undefined;
  if (map) map.filtered = Boolean(filter);
  map?.update(state.stations.values(), filter?.stations ?? new Set(state.stations.keys()));
  map?.fit();
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
  map?.showTerritories(details);
}

const PAGE_RELOAD_KEY = 'comando.war-room.reloaded-for-format';

/**
 * A window this page cannot read means the server is newer than the page (a deploy while the
 * screen was open): the page reloads to get the screens the server now serves, once in ten
 * minutes at most, so a page that still cannot read cannot loop, and within 5 s, so that a war room's
 * screens do not all ask at once; otherwise the figures come from REST, at most every 30 s (2,000
 * screens reloading at every window would flood the API).
 */
let lastFormatDataReload = 0;
let pageReloading = false;
function unreadableTurnout(): void {
  if (pageReloading) return;
  const now = Date.now();
  if (now - Number(sessionStorage.getItem(PAGE_RELOAD_KEY) ?? 0) > 10 * 60_000) {
    sessionStorage.setItem(PAGE_RELOAD_KEY, String(now));
    pageReloading = true;
    setTimeout(() => location.reload(), Math.random() * 5000);
    return;
  }
  if (now - lastFormatDataReload < 30_000) return;
  lastFormatDataReload = now;
  void reload('resync');
}

function noteEvent(): void {
  if (loading) eventsDuringLoad = true;
}

function start(): void {
  byId('login').hidden = true;
  byId('screen').hidden = false;
  map = new StationMap(byId('map'), tileConfig());
  void loadTerritories().catch(() => undefined);
  const socket = connectLive({
    token: () => api.current?.token,
    rooms: ['gotv', 'social', 'whatsapp'],
    onState: (next) => {
      liveState = next;
      renderConnection();
    },
    onReload: (reason) => void reload(reason),
    onUnauthorized: () => showLogin('La sesión terminó. Ingrese de nuevo.'),
  });
  socket.on('gotv:turnout', (message: TurnoutMessage) => {
    noteEvent();
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
    noteEvent();
    state.applyStation(event);
    requestFrame();
  });
  socket.on('gotv:projection', (summary: ProjectionSummary) => {
    state.applyProjection(summary);
    refreshFilterProjection();
    requestFrame();
  });
  socket.on('gotv:incident', (incident: IncidentEvent) => showIncident({ ...incident, hasPhoto: incident.photo }, true));
  socket.on('social:alert', (alert: SocialAlertEvent) => addAlert('social', 'Redes sociales', alert.title, alert.severity, alert.createdAt));
  socket.on('whatsapp:activity', (message: WhatsappActivityEvent) => {
    if (message.direction === 'in') addAlert('whatsapp', 'WhatsApp', 'Nueva respuesta de un contacto', 'low', message.createdAt);
  });
  window.setInterval(() => void reload('reconcile'), RECONCILE_MS);
  window.setInterval(() => {
    setText(byId('clock'), clock(new Date(), state.timeZone));
    state.dirty.hourly = true; // the "now" line moves
    requestFrame();
  }, 30_000);
  setText(byId('clock'), clock(new Date(), state.timeZone));
  byId('territory').addEventListener('change', (event) => void applyFilter((event.target as HTMLSelectElement).value));
  byId('sound').addEventListener('click', (event) => {
    sound = !sound;
    const button = event.currentTarget as HTMLButtonElement;
    button.setAttribute('aria-pressed', String(sound));
    button.textContent = `Sonido: ${sound ? 'sí' : 'no'}`;
  });
  byId('logout').addEventListener('click', () => {
    // Only this screen forgets the token: the API's logout would end the account's other screens too.
    api.logout();
    location.reload();
  });
  window.addEventListener('resize', () => map?.invalidate());
}

function showLogin(message = ''): void {
  api.logout();
  byId('screen').hidden = true;
  byId('login').hidden = false;
  setText(byId('login-error'), message);
  // A running screen whose session ended starts over cleanly once signed in again.
  if (map) byId('login-form').dataset.reload = 'true';
}

byId<HTMLFormElement>('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const data = new FormData(form);
  setText(byId('login-error'), '');
  api
    .login(String(data.get('email')), String(data.get('password')))
    .then((session) => {
      if (!['admin', 'manager', 'viewer'].includes(session.user.role)) {
        api.logout();
        setText(byId('login-error'), 'Esta cuenta no tiene acceso a la sala de situación.');
        return;
      }
      if (form.dataset.reload) location.reload();
      else start();
    })
    .catch((error: unknown) =>
      setText(byId('login-error'), error instanceof ApiError && error.status === 401 ? 'Correo o contraseña incorrectos.' : 'No se pudo ingresar. Intente de nuevo.'),
    );
});

api.onExpired = () => showLogin('La sesión terminó. Ingrese de nuevo.');
if (api.current) start();
else showLogin();
