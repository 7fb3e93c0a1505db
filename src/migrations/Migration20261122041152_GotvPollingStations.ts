import { Migration } from '@mikro-orm/migrations';

export class Migration20261122041152_GotvPollingStations extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_polling_stations" ("id" uuid not null, "code" varchar(40) not null, "name" varchar(200) not null, "address" varchar(300) null, "territory_id" uuid null, "lat" double precision not null, "lng" double precision not null, "tables" int not null, "registered_voters" int not null, "status" text check ("status" in ('pending', 'open', 'closed', 'incident')) not null default 'pending', "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "gotv_polling_stations_pkey" primary key ("id"));`);
    this.addSql(`alter table "gotv_polling_stations" add constraint "gotv_polling_stations_code_unique" unique ("code");`);
    this.addSql(`create index "gotv_polling_stations_territory_id_name_index" on "gotv_polling_stations" ("territory_id", "name");`);
    this.addSql(`create index "gotv_polling_stations_name_index" on "gotv_polling_stations" ("name");`);

    this.addSql(`alter table "gotv_polling_stations" add constraint "gotv_polling_stations_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_polling_stations" cascade;`);
  }

}
