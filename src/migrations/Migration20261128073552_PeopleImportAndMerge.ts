import { Migration } from '@mikro-orm/migrations';

export class Migration20261128073552_PeopleImportAndMerge extends Migration {
  override name = 'Migration20261128073552_PeopleImportAndMerge';

  override up(): void | Promise<void> {
    // A name as the duplicate finder compares it: folded as the people search folds it (people_fold,
    // migration PeopleSearch: lower case, no accents), punctuation gone, single spaces. Immutable, so indexed.
    this.addSql(`create function contact_name_key(name text) returns text language sql immutable strict parallel safe
      return btrim(regexp_replace(people_fold(name), '[^a-z0-9]+', ' ', 'g'));`);

    this.addSql(`create table "contact_imports" ("id" uuid not null, "imported_by" uuid not null, "imported_at" timestamptz not null, "rows" int not null, "created" int not null, "updated" int not null, "unchanged" int not null, "rejected" int not null, "warnings" int not null, "consent_text_id" uuid null, "consent_collection" varchar(300) null, "consents_recorded" int not null, primary key ("id"));`);
    this.addSql(`create index "contact_imports_imported_at_index" on "contact_imports" ("imported_at");`);

    this.addSql(`create table "contact_duplicate_dismissals" ("contact_a_id" uuid not null, "contact_b_id" uuid not null, "dismissed_by" uuid not null, "dismissed_at" timestamptz not null, primary key ("contact_a_id", "contact_b_id"));`);
    this.addSql(`create index "contact_duplicate_dismissals_contact_b_id_index" on "contact_duplicate_dismissals" ("contact_b_id");`);

    this.addSql(`create table "contact_merges" ("id" uuid not null, "into_contact_id" uuid not null, "from_contact_id" uuid not null, "merged_by" uuid not null, "merged_at" timestamptz not null, "undo_until" timestamptz not null, "moved" jsonb not null, "counts" jsonb not null, "snapshot" jsonb null, "snapshot_cleared_at" timestamptz null, "snapshot_cleared_reason" text null, "undone_at" timestamptz null, "undone_by" uuid null, primary key ("id"));`);
    this.addSql(`create index "contact_merges_merged_at_id_index" on "contact_merges" ("merged_at", "id");`);
    this.addSql(`create index "contact_merges_into_contact_id_index" on "contact_merges" ("into_contact_id");`);
    this.addSql(`create index "contact_merges_from_contact_id_index" on "contact_merges" ("from_contact_id");`);
    this.addSql(`create index "contact_merges_snapshot_until" on "contact_merges" ("undo_until") where "snapshot" is not null;`);

    this.addSql(`alter table "audience_audit" drop constraint "audience_audit_action_check";`);
    this.addSql(`alter table "audience_audit" add constraint "audience_audit_action_check" check ("action" in ('export', 'erasure', 'withdrawal', 'correction', 'tags', 'merge', 'merge_undo'));`);

    // Tags come with the people search (migration PeopleSearch), and the cédula's index too.
    this.addSql(`alter table "contacts" add "merged_into_id" uuid null, add "merged_at" timestamptz null;`);
    this.addSql(`alter table "contacts" add constraint "contacts_merged_into_id_foreign" foreign key ("merged_into_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`create index "contacts_territory_name_key" on "contacts" ("territory_id", contact_name_key("name")) where "erased_at" is null and "merged_into_id" is null;`);

    this.addSql(`alter table "contact_duplicate_dismissals" add constraint "contact_duplicate_dismissals_contact_a_id_foreign" foreign key ("contact_a_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "contact_duplicate_dismissals" add constraint "contact_duplicate_dismissals_contact_b_id_foreign" foreign key ("contact_b_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "contact_duplicate_dismissals" add constraint "contact_duplicate_dismissals_order_check" check (contact_a_id < contact_b_id);`);

    this.addSql(`alter table "contact_merges" add constraint "contact_merges_into_contact_id_foreign" foreign key ("into_contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "contact_merges" add constraint "contact_merges_from_contact_id_foreign" foreign key ("from_contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "contact_merges" add constraint "contact_merges_snapshot_cleared_reason_check" check ("snapshot_cleared_reason" in ('expired', 'erasure', 'undone'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "contact_imports" cascade;`);
    this.addSql(`drop table if exists "contact_duplicate_dismissals" cascade;`);
    this.addSql(`drop table if exists "contact_merges" cascade;`);

    this.addSql(`alter table "audience_audit" drop constraint "audience_audit_action_check";`);
    this.addSql(`alter table "audience_audit" add constraint "audience_audit_action_check" check ("action" in ('export', 'erasure', 'withdrawal', 'correction', 'tags')) not valid;`);

    this.addSql(`alter table "contacts" drop constraint "contacts_merged_into_id_foreign";`);
    this.addSql(`drop index "contacts_territory_name_key";`);
    this.addSql(`alter table "contacts" drop column "merged_into_id", drop column "merged_at";`);
    this.addSql(`drop function contact_name_key(text);`);
  }
}
