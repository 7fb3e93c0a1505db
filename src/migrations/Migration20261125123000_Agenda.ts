import { Migration } from '@mikro-orm/migrations';

export class Migration20261125123000_Agenda extends Migration {

  override name = 'Migration20261125123000_Agenda';

  override up(): void | Promise<void> {
    this.addSql(`create table "agenda_resources" ("id" uuid not null, "name" varchar(160) not null, "category" varchar(60) null, "quantity" int not null, "unit" varchar(30) null, "notes" text null, "active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index agenda_resources_name_unique on agenda_resources (lower(name));`);

    this.addSql(`create table "agenda_user_contacts" ("user_id" uuid not null, "contact_id" uuid not null, "updated_at" timestamptz not null, primary key ("user_id"));`);

    this.addSql(`create table "agenda_settings" ("id" smallint not null, "reminder_template" varchar(512) null, "cancellation_template" varchar(512) null, "template_language" varchar(15) not null, "reminders_enabled" boolean not null default true, "updated_by_id" uuid null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "agenda_feed_tokens" ("user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, primary key ("user_id"));`);
    this.addSql(`alter table "agenda_feed_tokens" add constraint "agenda_feed_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "agenda_events" ("id" uuid not null, "title" varchar(200) not null, "type" text not null, "description" text null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "time_zone" varchar(64) not null, "address" varchar(300) null, "territory_id" uuid null, "latitude" double precision null, "longitude" double precision null, "capacity" int null, "visibility" text not null, "status" text not null, "organiser_id" uuid null, "budget" bigint null, "cancelled_at" timestamptz null, "cancellation_reason" varchar(500) null, "created_by_id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_events_starts_at_id_index" on "agenda_events" ("starts_at", "id");`);
    this.addSql(`create index "agenda_events_status_starts_at_index" on "agenda_events" ("status", "starts_at");`);
    this.addSql(`create index "agenda_events_territory_id_index" on "agenda_events" ("territory_id");`);

    this.addSql(`create table "agenda_tasks" ("id" uuid not null, "event_id" uuid not null, "title" varchar(200) not null, "notes" text null, "assignee_id" uuid null, "due_at" timestamptz null, "done_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_tasks_event_id_due_at_index" on "agenda_tasks" ("event_id", "due_at");`);
    this.addSql(`create index "agenda_tasks_assignee_id_index" on "agenda_tasks" ("assignee_id");`);

    this.addSql(`create table "agenda_shifts" ("id" uuid not null, "event_id" uuid not null, "role" varchar(120) not null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "slots" int not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_shifts_event_id_starts_at_index" on "agenda_shifts" ("event_id", "starts_at");`);

    this.addSql(`create table "agenda_shift_signups" ("id" uuid not null, "shift_id" uuid not null, "event_id" uuid not null, "contact_id" uuid not null, "recorded_by_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_shift_signups_event_id_index" on "agenda_shift_signups" ("event_id");`);
    this.addSql(`create index "agenda_shift_signups_contact_id_index" on "agenda_shift_signups" ("contact_id");`);
    this.addSql(`alter table "agenda_shift_signups" add constraint "agenda_shift_signups_shift_contact_unique" unique ("shift_id", "contact_id");`);

    this.addSql(`create table "agenda_rsvps" ("id" uuid not null, "event_id" uuid not null, "contact_id" uuid not null, "status" text not null, "waitlisted_at" timestamptz null, "responded_at" timestamptz not null, "recorded_by_id" uuid null, "day_reminder_at" timestamptz null, "hours_reminder_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_rsvps_event_id_status_waitlisted_at_index" on "agenda_rsvps" ("event_id", "status", "waitlisted_at");`);
    this.addSql(`create index "agenda_rsvps_contact_id_index" on "agenda_rsvps" ("contact_id");`);
    this.addSql(`alter table "agenda_rsvps" add constraint "agenda_rsvps_event_contact_unique" unique ("event_id", "contact_id");`);

    this.addSql(`create table "agenda_check_ins" ("id" uuid not null, "event_id" uuid not null, "contact_id" uuid not null, "shift_id" uuid null, "method" text not null, "checked_in_at" timestamptz not null, "recorded_by_id" uuid null, primary key ("id"));`);
    this.addSql(`create index "agenda_check_ins_checked_in_at_id_index" on "agenda_check_ins" ("checked_in_at", "id");`);
    this.addSql(`create index "agenda_check_ins_contact_id_index" on "agenda_check_ins" ("contact_id");`);
    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_event_contact_unique" unique ("event_id", "contact_id");`);

    this.addSql(`create table "agenda_allocations" ("id" uuid not null, "resource_id" uuid not null, "event_id" uuid not null, "quantity" int not null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "notes" varchar(500) null, "created_by_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agenda_allocations_resource_id_starts_at_index" on "agenda_allocations" ("resource_id", "starts_at");`);
    this.addSql(`create index "agenda_allocations_event_id_index" on "agenda_allocations" ("event_id");`);

    this.addSql(`alter table "agenda_resources" add constraint "agenda_resources_quantity_check" check (quantity >= 0);`);

    this.addSql(`alter table "agenda_user_contacts" add constraint "agenda_user_contacts_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "agenda_user_contacts" add constraint "agenda_user_contacts_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "agenda_settings" add constraint "agenda_settings_updated_by_id_foreign" foreign key ("updated_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_settings" add constraint "agenda_settings_singleton_check" check (id = 1);`);

    this.addSql(`alter table "agenda_feed_tokens" add constraint "agenda_feed_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "agenda_events" add constraint "agenda_events_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_organiser_id_foreign" foreign key ("organiser_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_span_check" check (ends_at > starts_at);`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_capacity_check" check (capacity is null or capacity > 0);`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_budget_check" check (budget is null or budget >= 0);`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_place_check" check ((latitude is null) = (longitude is null) and (latitude is null or (latitude between -90 and 90 and longitude between -180 and 180)));`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_type_check" check ("type" in ('rally', 'meeting', 'canvass', 'training', 'debate', 'door_to_door', 'other'));`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_visibility_check" check ("visibility" in ('public', 'internal'));`);
    this.addSql(`alter table "agenda_events" add constraint "agenda_events_status_check" check ("status" in ('draft', 'scheduled', 'cancelled', 'done'));`);

    this.addSql(`alter table "agenda_tasks" add constraint "agenda_tasks_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_tasks" add constraint "agenda_tasks_assignee_id_foreign" foreign key ("assignee_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "agenda_shifts" add constraint "agenda_shifts_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_shifts" add constraint "agenda_shifts_span_check" check (ends_at > starts_at);`);
    this.addSql(`alter table "agenda_shifts" add constraint "agenda_shifts_slots_check" check (slots > 0);`);

    this.addSql(`alter table "agenda_shift_signups" add constraint "agenda_shift_signups_shift_id_foreign" foreign key ("shift_id") references "agenda_shifts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "agenda_shift_signups" add constraint "agenda_shift_signups_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_shift_signups" add constraint "agenda_shift_signups_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_shift_signups" add constraint "agenda_shift_signups_recorded_by_id_foreign" foreign key ("recorded_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "agenda_rsvps" add constraint "agenda_rsvps_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_rsvps" add constraint "agenda_rsvps_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_rsvps" add constraint "agenda_rsvps_recorded_by_id_foreign" foreign key ("recorded_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_rsvps" add constraint "agenda_rsvps_status_check" check ("status" in ('going', 'maybe', 'declined', 'waitlisted'));`);

    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_shift_id_foreign" foreign key ("shift_id") references "agenda_shifts" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_recorded_by_id_foreign" foreign key ("recorded_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_check_ins" add constraint "agenda_check_ins_method_check" check ("method" in ('scan', 'mark', 'walk_in'));`);

    this.addSql(`alter table "agenda_allocations" add constraint "agenda_allocations_resource_id_foreign" foreign key ("resource_id") references "agenda_resources" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_allocations" add constraint "agenda_allocations_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "agenda_allocations" add constraint "agenda_allocations_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "agenda_allocations" add constraint "agenda_allocations_quantity_check" check (quantity > 0);`);
    this.addSql(`alter table "agenda_allocations" add constraint "agenda_allocations_span_check" check (ends_at > starts_at);`);
  
    // Reminders use the template staff choose here; until then only email reminders go out.
    this.addSql(`insert into "agenda_settings" ("id", "reminder_template", "cancellation_template", "template_language", "reminders_enabled", "updated_at") values (1, null, null, 'es', true, now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "agenda_allocations";`);
    this.addSql(`drop table if exists "agenda_check_ins";`);
    this.addSql(`drop table if exists "agenda_rsvps";`);
    this.addSql(`drop table if exists "agenda_shift_signups";`);
    this.addSql(`drop table if exists "agenda_shifts";`);
    this.addSql(`drop table if exists "agenda_tasks";`);
    this.addSql(`drop table if exists "agenda_feed_tokens";`);
    this.addSql(`drop table if exists "agenda_user_contacts";`);
    this.addSql(`drop table if exists "agenda_settings";`);
    this.addSql(`drop table if exists "agenda_resources";`);
    this.addSql(`drop table if exists "agenda_events";`);
  }

}
