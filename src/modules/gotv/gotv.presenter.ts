import type { z } from 'zod';
import type { IncidentRecord } from './gotv.incidents.repository';
import type { StationRecord } from './gotv.stations.repository';
import type { VoterRecord } from './gotv.voters.repository';
import type { incidentView, stationView, voterView } from './gotv.schemas';

export function presentStation(station: StationRecord): z.input<typeof stationView> {
  return {
    id: station.id,
    code: station.code,
    name: station.name,
    address: station.address ?? null,
    territoryId: station.territoryId ?? null,
    lat: station.lat,
    lng: station.lng,
    tables: station.tables,
    registeredVoters: station.registeredVoters,
    previousTurnout: station.previousTurnout ?? null,
    status: station.status,
    createdAt: station.createdAt.toISOString(),
    updatedAt: station.updatedAt.toISOString(),
  };
}

export function presentVoter(voter: VoterRecord): z.input<typeof voterView> {
  const claimActive = Boolean(voter.claimedById && voter.claimedUntil && voter.claimedUntil.getTime() > Date.now());
  return {
    id: voter.id,
    name: voter.name,
    documentId: voter.documentId,
    phone: voter.phone ?? null,
    pollingStationId: voter.pollingStationId,
    tableNumber: voter.tableNumber ?? null,
    contactId: voter.contactId ?? null,
    brigadeId: voter.brigadeId ?? null,
    priority: voter.priority,
    status: voter.status,
    votedAt: voter.votedAt ? voter.votedAt.toISOString() : null,
    claimedBy: claimActive ? voter.claimedById : null,
    claimedUntil: claimActive ? voter.claimedUntil!.toISOString() : null,
    createdAt: voter.createdAt.toISOString(),
  };
}

/** An incident; `reporterName` when the answer names its reporter (the list and the detail), null otherwise. */
export function presentIncident(incident: IncidentRecord, reporterName: string | null = null): z.infer<typeof incidentView> {
  return {
    id: incident.id,
    pollingStationId: incident.stationId,
    type: incident.type,
    severity: incident.severity,
    description: incident.description,
    reportedBy: incident.reportedById,
    reportedByName: reporterName,
    photo: incident.photoType && incident.photoSize !== null ? { type: incident.photoType, size: incident.photoSize } : null,
    createdAt: incident.createdAt.toISOString(),
  };
}
