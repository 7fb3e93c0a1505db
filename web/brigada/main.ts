import './brigada.css';
import { ApiError, NetworkError, clock } from '../lib/api';
import { WEB_APPS } from '../lib/apps';
import { WebSession } from '../lib/session';
import { bindSignInForm, showSignIn } from '../lib/sign-in-form';
import type { Brigade, Claim, ContactOutcome, Station, Voter } from '../lib/api-types';
import { byId, h, setText } from '../lib/dom';
import { contactOutcomes, incidentTypes, severities } from '../lib/labels';
import { cache, isQuotaError, outbox, type OutboxItem } from './store';
import { syncOutbox } from './sync';

// The shared sign-in. The phone keeps its session across closed tabs (localStorage): the queue must go out when it is reopened.
// It is not ended at the token's expiry on the phone's clock: an offline phone keeps working and queueing, and the API's 401 says when it has ended.
const session = new WebSession(WEB_APPS.brigada, localStorage, 'comando.brigada');
const api = session.api;
const SYNC_EVERY_MS = 15_000;
/** How long a "Ya votó" may be taken back: a mis-tap is noticed in a few seconds. */
const UNDO_MS = 6_000;
/** Rows drawn at once: a cheap phone draws 50 rows quickly, not 1,000; "Ver más" draws the next ones. */
const VOTERS_PAGE = 50;

let voters: Voter[] = [];
let stations: Station[] = [];
let items: OutboxItem[] = [];
let syncing: Promise<void> | undefined;
let syncAgain = false;
/** Whether the last request reached the server: the browser may say it is online while the server (or the network beyond the phone) is not. */
let reachable = true;
/** The voters' search keys (name without accents, lower case; digits of the cédula), made once per list. */
let searchKeys = new Map<string, { name: string; document: string }>();
let votersShown = VOTERS_PAGE;

function notice(message: string, kind: 'error' | 'info' | 'offline' = 'error'): void {
  const element = byId('notice');
  element.hidden = !message;
  element.dataset.kind = kind;
  setText(element, message);
}

function online(): boolean {
  return navigator.onLine && reachable;
}

function renderNetwork(): void {
  const element = byId('network');
  element.dataset.online = String(online());
  setText(element, online() ? 'En línea' : 'Sin conexión');
  // A notice about being offline says nothing true once the connection is back.
  if (online() && byId('notice').dataset.kind === 'offline') notice('');
}

function setReachable(value: boolean): void {
  if (reachable === value) return;
  reachable = value;
  renderNetwork();
}

const stateLabels: Record<OutboxItem['state'], string> = { pending: 'Pendiente', sent: 'Enviado', conflict: 'Conflicto', rejected: 'Rechazado' };

function renderOutbox(): void {
  const pending = items.filter((item) => item.state === 'pending').length;
  setText(byId('pending-count'), String(pending));
  byId('pending-count').dataset.value = String(pending);
  const problems = items.filter((item) => item.state === 'conflict' || item.state === 'rejected').length;
  setText(byId('outbox-summary'), `${pending} pendiente${pending === 1 ? '' : 's'} de enviar${problems ? ` · ${problems} con problema` : ''}. Se envían solos al haber conexión.`);
  byId('outbox').replaceChildren(
    ...items.map((item) =>
      h(
        'li',
        { class: `item state-${item.state}`, 'data-id': item.id, 'data-state': item.state },
        h('span', { class: 'tag' }, stateLabels[item.state]),
        h('strong', {}, item.label),
        h('span', { class: 'hint' }, clock(new Date(item.createdAt))),
        item.reason ? h('span', { class: 'reason' }, item.reason) : null,
      ),
    ),
  );
}

/** Voters this phone already reported as voted, sent or not: they leave the call list at once. */
function reportedVoters(): Set<string> {
  return new Set(items.filter((item) => item.kind === 'voter' && item.state !== 'rejected' && item.voterId).map((item) => item.voterId!));
}

function stationName(id: string): string {
  return stations.find((station) => station.id === id)?.name ?? 'Puesto';
}

/** Lower case without accents: "Pérez" is found by "perez" and "PEREZ". */
function folded(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

const byName = new Intl.Collator('es', { numeric: true });
const rank: Record<string, number> = { high: 0, normal: 1, low: 2 };

/** Sorted once per list (priority, then name) and given search keys: a keystroke then only filters, which a cheap phone does at once. */
function indexVoters(): void {
  voters.sort((a, b) => (rank[a.priority] ?? 1) - (rank[b.priority] ?? 1) || byName.compare(a.name, b.name));
  searchKeys = new Map(voters.map((voter) => [voter.id, { name: folded(voter.name), document: voter.documentId.replace(/\D/g, '') }]));
}

/** A search of digits (dots and spaces allowed) looks in the cédula; any other, every word in the name. */
function matcher(query: string): (voter: Voter) => boolean {
  const text = folded(query.trim());
  if (!text) return () => true;
  const digits = text.replace(/[\s.-]/g, '');
  if (/^\d+$/.test(digits)) return (voter) => searchKeys.get(voter.id)?.document.includes(digits) ?? false;
  const words = text.split(/\s+/);
  return (voter) => {
    const name = searchKeys.get(voter.id)?.name ?? '';
    return words.every((word) => name.includes(word));
  };
}

function renderStationFilter(): void {
  const select = byId<HTMLSelectElement>('voter-station');
  const chosen = select.value;
  select.replaceChildren(h('option', { value: '' }, 'Todos los puestos'), ...stations.map((station) => h('option', { value: station.id }, station.name)));
  select.value = stations.some((station) => station.id === chosen) ? chosen : '';
}

function renderVoters(): void {
  const me = session.current?.user.id;
  const reported = reportedVoters();
  const remaining = voters.filter((voter) => voter.status !== 'voted' && !reported.has(voter.id));
  const station = byId<HTMLSelectElement>('voter-station').value;
  const matches = matcher(byId<HTMLInputElement>('voter-search').value);
  const list = remaining.filter((voter) => (!station || voter.pollingStationId === station) && matches(voter));
  const filtered = list.length !== remaining.length;
  setText(
    byId('calls-meta'),
    filtered
      ? `${list.length} de ${remaining.length} por votar con esta búsqueda.`
      : `${list.length} por votar. Tome un votante antes de llamarlo; al terminar, anote cómo le fue.`,
  );
  const shown = list.slice(0, votersShown);
  const more = byId<HTMLButtonElement>('voters-more');
  more.hidden = list.length <= shown.length;
  setText(more, `Ver más (${list.length - shown.length} más)`);
  byId('voters').dataset.total = String(list.length);
  byId('voters').replaceChildren(
    ...(list.length ? [] : [h('li', { class: 'hint empty' }, filtered ? 'Nadie por votar coincide con la búsqueda.' : 'Nadie por votar en su lista.')]),
    ...shown.map((voter) => {
      const mine = voter.claimedBy === me;
      const taken = voter.claimedBy !== null && !mine;
      const outcome = h(
        'select',
        { 'aria-label': `Resultado de la llamada a ${voter.name}` },
        ...Object.entries(contactOutcomes).map(([value, label]) => h('option', { value }, label)),
      );
      return h(
        'li',
        { class: `voter priority-${voter.priority}`, 'data-voter': voter.id },
        h(
          'div',
          { class: 'who' },
          h('strong', {}, voter.name),
          h('span', { class: 'hint' }, `${stationName(voter.pollingStationId)}${voter.tableNumber ? ` · mesa ${voter.tableNumber}` : ''}`),
        ),
        h(
          'div',
          { class: 'status' },
          voter.status === 'pending' ? 'Sin contactar' : voter.status === 'contacted' ? 'Contactado' : 'En camino',
          taken ? ' · lo tiene otra persona' : mine ? ' · asignado a usted' : '',
        ),
        h(
          'div',
          { class: 'actions' },
          voter.phone ? h('a', { class: 'button secondary', href: `tel:${voter.phone}` }, 'Llamar') : null,
          mine
            ? h('button', { type: 'button', class: 'secondary', onclick: () => void claim(voter, false) }, 'Soltar')
            : h('button', { type: 'button', class: 'secondary', disabled: taken, onclick: () => void claim(voter, true) }, 'Tomar'),
          h('button', { type: 'button', class: 'primary voted', onclick: () => void reportVoted(voter) }, 'Ya votó'),
        ),
        h(
          'div',
          { class: 'outcome' },
          outcome,
          h('button', { type: 'button', class: 'secondary', onclick: () => void reportContact(voter, outcome.value as ContactOutcome) }, 'Anotar'),
        ),
      );
    }),
  );
}

function renderStations(): void {
  byId('stations').replaceChildren(
    ...(stations.length ? stations : []).map((station) => {
      const count = h('input', { type: 'number', min: 0, max: 10_000_000, inputmode: 'numeric', required: true, id: `count-${station.id}` });
      // No type or severity is chosen for the member: a default one is reported whenever they forget to change it.
      const type = h(
        'select',
        { id: `type-${station.id}`, required: true },
        h('option', { value: '' }, 'Elija el tipo…'),
        ...Object.entries(incidentTypes).map(([value, label]) => h('option', { value }, label)),
      );
      const severity = h(
        'select',
        { id: `severity-${station.id}`, required: true },
        h('option', { value: '' }, 'Elija la gravedad…'),
        ...Object.entries(severities).map(([value, label]) => h('option', { value }, label)),
      );
      const description = h('textarea', { id: `description-${station.id}`, rows: 3, minlength: 3, maxlength: 2000, required: true });
      const photo = h('input', { type: 'file', accept: 'image/*', capture: 'environment', id: `photo-${station.id}` });
      return h(
        'article',
        { class: 'card station', 'data-station': station.id },
        h('h3', {}, `${station.name} `, h('span', { class: 'hint' }, station.code)),
        h(
          'form',
          {
            class: 'count',
            onsubmit: (event: Event) => {
              event.preventDefault();
              void reportCount(station, Number(count.value)).then((saved) => {
                if (saved) count.value = '';
              });
            },
          },
          h('label', { for: `count-${station.id}` }, '¿Cuántas personas han votado en el puesto?'),
          count,
          h('button', { type: 'submit', class: 'primary' }, 'Enviar conteo'),
        ),
        h(
          'form',
          {
            class: 'incident',
            onsubmit: (event: Event) => {
              event.preventDefault();
              void reportIncident(station, type.value, severity.value, description.value, photo.files?.[0]).then((saved) => {
                if (!saved) return;
                type.value = '';
                severity.value = '';
                description.value = '';
                photo.value = '';
              });
            },
          },
          h('p', { class: 'hint' }, 'Elija el tipo y la gravedad: ninguno viene marcado.'),
          h('label', { for: `type-${station.id}` }, 'Tipo de incidente (obligatorio)'),
          type,
          h('label', { for: `severity-${station.id}` }, 'Gravedad (obligatoria)'),
          severity,
          h('label', { for: `description-${station.id}` }, 'Qué pasó'),
          description,
          h('label', { for: `photo-${station.id}` }, 'Foto (opcional)'),
          photo,
          h('button', { type: 'submit', class: 'danger' }, 'Reportar incidente'),
        ),
      );
    }),
  );
  if (!stations.length) byId('stations').append(h('p', { class: 'hint' }, 'Aún no tiene puestos asignados en su brigada.'));
}

async function refreshOutbox(): Promise<void> {
  items = await outbox.all();
  renderOutbox();
  renderVoters();
  renderUndo();
}

let undoTimer: number | undefined;
/** The reports still in their undo time, each with its "Deshacer"; drawn from the outbox, so a reopened app shows them too. */
function renderUndo(): void {
  const now = Date.now();
  const held = items.filter((item) => item.state === 'pending' && (item.holdUntil ?? 0) > now);
  byId('undo').hidden = held.length === 0;
  byId('undo-list').replaceChildren(
    ...held.map((item) =>
      h(
        'li',
        { 'data-id': item.id },
        h('span', {}, `${item.label}. Se enviará en unos segundos.`),
        h('button', { type: 'button', class: 'secondary', 'aria-label': `Deshacer: ${item.label}`, onclick: () => void undo(item.id) }, 'Deshacer'),
      ),
    ),
  );
  window.clearTimeout(undoTimer);
  if (held.length) {
    // When the next one's time is up it leaves the bar and goes out.
    const next = Math.min(...held.map((item) => item.holdUntil ?? now));
    undoTimer = window.setTimeout(
      () => {
        renderUndo();
        void sync();
      },
      next - now + 50,
    );
  }
}

/** Takes back a report still in its undo time: it was never sent, so the phone just forgets it. */
async function undo(id: string): Promise<void> {
  const item = (await outbox.all()).find((candidate) => candidate.id === id);
  if (!item || item.state !== 'pending' || (item.holdUntil ?? 0) <= Date.now()) {
    notice('Ya no se puede deshacer: el reporte salió. Pida a su coordinador que lo corrija.');
    await refreshOutbox();
    return;
  }
  await outbox.delete(id);
  notice(`Deshecho: ${item.label.replace(/^Ya votó: /, '')} vuelve a la lista.`, 'info');
  await refreshOutbox();
}

/** Every report is saved on the phone first; only then is it sent. A full phone loses nothing silently. */
async function enqueue(item: Omit<OutboxItem, 'createdAt' | 'state' | 'attempts' | 'nextAttemptAt'>): Promise<boolean> {
  try {
    await outbox.put({ ...item, createdAt: new Date().toISOString(), state: 'pending', attempts: 0, nextAttemptAt: item.holdUntil ?? 0 });
  } catch (error) {
    notice(isQuotaError(error) ? 'El teléfono no tiene espacio: este reporte NO se guardó. Libere espacio y repítalo.' : 'No se pudo guardar el reporte en el teléfono. Repítalo.');
    return false;
  }
  notice('');
  await refreshOutbox();
  void sync();
  return true;
}

/** What is being saved right now, by what it reports: a double tap lands before the screen is drawn again. */
const saving = new Set<string>();

/** Saves a report unless the same one is still being saved (then false: the first tap's save stands). */
async function once(key: string, save: () => Promise<boolean>): Promise<boolean> {
  if (saving.has(key)) return false;
  saving.add(key);
  try {
    return await save();
  } finally {
    saving.delete(key);
  }
}

function reportVoted(voter: Voter): Promise<boolean> {
  if (reportedVoters().has(voter.id)) return Promise.resolve(false);
  const id = crypto.randomUUID();
  return once(`voted:${voter.id}`, () =>
    enqueue({
      id,
      kind: 'voter',
      voterId: voter.id,
      label: `Ya votó: ${voter.name}`,
      body: { kind: 'voter', clientReportId: id, voterId: voter.id, votedAt: new Date().toISOString() },
      // Saved at once (a closed tab loses nothing) but held back a few seconds: a mis-tap is taken back before anyone hears of it.
      holdUntil: Date.now() + UNDO_MS,
    }),
  );
}

function reportCount(station: Station, votersSoFar: number): Promise<boolean> {
  if (!Number.isInteger(votersSoFar) || votersSoFar < 0) {
    notice('Escriba el número de personas que han votado.');
    return Promise.resolve(false);
  }
  const id = crypto.randomUUID();
  return once(`count:${station.id}:${votersSoFar}`, () =>
    enqueue({
      id,
      kind: 'count',
      label: `Conteo ${station.name}: ${votersSoFar}`,
      body: { kind: 'count', clientReportId: id, pollingStationId: station.id, votersSoFar, reportedAt: new Date().toISOString() },
    }),
  );
}

function reportContact(voter: Voter, outcome: ContactOutcome): Promise<boolean> {
  return once(`contact:${voter.id}:${outcome}`, () =>
    enqueue({ id: crypto.randomUUID(), kind: 'contact', voterId: voter.id, label: `${contactOutcomes[outcome]}: ${voter.name}`, body: { outcome } }),
  );
}

/** Longest side of a photo as sent: enough to see what happened, small enough for 3G. */
const PHOTO_MAX_SIDE = 1280;
const PHOTO_QUALITY = 0.7;

/** The photo as a JPEG at most 1280 px on its longest side, or undefined if the phone cannot read it. */
async function compressPhoto(file: File): Promise<Blob | undefined> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return undefined;
  }
  const scale = Math.min(1, PHOTO_MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = h('canvas', { width: Math.max(1, Math.round(bitmap.width * scale)), height: Math.max(1, Math.round(bitmap.height * scale)) });
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob ?? undefined), 'image/jpeg', PHOTO_QUALITY));
}

function reportIncident(station: Station, type: string, severity: string, description: string, file: File | undefined): Promise<boolean> {
  // The photo's compression takes a moment: the widest window for a second tap.
  return once(`incident:${station.id}`, () => saveIncident(station, type, severity, description, file));
}

async function saveIncident(station: Station, type: string, severity: string, description: string, file: File | undefined): Promise<boolean> {
  if (!(type in incidentTypes) || !(severity in severities)) {
    notice('Elija el tipo de incidente y su gravedad.');
    return false;
  }
  if (description.trim().length < 3) {
    notice('Describa el incidente en pocas palabras.');
    return false;
  }
  const photo = file ? await compressPhoto(file) : undefined;
  if (file && !photo) {
    notice('No se pudo leer la foto. Tome otra o envíe el incidente sin foto.');
    return false;
  }
  return enqueue({
    id: crypto.randomUUID(),
    kind: 'incident',
    label: `Incidente en ${station.name}: ${incidentTypes[type] ?? type}${photo ? ' (con foto)' : ''}`,
    body: { pollingStationId: station.id, type, severity, description: description.trim() },
    ...(photo ? { photo } : {}),
  });
}

/** Claims coordinate the brigade in the moment: they need the network, unlike reports. */
async function claim(voter: Voter, take: boolean): Promise<void> {
  if (!online()) return notice('Sin conexión: tomar o soltar un votante necesita red. Los reportes sí se guardan.');
  try {
    if (take) {
      const answer = await api.post<Claim>(`/api/gotv/voters/${voter.id}/claim`);
      voter.claimedBy = answer.claimedBy;
    } else {
      await api.delete(`/api/gotv/voters/${voter.id}/claim`);
      voter.claimedBy = null;
    }
    notice('');
    renderVoters();
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) notice(`${voter.name}: ${error.problem?.detail ?? 'ya votó o lo tiene otra persona.'}`);
    else if (!(error instanceof ApiError && error.status === 401)) notice('No se pudo: revise la conexión.');
    void loadLists();
  }
}

/** The call list and the member's stations: from the API when it answers, else as last seen. */
async function loadLists(): Promise<void> {
  try {
    voters = (await api.all<Voter>('/api/gotv/voters')).filter((voter) => voter.status !== 'voted');
    if (byId('notice').dataset.kind === 'offline') notice('');
    const brigadeIds = [...new Set(voters.map((voter) => voter.brigadeId).filter((id): id is string => id !== null))];
    const brigades = await Promise.all(brigadeIds.map((id) => api.get<Brigade>(`/api/gotv/brigades/${id}`)));
    const stationIds = [...new Set([...brigades.flatMap((brigade) => brigade.stationIds), ...voters.map((voter) => voter.pollingStationId)])];
    stations = (await Promise.all(stationIds.map((id) => api.get<Station>(`/api/gotv/polling-stations/${id}`)))).sort((a, b) => a.name.localeCompare(b.name));
    await cache.set('lists', { voters, stations, at: new Date().toISOString() }).catch(() => undefined);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    const saved = await cache.get<{ voters: Voter[]; stations: Station[]; at: string }>('lists');
    if (saved) {
      voters = saved.voters;
      stations = saved.stations;
      if (error instanceof NetworkError) notice(`Sin conexión: lista guardada a las ${clock(new Date(saved.at))}.`, 'offline');
    }
  }
  indexVoters();
  renderStationFilter();
  renderVoters();
  renderStations();
  document.body.dataset.ready = 'true';
}

/** One sync at a time; a request for another while one runs makes it run once more after. */
function sync(): Promise<void> {
  if (syncing) {
    syncAgain = true;
    return syncing;
  }
  syncing = (async () => {
    do {
      syncAgain = false;
      const result = await syncOutbox(api).catch(() => 'offline' as const);
      await refreshOutbox();
      if (result === 'unauthorized') {
        showLogin('Su sesión terminó. Ingrese de nuevo: los reportes pendientes siguen guardados en el teléfono.');
        break;
      }
    } while (syncAgain);
  })().finally(() => {
    syncing = undefined;
  });
  return syncing;
}

function showTab(name: string): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) button.setAttribute('aria-pressed', String(button.dataset.tab === name));
  for (const tab of ['calls', 'stations', 'outbox']) byId(`tab-${tab}`).hidden = tab !== name;
}

let started = false;
function start(): void {
  byId('login').hidden = true;
  byId('app').hidden = false;
  setText(byId('who'), session.current?.user.name ?? '');
  if (started) {
    void loadLists().then(sync);
    return;
  }
  started = true;
  void refreshOutbox().then(loadLists).then(sync);
  window.setInterval(() => {
    void sync();
    // Nothing to send tells nothing about the server: ask it whether it is back.
    if (!reachable && navigator.onLine) void api.get('/healthz').catch(() => undefined);
  }, SYNC_EVERY_MS);
}

function showLogin(message = ''): void {
  showSignIn(byId('app'), message);
}

bindSignInForm(session, start);

for (const button of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) button.addEventListener('click', () => showTab(button.dataset.tab!));
const refilter = () => {
  votersShown = VOTERS_PAGE;
  renderVoters();
};
byId('voter-search').addEventListener('input', refilter);
byId('voter-station').addEventListener('change', refilter);
byId('voter-filters').addEventListener('submit', (event) => event.preventDefault());
byId('voters-more').addEventListener('click', () => {
  votersShown += VOTERS_PAGE;
  renderVoters();
});
byId('send-now').addEventListener('click', () => {
  void outbox.all().then(async (all) => {
    // "Send now" skips the backoff wait of what is still pending, not the undo time of a "Ya votó" just tapped.
    for (const item of all) {
      if (item.state === 'pending' && item.nextAttemptAt > Date.now() && (item.holdUntil ?? 0) <= Date.now()) await outbox.put({ ...item, nextAttemptAt: 0 });
    }
    await sync();
  });
});
byId('logout').addEventListener('click', () => {
  session.signOut();
  showLogin(items.some((item) => item.state === 'pending') ? 'Sus reportes pendientes siguen guardados y se enviarán al ingresar.' : '');
});
window.addEventListener('online', () => {
  renderNetwork();
  void sync();
  void loadLists();
});
window.addEventListener('offline', renderNetwork);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void sync();
});

api.onReachable = setReachable;
session.onEnded = () => showLogin('Su sesión terminó. Ingrese de nuevo: los reportes pendientes siguen guardados en el teléfono.');
renderNetwork();
void outbox.prune().catch(() => undefined);
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/brigada/sw.js', { scope: '/brigada/' }).catch(() => undefined);
if (session.current) start();
else showLogin();
