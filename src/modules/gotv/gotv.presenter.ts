import type { z } from 'zod';
import type { PollingStation, Voter } from './gotv.entities';
import type { stationView, voterView } from './gotv.schemas';

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
