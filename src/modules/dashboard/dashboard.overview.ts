import { addDays, instantAt, localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { upcomingEvents } from '../agenda';
import { emailReachBetween } from '../email';
import { financeBalance, financePolicy } from '../finance';
import { electionDateOf } from '../campaign';
import { turnoutTotals } from '../gotv';
import { pqrsCounts } from '../pqrs';
import { leadsCapturedBetween } from '../qr';
import { alertCountsSince, latestAlerts } from '../social';
import { activeVolunteers } from '../volunteers';
import { whatsAppReachBetween } from '../whatsapp';
import { dashboardPolicy } from './dashboard.policy';
import type { OverviewView } from './dashboard.schemas';

type Deps = Pick<AppDeps, 'db' | 'config' | 'caches'>;

const DAY_MS = 86_400_000;
/** How long a computed overview is served before it is computed again (the watcher drops it sooner when a figure moves). */
export const OVERVIEW_TTL_MS = 10_000;
const UPCOMING_DAYS = 7;
const REACH_DAYS = 7;
const LATEST_ALERTS = 5;

const changeOf = (value: number, previous: number) => ({
  previous,
  change: value - previous,
  changePct: previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10,
});

/** Every figure of the overview, for every role; `overviewFor` leaves out what a role may not see. */
export async function computeOverview(deps: Pick<AppDeps, 'db' | 'config' | 'caches'>, now = new Date()): Promise<OverviewView> {
  const { db, config } = deps;
  const timeZone = config.timeZone;
  const today = localClock(now, timeZone).date;
  const activeDays = config.volunteers.activeDays;
  const previousAt = new Date(now.getTime() - activeDays * DAY_MS);
  const eventsUntil = new Date(now.getTime() + UPCOMING_DAYS * DAY_MS);
  // "This week": the last seven local days, today included, so Monday morning does not read as a collapse.
  const weekStart = instantAt(addDays(today, -(REACH_DAYS - 1)), 0, timeZone);
  const previousWeekStart = instantAt(addDays(today, -(2 * REACH_DAYS - 1)), 0, timeZone);
  const clock = { timeZone, holidayCountry: config.holidayCountry };

  const [active, activeBefore, events, pqrs, money, leads, leadsBefore, whatsapp, email, alertCounts, alerts, electionDate] = await Promise.all([
    activeVolunteers(deps, now),
    activeVolunteers(deps, previousAt),
    upcomingEvents(db, now, eventsUntil),
    pqrsCounts(db, now, clock),
    financeBalance(db, today),
    leadsCapturedBetween(db, weekStart, now),
    leadsCapturedBetween(db, previousWeekStart, weekStart),
    whatsAppReachBetween(db, weekStart, now),
    emailReachBetween(db, weekStart, now),
    alertCountsSince(db, weekStart),
    latestAlerts(db, LATEST_ALERTS),
    electionDateOf(deps),
  ]);
  const gotv = electionDate === today ? await turnoutTotals(db) : null;

  const iso = (date: Date) => date.toISOString();
  const asOf = iso(now);
  const thisWeek = { from: iso(weekStart), to: asOf, label: `last ${REACH_DAYS} days` };
  const byKind: Record<string, number> = {};
  for (const row of alertCounts) byKind[row.kind] = (byKind[row.kind] ?? 0) + row.count;

  return {
    asOf,
    timeZone,
    cachedFor: OVERVIEW_TTL_MS / 1000,
    activeVolunteers: {
      value: active,
      ...changeOf(active, activeBefore),
      window: { from: iso(previousAt), to: asOf, label: `last ${activeDays} days` },
      href: '/api/volunteers?active=true',
    },
    upcomingEvents: {
      value: events.count,
      going: events.going,
      window: { from: asOf, to: iso(eventsUntil), label: `next ${UPCOMING_DAYS} days` },
      href: `/api/agenda/events?from=${encodeURIComponent(asOf)}&to=${encodeURIComponent(iso(eventsUntil))}`,
    },
    pendingPqrs: {
      value: pqrs.pending,
      overdue: pqrs.overdue,
      dueSoon: pqrs.dueSoon,
      window: { from: null, to: asOf, label: 'open now' },
      href: '/api/pqrs',
    },
    financialBalance: {
      value: money.balance,
      income: money.income,
      spent: money.expenses,
      cap: money.cap,
      capUsedPct: money.capUsedPct,
      remainingToCap: money.remainingToCap,
      warnings: money.warnings,
      window: { from: null, to: asOf, label: 'whole campaign' },
      href: '/api/finance/summary',
    },
    leads: { value: leads, ...changeOf(leads, leadsBefore), window: thisWeek, href: '/api/qr-leads' },
    whatsappReach: { value: whatsapp.delivered, ...whatsapp, window: thisWeek, href: '/api/whatsapp/dashboard' },
    emailReach: { value: email.sent, ...email, window: thisWeek, href: '/api/email-marketing/dashboard' },
    socialAlerts: {
      value: alertCounts.reduce((sum, row) => sum + row.count, 0),
      byKind,
      latest: alerts.map((alert) => ({ ...alert, createdAt: iso(alert.createdAt) })),
      window: thisWeek,
      href: '/api/social-monitoring/alerts',
    },
    gotv: gotv && {
      value: gotv.confirmedVoted,
      confirmedVoters: gotv.confirmedVoters,
      turnoutPct: gotv.confirmedVoters === 0 ? null : Math.round((gotv.confirmedVoted / gotv.confirmedVoters) * 1000) / 10,
      stations: gotv.stations,
      stationsOpen: gotv.stationsOpen,
      stationsWithIncident: gotv.stationsWithIncident,
      window: { from: instantAt(today, 0, timeZone).toISOString(), to: asOf, label: 'election day' },
      href: '/api/gotv/dashboard',
    },
  };
}

const OVERVIEW_KEY = 'current';

/** A computed overview and, made on first use, each role view's JSON bytes: the screens all ask for the same few answers. */
interface CachedOverview {
  overview: OverviewView;
  bodies: Map<string, { view: OverviewView; json: Buffer }>;
}

/** The overview every screen reads: computed at most once per TTL per process, whoever asks (single-flight). */
export function overviewCache(deps: Deps) {
  return deps.caches.named<CachedOverview>('dashboard-overview', async () => ({ overview: await computeOverview(deps), bodies: new Map() }), OVERVIEW_TTL_MS);
}

export const dropOverview = (deps: Deps): Promise<void> => overviewCache(deps).invalidate(OVERVIEW_KEY);

/**
 * What this actor may see of the overview, as the object and as JSON bytes serialised once per
 * cache fill and role view (under load, encoding the answer was the route's largest cost).
 */
export async function overviewFor(deps: Deps, actor: Actor): Promise<{ view: OverviewView; json: Buffer }> {
  const cached = await overviewCache(deps).get(OVERVIEW_KEY);
  const campaign = dashboardPolicy.allows(actor, 'readCampaignFigures');
  const money = financePolicy.allows(actor, 'readSummary');
  const key = `${campaign}:${money}`;
  let body = cached.bodies.get(key);
  if (!body) {
    const view = visible(cached.overview, campaign, money);
    body = { view, json: Buffer.from(JSON.stringify(view)) };
    cached.bodies.set(key, body);
  }
  return body;
}

/** Money only where finance allows it, the rest only to campaign roles. */
function visible(overview: OverviewView, campaign: boolean, money: boolean): OverviewView {
  const { asOf, timeZone, cachedFor, financialBalance, ...rest } = overview;
  return { asOf, timeZone, cachedFor, ...(campaign ? rest : {}), ...(money ? { financialBalance } : {}) };
}
