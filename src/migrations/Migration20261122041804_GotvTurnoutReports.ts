import { Migration } from '@mikro-orm/migrations';

export class Migration20261122041804_GotvTurnoutReports extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_turnout_reports" ("id" uuid not null, "client_report_id" uuid not null, "kind" text check ("kind" in ('voter', 'count')) not null, "station_id" uuid not null, "voter_id" uuid null, "voters_so_far" int null, "reported_at" timestamptz not null, "received_at" timestamptz not null, "reported_by_id" uuid not null, "flagged" boolean not null default false, constraint "gotv_turnout_reports_pkey" primary key ("id"));`);
    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_client_report_id_unique" unique ("client_report_id");`);
    this.addSql(`create index "gotv_turnout_reports_station_id_kind_reported_at_index" on "gotv_turnout_reports" ("station_id", "kind", "reported_at");`);
    this.addSql(`create index "gotv_turnout_reports_received_at_index" on "gotv_turnout_reports" ("received_at");`);

    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_station_id_foreign" foreign key ("station_id") references "gotv_polling_stations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_voter_id_foreign" foreign key ("voter_id") references "gotv_voters" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_reported_by_id_foreign" foreign key ("reported_by_id") references "users" ("id") on update cascade on delete restrict;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_turnout_reports" cascade;`);
  }

}
