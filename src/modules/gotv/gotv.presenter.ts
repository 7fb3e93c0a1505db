import { wrap } from '@mikro-orm/core';
import type { z } from 'zod';
import type { Incident, PollingStation, Voter } from './gotv.entities';
import type { incidentView, stationView, voterView } from './gotv.schemas';

export function presentStation(station: PollingStation): z.input<typeof stationView> {
  return {
    id: station.id,
    code: station.code,
    name: station.name,
    address: station.address ?? null,
    territoryId: station.territory ? station.territory.id : null,
    lat: Number(station.lat),
    lng: Number(station.lng),
    tables: station.tables,
    registeredVoters: station.registeredVoters,
    previousTurnout: station.previousTurnout ?? null,
    status: station.status,
    createdAt: station.createdAt.toISOString(),
    updatedAt: station.updatedAt.toISOString(),
  };
}

export function presentVoter(voter: Voter): z.input<typeof voterView> {
  const claimActive = Boolean(voter.claimedBy && voter.claimedUntil && voter.claimedUntil.getTime() > Date.now());
  return {
    id: voter.id,
    name: voter.name,
    documentId: voter.documentId,
    phone: voter.phone ?? null,
    pollingStationId: voter.pollingStation.id,
    tableNumber: voter.tableNumber ?? null,
    contactId: voter.contact ? voter.contact.id : null,
    brigadeId: voter.brigade ? voter.brigade.id : null,
    priority: voter.priority,
    status: voter.status,
    votedAt: voter.votedAt ? voter.votedAt.toISOString() : null,
    claimedBy: claimActive ? voter.claimedBy!.id : null,
    claimedUntil: claimActive ? voter.claimedUntil!.toISOString() : null,
    createdAt: voter.createdAt.toISOString(),
  };
}

export function presentIncident(incident: Incident): z.infer<typeof incidentView> {
  return {
    id: incident.id,
    pollingStationId: incident.station.id,
    type: incident.type,
    severity: incident.severity,
    description: incident.description,
    reportedBy: incident.reportedBy.id,
    reportedByName: wrap(incident.reportedBy).isInitialized() ? incident.reportedBy.name : null,
    photo: incident.photoType && incident.photoSize !== null && incident.photoSize !== undefined ? { type: incident.photoType, size: incident.photoSize } : null,
    createdAt: incident.createdAt.toISOString(),
  };
}
