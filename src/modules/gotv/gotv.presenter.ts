import type { z } from 'zod';
import type { PollingStation } from './gotv.entities';
import type { StationEvent } from './gotv.events';
import type { stationView } from './gotv.schemas';

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

export function stationEvent(station: PollingStation): StationEvent {
  return {
    id: station.id,
    code: station.code,
    status: station.status,
    registeredVoters: station.registeredVoters,
    lat: Number(station.lat),
    lng: Number(station.lng),
  };
}
