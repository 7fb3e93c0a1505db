import { Migration } from '@mikro-orm/migrations';

export class Migration20261122042110_GotvSettings extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_settings" ("id" serial primary key, "election_date" varchar(10) not null, "opens_at" varchar(5) not null, "closes_at" varchar(5) not null, "turnout_curve" jsonb null, "updated_at" timestamptz not null);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_settings" cascade;`);
  }

}
