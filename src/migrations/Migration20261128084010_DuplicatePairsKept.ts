import { Migration } from '@mikro-orm/migrations';

/**
 * The duplicate finder keeps its pairs (`contact_duplicate_pairs`) instead of computing every pair
 * on each request. Triggers note which contacts may have new or stale pairs
 * (`contact_duplicate_queue`) in the writer's own transaction, so every writer of contacts (a
 * capture, a WhatsApp message from a new number, an import, a correction, a merge and its undo,
 * an erasure, a territory deleted under its people) keeps the finder right without knowing it; the
 * pairs themselves are computed again after those writes committed (audience.duplicates.repository.ts,
 * `catchUpDuplicates`), which is what makes two people written at once by two transactions, each
 * unable to see the other, still meet.
 *
 * New contacts are queued per row, so a capture of someone already known (an `insert … on
 * conflict do update`) fires nothing; measured at the database, a per-statement trigger with a
 * transition table cost such a capture 29 µs for an empty insert into the queue, and an import's
 * 1,000-row statement as much as 1,000 row triggers (about 10 ms). Updates are queued per row, and
 * only those that change what a pair is made of fire at all (the WHEN clause is checked before
 * any function runs), so an opt-out or a tag costs nothing more. Deletes (no writer deletes
 * contacts today) are queued per statement. A dismissal queues its two contacts (the pair goes);
 * removing one queues them again.
 *
 * The queue starts with one row without a contact: every pair is computed once, by the workers
 * after start (or by the first request for the list).
 */
export class Migration20261128084010_DuplicatePairsKept extends Migration {
  override name = 'Migration20261128084010_DuplicatePairsKept';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_duplicate_queue" ("id" bigserial primary key, "contact_id" uuid null);`);
    // Rows come and go within seconds: vacuumed once a thousand are gone, whatever the table's size, so that
    // looking for queued rows after an import of 100,000 people does not read their dead rows for long.
    this.addSql(`alter table "contact_duplicate_queue" set (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0);`);

    this.addSql(`create table "contact_duplicate_pairs" ("contact_a_id" uuid not null, "contact_b_id" uuid not null, "score" numeric(4,3) not null, "name_similarity" real not null, "reasons" text[] not null, primary key ("contact_a_id", "contact_b_id"));`);
    this.addSql(`create index "contact_duplicate_pairs_rank" on "contact_duplicate_pairs" ((-"score"), "contact_a_id", "contact_b_id");`);
    this.addSql(`create index "contact_duplicate_pairs_contact_b_id_index" on "contact_duplicate_pairs" ("contact_b_id");`);
    this.addSql(`alter table "contact_duplicate_pairs" add constraint "contact_duplicate_pairs_order_check" check (contact_a_id < contact_b_id);`);

    // The delete trigger's transition table: the rows deleted.
    this.addSql(`create function contact_duplicates_queue_rows() returns trigger language plpgsql as $$
    begin
      insert into contact_duplicate_queue (contact_id) select id from changed_contacts;
      return null;
    end $$;`);
    this.addSql(`create function contact_duplicates_queue_row() returns trigger language plpgsql as $$
    begin
      insert into contact_duplicate_queue (contact_id) values (new.id);
      return null;
    end $$;`);
    this.addSql(`create function contact_duplicates_queue_dismissed() returns trigger language plpgsql as $$
    begin
      insert into contact_duplicate_queue (contact_id)
      select contact_a_id from changed_dismissals union all select contact_b_id from changed_dismissals;
      return null;
    end $$;`);

    this.addSql(`create trigger contacts_duplicates_insert after insert on contacts for each row execute function contact_duplicates_queue_row();`);
    this.addSql(`create trigger contacts_duplicates_delete after delete on contacts
      referencing old table as changed_contacts for each statement execute function contact_duplicates_queue_rows();`);
    this.addSql(`create trigger contacts_duplicates_update after update of name, phone, email, document_id, territory_id, erased_at, merged_into_id on contacts for each row
      when (old.name is distinct from new.name or old.phone is distinct from new.phone or old.email is distinct from new.email
        or old.document_id is distinct from new.document_id or old.territory_id is distinct from new.territory_id
        or (old.erased_at is null) <> (new.erased_at is null) or (old.merged_into_id is null) <> (new.merged_into_id is null))
      execute function contact_duplicates_queue_row();`);
    this.addSql(`create trigger contact_duplicate_dismissals_insert after insert on contact_duplicate_dismissals
      referencing new table as changed_dismissals for each statement execute function contact_duplicates_queue_dismissed();`);
    this.addSql(`create trigger contact_duplicate_dismissals_delete after delete on contact_duplicate_dismissals
      referencing old table as changed_dismissals for each statement execute function contact_duplicates_queue_dismissed();`);

    // Every pair of the contacts held now: a row without a contact.
    this.addSql(`insert into contact_duplicate_queue (contact_id) values (null);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists contacts_duplicates_insert on contacts;`);
    this.addSql(`drop trigger if exists contacts_duplicates_delete on contacts;`);
    this.addSql(`drop trigger if exists contacts_duplicates_update on contacts;`);
    this.addSql(`drop trigger if exists contact_duplicate_dismissals_insert on contact_duplicate_dismissals;`);
    this.addSql(`drop trigger if exists contact_duplicate_dismissals_delete on contact_duplicate_dismissals;`);
    this.addSql(`drop function if exists contact_duplicates_queue_rows(), contact_duplicates_queue_row(), contact_duplicates_queue_dismissed();`);
    this.addSql(`drop table if exists "contact_duplicate_queue" cascade;`);
    this.addSql(`drop table if exists "contact_duplicate_pairs" cascade;`);
  }
}
