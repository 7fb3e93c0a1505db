import { Migration } from '@mikro-orm/migrations';

export class Migration20261122041611_GotvBrigades extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_brigades" ("id" uuid not null, "name" varchar(120) not null, "leader_id" uuid null, "created_at" timestamptz not null, constraint "gotv_brigades_pkey" primary key ("id"));`);
    this.addSql(`alter table "gotv_brigades" add constraint "gotv_brigades_name_unique" unique ("name");`);

    this.addSql(`create table "gotv_brigade_stations" ("brigade_id" uuid not null, "station_id" uuid not null, constraint "gotv_brigade_stations_pkey" primary key ("brigade_id", "station_id"));`);
    this.addSql(`create index "gotv_brigade_stations_station_id_index" on "gotv_brigade_stations" ("station_id");`);

    this.addSql(`create table "gotv_brigade_members" ("brigade_id" uuid not null, "user_id" uuid not null, constraint "gotv_brigade_members_pkey" primary key ("brigade_id", "user_id"));`);
    this.addSql(`create index "gotv_brigade_members_user_id_index" on "gotv_brigade_members" ("user_id");`);

    this.addSql(`alter table "gotv_brigades" add constraint "gotv_brigades_leader_id_foreign" foreign key ("leader_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "gotv_brigade_stations" add constraint "gotv_brigade_stations_brigade_id_foreign" foreign key ("brigade_id") references "gotv_brigades" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_brigade_stations" add constraint "gotv_brigade_stations_station_id_foreign" foreign key ("station_id") references "gotv_polling_stations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "gotv_brigade_members" add constraint "gotv_brigade_members_brigade_id_foreign" foreign key ("brigade_id") references "gotv_brigades" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_brigade_members" add constraint "gotv_brigade_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "gotv_voters" add column "brigade_id" uuid null;`);
    this.addSql(`alter table "gotv_voters" add constraint "gotv_voters_brigade_id_foreign" foreign key ("brigade_id") references "gotv_brigades" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "gotv_brigade_stations" drop constraint "gotv_brigade_stations_brigade_id_foreign";`);

    this.addSql(`alter table "gotv_brigade_members" drop constraint "gotv_brigade_members_brigade_id_foreign";`);

    this.addSql(`alter table "gotv_voters" drop constraint "gotv_voters_brigade_id_foreign";`);

    this.addSql(`drop table if exists "gotv_brigades" cascade;`);

    this.addSql(`drop table if exists "gotv_brigade_stations" cascade;`);

    this.addSql(`drop table if exists "gotv_brigade_members" cascade;`);

    this.addSql(`alter table "gotv_voters" drop column "brigade_id";`);
  }

}
