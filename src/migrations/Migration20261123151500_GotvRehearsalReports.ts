import { Migration } from '@mikro-orm/migrations';

export class Migration20261123151500_GotvRehearsalReports extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "gotv_turnout_reports" add column "rehearsal" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "gotv_turnout_reports" drop column "rehearsal";`);
  }

}
