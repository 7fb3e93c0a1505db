import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { financePolicy } from './finance.policy';
import { donationsOfContact } from './finance.repository';

const pesos = new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 });

/**
 * A person's donations on their page, for roles that may read the books (`financePolicy.read`):
 * others get nothing from here. The ledger names donors by NIT or cédula, not by contact, so a
 * donation is the person's when its donor's number is their cédula; a reversal shows as such.
 */
export const financeTimeline: PersonTimelineHolder = {
  async items(q, { contactId, actor, before, limit }) {
    if (!financePolicy.allows(actor, 'read')) return [];
    const donations = await donationsOfContact(q, contactId, before, limit);
    return donations.map((donation): TimelineEntry => ({
      at: donation.createdAt,
      kind: donation.reversesId ? 'donation_reversed' : 'donation',
      title: donation.reversesId ? `Donación anulada: ${pesos.format(-donation.amount)}` : `Donación: ${pesos.format(donation.amount)}`,
      refId: donation.id,
      detail: { amount: donation.amount, date: donation.date, code: donation.code, codeName: donation.codeName, donorType: donation.donorType, reverses: donation.reversesId },
    }));
  },
};
