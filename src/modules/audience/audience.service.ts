import type { Queries } from '../../kernel/sql';
import { ensureConsentText, insertConsentRecords, optOut, type ContactSelector } from './audience.repository';
import type { Channel } from './audience.segments';

/** What each way of withdrawing says it is, stored once like every consent text. */
export const WITHDRAWAL_TEXTS = {
  whatsapp_stop:
    'Solicitud de baja por WhatsApp: la persona respondió con una palabra de baja (BAJA, STOP…) y no recibirá más mensajes de WhatsApp de la campaña.',
  email_unsubscribe: 'Solicitud de baja: la persona pidió no recibir más correos de la campaña (enlace de cancelación de suscripción, RFC 8058).',
  staff: 'Baja registrada por el equipo de la campaña a pedido de la persona (Ley 1581 de 2012, art. 8: derecho a revocar la autorización).',
} as const;

export type WithdrawalSource = keyof typeof WITHDRAWAL_TEXTS;

/** How a withdrawal came, kept as its proof. */
export interface WithdrawalProof {
  source: WithdrawalSource;
  /** The message, campaign or user it came through. */
  sourceRef: string | null;
  /** What the person wrote or did: the reply's text, the link they used, a staff member's note. */
  evidence: string;
  ipHash?: string | null;
  userAgent?: string | null;
  at?: Date;
}

/**
 * Withdraws consent for one channel (Ley 1581 de 2012, art. 8 e and art. 9: revocation must be
 * as provable as the consent): every selected contact still reachable there is opted out, and a
 * `withdrawn` consent record keeps when, how, through what and the person's own words, with the
 * other channel's consent as it stands. A contact already opted out gets no second record.
 * Returns the ids of the contacts opted out now. Runs on the caller's transaction when given one.
 */
export async function withdrawConsent(q: Queries, selector: ContactSelector, channel: Channel, proof: WithdrawalProof): Promise<string[]> {
  const at = proof.at ?? new Date();
  const contacts = await optOut(q, selector, channel, at);
  if (!contacts.length) return [];
  const textId = await ensureConsentText(q, WITHDRAWAL_TEXTS[proof.source], null);
  await insertConsentRecords(
    q,
    contacts.map((contact) => ({
      contactId: contact.id,
      textId,
      action: 'withdrawn' as const,
      source: proof.source,
      sourceRef: proof.sourceRef,
      whatsappOptIn: channel === 'whatsapp' ? false : Boolean(contact.whatsapp),
      emailOptIn: channel === 'email' ? false : Boolean(contact.email),
      ipHash: proof.ipHash ?? null,
      userAgent: proof.userAgent ?? null,
      evidence: proof.evidence.slice(0, 500),
      at,
    })),
  );
  return contacts.map((contact) => contact.id);
}
