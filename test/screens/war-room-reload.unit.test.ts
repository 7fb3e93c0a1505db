/**
 * When the war room reads its figures from REST (web/war-room/reload.ts), without a browser: one
 * reload at a time, a reconnection during a stale reload followed by a fresh one at once, events
 * during a reload looked at again shortly, failures retried, an ended session not; and the screen's
 * own state (web/war-room/state.ts): the day's incidents, the answer to a window it cannot read.
 */
import { ReloadController, type ReloadReason, type ReloadTimers } from '../../web/war-room/reload';
import { ScreenState } from '../../web/war-room/state';

/** A reload the test finishes when it chooses. */
interface Pending {
  reason: ReloadReason;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Timers the test runs by hand: what is waiting, for how long. */
class ManualTimers implements ReloadTimers {
  waiting: { run: () => void; ms: number; cleared: boolean }[] = [];
  set = (run: () => void, ms: number) => {
    const timer = { run, ms, cleared: false };
    this.waiting.push(timer);
    return timer;
  };
  clear = (handle: unknown) => {
    (handle as { cleared: boolean }).cleared = true;
  };
  get live() {
    return this.waiting.filter((timer) => !timer.cleared);
  }
  fire(): void {
    const [timer] = this.live;
    if (!timer) throw new Error('no timer waiting');
    timer.cleared = true;
    timer.run();
  }
}

class SessionEnded extends Error {}

function setUp() {
  const loads: Pending[] = [];
  const timers = new ManualTimers();
  const controller = new ReloadController({
    load: (reason) => new Promise<void>((resolve, reject) => loads.push({ reason, resolve, reject })),
    isFinal: (error) => error instanceof SessionEnded,
    timers,
  });
  return { loads, timers, controller };
}

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the war room’s reloads', () => {
  it('runs one reload at a time', async () => {
    const { loads, controller } = setUp();
    void controller.request('connect');
    expect(loads.map((load) => load.reason)).toEqual(['connect']);
    expect(controller.loading).toBe(true);
    loads[0]!.resolve();
    await settle();
    expect(controller.loading).toBe(false);
    expect(loads).toHaveLength(1);
  });

  it('follows a reconnection during a stale reconcile with a fresh reload as soon as the stale one ends, not later or never', async () => {
    const { loads, timers, controller } = setUp();
    void controller.request('reconcile');
    // The server restarts while the minute's reconcile is on its way: the socket reconnects without recovery.
    const fresh = controller.request('reconnect');
    expect(loads).toHaveLength(1);
    loads[0]!.resolve();
    await settle();
    // The stale answers are drawn, then the figures are read again at once, as a reconnection (the screen says "resincronizado").
    expect(loads.map((load) => load.reason)).toEqual(['reconcile', 'reconnect']);
    expect(timers.live).toHaveLength(0);
    let done = false;
    void fresh.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    loads[1]!.resolve();
    await settle();
    expect(done).toBe(true);
    expect(controller.loading).toBe(false);
    expect(timers.live).toHaveLength(0);
  });

  it('follows a stale reload the restart cut short (it failed) with the reconnection’s at once, not a retry timer', async () => {
    const { loads, timers, controller } = setUp();
    void controller.request('reconcile');
    void controller.request('reconnect');
    loads[0]!.reject(new Error('timed out'));
    await settle();
    expect(loads.map((load) => load.reason)).toEqual(['reconcile', 'reconnect']);
    loads[1]!.resolve();
    await settle();
    expect(timers.live).toHaveLength(0);
    expect(controller.loading).toBe(false);
  });

  it('asks for one more reload however many are asked for during one, with the weightiest reason', async () => {
    const { loads, controller } = setUp();
    void controller.request('connect');
    void controller.request('reconcile');
    void controller.request('reconnect');
    void controller.request('resync');
    void controller.request('reconcile');
    loads[0]!.resolve();
    await settle();
    expect(loads.map((load) => load.reason)).toEqual(['connect', 'reconnect']);
    loads[1]!.resolve();
    await settle();
    expect(loads).toHaveLength(2);
  });

  it('looks again two seconds after a reload during which events arrived, and not after a quiet one', async () => {
    const { loads, timers, controller } = setUp();
    controller.noteEvent(); // no reload running: nothing to do
    void controller.request('connect');
    loads[0]!.resolve();
    await settle();
    expect(timers.live).toHaveLength(0);
    void controller.request('reconcile');
    controller.noteEvent();
    loads[1]!.resolve();
    await settle();
    expect(timers.live.map((timer) => timer.ms)).toEqual([2000]);
    expect(controller.followUpScheduled).toBe(true);
    timers.fire();
    expect(loads.map((load) => load.reason)).toEqual(['connect', 'reconcile', 'reconcile']);
    expect(controller.followUpScheduled).toBe(false);
  });

  it('tries a failed reload again after three seconds, once however often it fails meanwhile', async () => {
    const { loads, timers, controller } = setUp();
    void controller.request('connect');
    loads[0]!.reject(new Error('503'));
    await settle();
    expect(timers.live.map((timer) => timer.ms)).toEqual([3000]);
    // A reload the minute asks for fails too: the retry already waiting stands.
    void controller.request('reconcile');
    loads[1]!.reject(new Error('503'));
    await settle();
    expect(timers.live).toHaveLength(1);
    timers.fire();
    expect(loads).toHaveLength(3);
    loads[2]!.resolve();
    await settle();
    expect(timers.live).toHaveLength(0);
  });

  it('does not retry when the session has ended (the sign-in takes over), and stop() clears what waits', async () => {
    const { loads, timers, controller } = setUp();
    void controller.request('connect');
    loads[0]!.reject(new SessionEnded());
    await settle();
    expect(timers.live).toHaveLength(0);
    void controller.request('reconcile');
    loads[1]!.reject(new Error('503'));
    await settle();
    expect(timers.live).toHaveLength(1);
    controller.stop();
    expect(timers.live).toHaveLength(0);
    expect(controller.followUpScheduled).toBe(false);
  });
});

describe('the war room’s screen state', () => {
  it('counts the day’s incidents once each, at the chosen stations', () => {
    const view = new ScreenState();
    view.dayIncidents = new Map([
      ['i1', 's1'],
      ['i2', 's2'],
    ]);
    expect(view.countIncident('i1', 's1')).toBe(false);
    expect(view.countIncident('i3', 's1')).toBe(true);
    expect(view.incidentsToday(undefined)).toBe(3);
    expect(view.incidentsToday(new Set(['s1']))).toBe(2);
    expect(view.incidentsToday(new Set(['s9']))).toBe(0);
  });

  it('reloads the page once for a window it cannot read, then only the figures, at most every 30 s', () => {
    const now = 1_000_000_000;
    const view = new ScreenState();
    expect(view.unreadableTurnout(now, 0)).toBe('page');
    // The page is reloading: nothing more.
    expect(view.unreadableTurnout(now + 1000, 0)).toBe('nothing');
    // After the reload (a new page), within ten minutes of it: the figures, then not again for 30 s.
    const reloaded = new ScreenState();
    expect(reloaded.unreadableTurnout(now + 60_000, now)).toBe('figures');
    expect(reloaded.unreadableTurnout(now + 80_000, now)).toBe('nothing');
    expect(reloaded.unreadableTurnout(now + 90_001, now)).toBe('figures');
    // Ten minutes on, the page may reload again.
    expect(reloaded.unreadableTurnout(now + 10 * 60_000 + 1, now)).toBe('page');
  });
});
