import { Migration } from '@mikro-orm/migrations';

/**
 * Per-station tallies of confirmed voters (how many, how many voted), kept by triggers on
 * `gotv_voters` so that every writer (the API, the CSV import, a voter report in one statement,
 * a manager's correction) keeps them right without knowing they exist. Inserts and deletes are
 * tallied per statement from its transition table: an import's 2,000-row statement is one grouped
 * upsert, not 2,000. Updates are tallied per row, and only those that change a voter's station or
 * whether they voted fire at all (the WHEN clause is checked before any function runs). Stations
 * are upserted in id order, so two imports that touch the same stations lock them in one order.
 */
export class Migration20261123172439_GotvStationTallies extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "gotv_station_tallies" ("station_id" uuid not null, "confirmed_voters" int not null default 0, "confirmed_voted" int not null default 0, constraint "gotv_station_tallies_pkey" primary key ("station_id"));`);

    this.addSql(`alter table "gotv_station_tallies" add constraint "gotv_station_tallies_station_id_foreign" foreign key ("station_id") references "gotv_polling_stations" ("id") on update cascade on delete cascade;`);

    this.addSql(`create function gotv_tally_add(station uuid, voters integer, voted integer) returns void language sql as $$
      insert into gotv_station_tallies as t (station_id, confirmed_voters, confirmed_voted) values (station, voters, voted)
      on conflict (station_id) do update set confirmed_voters = t.confirmed_voters + excluded.confirmed_voters,
                                             confirmed_voted = t.confirmed_voted + excluded.confirmed_voted
    $$;`);

    // Both statement triggers name their transition table `changed_voters`: the rows inserted, or deleted.
    this.addSql(`create function gotv_tally_statement() returns trigger language plpgsql as $$
    declare
      sign integer := case tg_op when 'INSERT' then 1 else -1 end;
    begin
      perform gotv_tally_add(polling_station_id, sign * n, sign * voted) from (
        select polling_station_id, count(*)::int as n, (count(*) filter (where status = 'voted'))::int as voted
        from changed_voters group by polling_station_id order by polling_station_id) changed;
      return null;
    end $$;`);

    this.addSql(`create function gotv_tally_updated() returns trigger language plpgsql as $$
    begin
      if old.polling_station_id = new.polling_station_id then
        perform gotv_tally_add(new.polling_station_id, 0, (new.status = 'voted')::int - (old.status = 'voted')::int);
      elsif old.polling_station_id < new.polling_station_id then
        perform gotv_tally_add(old.polling_station_id, -1, -(old.status = 'voted')::int);
        perform gotv_tally_add(new.polling_station_id, 1, (new.status = 'voted')::int);
      else
        perform gotv_tally_add(new.polling_station_id, 1, (new.status = 'voted')::int);
        perform gotv_tally_add(old.polling_station_id, -1, -(old.status = 'voted')::int);
      end if;
      return null;
    end $$;`);

    this.addSql(`create trigger gotv_voters_tally_insert after insert on gotv_voters
      referencing new table as changed_voters for each statement execute function gotv_tally_statement();`);
    this.addSql(`create trigger gotv_voters_tally_delete after delete on gotv_voters
      referencing old table as changed_voters for each statement execute function gotv_tally_statement();`);
    this.addSql(`create trigger gotv_voters_tally_update after update of status, polling_station_id on gotv_voters for each row
      when ((old.status = 'voted') is distinct from (new.status = 'voted') or old.polling_station_id is distinct from new.polling_station_id)
      execute function gotv_tally_updated();`);

    // Existing voters, counted while no one can write them (the migration's transaction holds the lock).
    this.addSql(`lock table gotv_voters in share mode;`);
    this.addSql(`insert into gotv_station_tallies (station_id, confirmed_voters, confirmed_voted)
      select polling_station_id, count(*), count(*) filter (where status = 'voted') from gotv_voters group by polling_station_id;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists gotv_voters_tally_insert on gotv_voters;`);
    this.addSql(`drop trigger if exists gotv_voters_tally_delete on gotv_voters;`);
    this.addSql(`drop trigger if exists gotv_voters_tally_update on gotv_voters;`);
    this.addSql(`drop function if exists gotv_tally_statement(), gotv_tally_updated(), gotv_tally_add(uuid, integer, integer);`);
    this.addSql(`drop table if exists "gotv_station_tallies" cascade;`);
  }

}
