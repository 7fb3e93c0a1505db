import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { findPage } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { ContactSchema, normalisePhone } from '../audience';
import { PollingStationSchema, VoterSchema, type Voter } from './gotv.entities';
import { presentVoter } from './gotv.presenter';
import type { CreateVoterInput, ListVotersInput } from './gotv.schemas';

export async function createVoter(em: EntityManager, input: CreateVoterInput) {
  const station = await em.findOne(PollingStationSchema, { id: input.pollingStationId }, { fields: ['id', 'tables'] });
  if (!station) throw invalidField('body.pollingStationId', 'No polling station has this id.');
  if (input.tableNumber !== undefined && input.tableNumber > station.tables) {
    throw invalidField('body.tableNumber', `The station has ${station.tables} tables.`);
  }
  if (input.contactId && !(await em.count(ContactSchema, { id: input.contactId }))) {
    throw invalidField('body.contactId', 'No contact has this id.');
  }
  let phone: string | null = null;
  if (input.phone) {
    phone = normalisePhone(input.phone) ?? null;
    if (!phone) throw invalidField('body.phone', 'not a valid phone number');
  }
  const voter = em.create(VoterSchema, {
    id: newId(),
    name: input.name,
    documentId: input.documentId,
    phone,
    pollingStation: station.id,
    tableNumber: input.tableNumber ?? null,
    contact: input.contactId ?? null,
    priority: input.priority,
    status: 'pending',
    votedAt: null,
  });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ConflictError('A voter with this document number is already registered.', 'voter_document_taken');
    }
    throw error;
  }
  return presentVoter(voter);
}

export async function getVoter(em: EntityManager, id: string): Promise<Voter> {
  const voter = await em.findOne(VoterSchema, { id });
  if (!voter) throw new NotFoundError('No voter has this id.');
  return voter;
}

/** `status=pending` is the call list brigades work from. */
export function listVoters(em: EntityManager, query: ListVotersInput) {
  const where: Record<string, unknown> = {};
  if (query.pollingStationId) where.pollingStation = query.pollingStationId;
  if (query.territoryId) where.pollingStation = { ...(query.pollingStationId ? { id: query.pollingStationId } : {}), territory: query.territoryId };
  if (query.status) where.status = query.status;
  if (query.priority) where.priority = query.priority;
  if (query.q) {
    const digits = query.q.replace(/\D/g, '');
    where.$or = [{ name: { $ilike: containsPattern(query.q) } }, ...(digits.length >= 4 ? [{ documentId: { $like: `${digits}%` } }] : [])];
  }
  return findPage(em, VoterSchema, where, query, { name: 'asc', id: 'asc' }, presentVoter);
}
