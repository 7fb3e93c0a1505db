import type { OverviewView } from './dashboard.schemas';

/** Where the war-room screens listen; the same room qr's live leads go to (its rule is qr's `followDashboard`). */
export const DASHBOARD_ROOM = 'dashboard';

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    /** The overview's figures after one of them changed, at most once a second across processes (no personal data). */
    'dashboard:kpi': OverviewView;
  }
}
