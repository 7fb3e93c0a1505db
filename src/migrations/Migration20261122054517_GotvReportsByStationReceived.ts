import { Migration } from '@mikro-orm/migrations';

export class Migration20261122054517_GotvReportsByStationReceived extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index "gotv_turnout_reports_received_at_index";`);

    this.addSql(`create index "gotv_turnout_reports_station_id_received_at_index" on "gotv_turnout_reports" ("station_id", "received_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "gotv_turnout_reports_station_id_received_at_index";`);

    this.addSql(`create index "gotv_turnout_reports_received_at_index" on "gotv_turnout_reports" ("received_at");`);
  }

}
