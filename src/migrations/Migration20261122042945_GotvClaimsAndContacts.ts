import { Migration } from '@mikro-orm/migrations';

export class Migration20261122042945_GotvClaimsAndContacts extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_voter_contacts" ("id" uuid not null, "voter_id" uuid not null, "user_id" uuid not null, "outcome" text check ("outcome" in ('reached', 'no_answer', 'wrong_number', 'refused', 'on_the_way')) not null, "note" varchar(500) null, "created_at" timestamptz not null, constraint "gotv_voter_contacts_pkey" primary key ("id"));`);
    this.addSql(`create index "gotv_voter_contacts_voter_id_created_at_index" on "gotv_voter_contacts" ("voter_id", "created_at");`);

    this.addSql(`alter table "gotv_voter_contacts" add constraint "gotv_voter_contacts_voter_id_foreign" foreign key ("voter_id") references "gotv_voters" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "gotv_voter_contacts" add constraint "gotv_voter_contacts_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete restrict;`);

    this.addSql(`alter table "gotv_voters" add column "claimed_by_id" uuid null, add column "claimed_until" timestamptz null;`);
    this.addSql(`alter table "gotv_voters" add constraint "gotv_voters_claimed_by_id_foreign" foreign key ("claimed_by_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "gotv_voter_contacts" cascade;`);

    this.addSql(`alter table "gotv_voters" drop constraint "gotv_voters_claimed_by_id_foreign";`);

    this.addSql(`alter table "gotv_voters" drop column "claimed_by_id", drop column "claimed_until";`);
  }

}
