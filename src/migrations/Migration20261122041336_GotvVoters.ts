import { Migration } from '@mikro-orm/migrations';

export class Migration20261122041336_GotvVoters extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_voters" ("id" uuid not null, "name" varchar(160) not null, "document_id" varchar(20) not null, "phone" varchar(20) null, "polling_station_id" uuid not null, "table_number" int null, "contact_id" uuid null, "priority" text check ("priority" in ('low', 'normal', 'high')) not null default 'normal', "status" text check ("status" in ('pending', 'contacted', 'on_the_way', 'voted')) not null default 'pending', "voted_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "gotv_voters_pkey" primary key ("id"));`);
    this.addSql(`alter table "gotv_voters" add constraint "gotv_voters_document_id_unique" unique ("document_id");`);
    this.addSql(`create index "gotv_voters_polling_station_id_status_index" on "gotv_voters" ("polling_station_id", "status");`);
    this.addSql(`create index "gotv_voters_status_name_index" on "gotv_voters" ("status", "name");`);
    this.addSql(`create index "gotv_voters_name_index" on "gotv_voters" ("name");`);

    this.addSql(`alter table "gotv_voters" add constraint "gotv_voters_polling_station_id_foreign" foreign key ("polling_station_id") references "gotv_polling_stations" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "gotv_voters" add constraint "gotv_voters_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_voters" cascade;`);
  }

}
