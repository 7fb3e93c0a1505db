/** The war-room dashboard room; leads show up there live. No personal data in the payload. */
export const DASHBOARD_ROOM = 'dashboard';

export interface QrLeadEvent {
  id: string;
  campaignId: string;
  codeId: string;
  /** False when a person submitted again and the lead was updated. */
  created: boolean;
}

declare module '../../kernel/realtime' {
  interface RealtimeEvents {
    /** Leads captured within 100 ms travel together: at a rally, hundreds arrive per minute. */
    'qr:lead': { items: QrLeadEvent[] };
  }
}
