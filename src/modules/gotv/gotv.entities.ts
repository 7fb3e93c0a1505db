import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { newId } from '../../kernel/ids';
import { TerritorySchema } from '../territories';

export const STATION_STATUSES = ['pending', 'open', 'closed', 'incident'] as const;
export type StationStatus = (typeof STATION_STATUSES)[number];

/** Puesto de votación: a place with several mesas (tables), each with its own voter list. */
export const PollingStationSchema = defineEntity({
  name: 'PollingStation',
  tableName: 'gotv_polling_stations',
  indexes: [{ properties: ['territory', 'name'] }, { properties: ['name'] }],
  properties: (p) => ({
    id: p.uuid().primary().onCreate(() => newId()),
    /** The registrar's code (or the campaign's own); unique. */
    code: p.string().length(40).unique(),
    name: p.string().length(200),
    address: p.string().length(300).nullable(),
    territory: () => p.manyToOne(TerritorySchema).nullable().deleteRule('set null'),
    lat: p.double(),
    lng: p.double(),
    tables: p.integer(),
    /** Potencial electoral: voters registered at this station. */
    registeredVoters: p.integer(),
    status: p.enum([...STATION_STATUSES]).default('pending'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type PollingStation = InferEntity<typeof PollingStationSchema>;
