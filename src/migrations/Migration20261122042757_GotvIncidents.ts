import { Migration } from '@mikro-orm/migrations';

export class Migration20261122042757_GotvIncidents extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_incidents" ("id" uuid not null, "station_id" uuid not null, "type" text check ("type" in ('violence', 'vote_buying', 'material_missing', 'station_closed', 'witness_denied', 'other')) not null, "severity" text check ("severity" in ('low', 'medium', 'high', 'critical')) not null, "description" text not null, "reported_by_id" uuid not null, "created_at" timestamptz not null, constraint "gotv_incidents_pkey" primary key ("id"));`);
    this.addSql(`create index "gotv_incidents_station_id_created_at_index" on "gotv_incidents" ("station_id", "created_at");`);

    this.addSql(`alter table "gotv_incidents" add constraint "gotv_incidents_station_id_foreign" foreign key ("station_id") references "gotv_polling_stations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_incidents" add constraint "gotv_incidents_reported_by_id_foreign" foreign key ("reported_by_id") references "users" ("id") on update cascade on delete restrict;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_incidents" cascade;`);
  }

}
