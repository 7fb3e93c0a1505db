import { Migration } from '@mikro-orm/migrations';

export class Migration20261125121734_Volunteers extends Migration {

  override name = 'Migration20261125121734_Volunteers';

  override up(): void | Promise<void> {
    this.addSql(`create table "volunteers" ("id" uuid not null, "contact_id" uuid not null, "user_id" uuid null, "territory_id" uuid null, "skills" text[] not null default '{}', "availability" text[] not null default '{}', "status" text not null default 'prospect', "leader_id" uuid null, "goal_promised_votes" int not null default 0, "goal_leads" int not null default 0, "goal_posters" int not null default 0, "joined_on" varchar(10) not null, "source" varchar(20) not null, "source_ref" uuid null, "location_consent_at" timestamptz null, "location_consent_text_id" uuid null, "location_consent_by" uuid null, "erased_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_contact_id_unique" unique ("contact_id");`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_user_id_unique" unique ("user_id");`);
    this.addSql(`create index "volunteers_status_index" on "volunteers" ("status");`);
    this.addSql(`create index "volunteers_territory_id_index" on "volunteers" ("territory_id");`);
    this.addSql(`create index "volunteers_leader_id_index" on "volunteers" ("leader_id");`);

    this.addSql(`create table "volunteer_activities" ("id" uuid not null, "client_id" uuid null, "source" text not null default 'manual', "source_id" uuid null, "volunteer_id" uuid not null, "type" text not null, "occurred_at" timestamptz not null, "duration_minutes" int null, "quantity" int null, "unit" text null, "territory_id" uuid null, "notes" varchar(1000) null, "lat" double precision null, "lng" double precision null, "event_id" uuid null, "poster_code" varchar(40) null, "recorded_by_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_client_id_unique" unique ("client_id");`);
    this.addSql(`create index "volunteer_activities_volunteer_id_occurred_at_index" on "volunteer_activities" ("volunteer_id", "occurred_at");`);
    this.addSql(`create index "volunteer_activities_occurred_at_index" on "volunteer_activities" ("occurred_at");`);
    this.addSql(`create index "volunteer_activities_type_occurred_at_index" on "volunteer_activities" ("type", "occurred_at");`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_source_source_id_unique" unique ("source", "source_id");`);

    this.addSql(`create table "volunteer_sync" ("source" varchar(40) not null, "watermark" timestamptz not null, "updated_at" timestamptz not null, primary key ("source"));`);

    this.addSql(`create table "volunteer_voters" ("voter_id" uuid not null, "volunteer_id" uuid not null, "linked_at" timestamptz not null, primary key ("voter_id"));`);
    this.addSql(`create index "volunteer_voters_volunteer_id_index" on "volunteer_voters" ("volunteer_id");`);

    this.addSql(`create index "gotv_turnout_reports_received_at_index" on "gotv_turnout_reports" ("received_at");`);

    this.addSql(`create index "gotv_voter_contacts_created_at_index" on "gotv_voter_contacts" ("created_at");`);

    this.addSql(`alter table "volunteers" add constraint "volunteers_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_leader_id_foreign" foreign key ("leader_id") references "volunteers" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_goals_check" check (goal_promised_votes >= 0 and goal_leads >= 0 and goal_posters >= 0);`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_not_own_leader_check" check (leader_id is null or leader_id <> id);`);
    this.addSql(`alter table "volunteers" add constraint "volunteers_status_check" check ("status" in ('prospect', 'active', 'inactive'));`);

    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_volunteer_id_foreign" foreign key ("volunteer_id") references "volunteers" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_recorded_by_id_foreign" foreign key ("recorded_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_quantity_check" check (quantity is null or (quantity >= 0 and quantity <= 100000));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_duration_check" check (duration_minutes is null or (duration_minutes > 0 and duration_minutes <= 1440));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_point_check" check ((lat is null) = (lng is null) and (lat is null or (lat between -90 and 90 and lng between -180 and 180)));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_source_check" check ("source" in ('manual', 'gotv_report', 'gotv_contact', 'agenda_checkin'));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_type_check" check ("type" in ('canvassing', 'phone_bank', 'event_staff', 'poster_placement', 'whatsapp_outreach', 'training', 'gotv', 'other'));`);
    this.addSql(`alter table "volunteer_activities" add constraint "volunteer_activities_unit_check" check ("unit" in ('doors', 'calls', 'posters', 'voters_registered', 'messages', 'people', 'turnout_reports', 'other'));`);

    this.addSql(`alter table "volunteer_voters" add constraint "volunteer_voters_voter_id_foreign" foreign key ("voter_id") references "gotv_voters" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "volunteer_voters" add constraint "volunteer_voters_volunteer_id_foreign" foreign key ("volunteer_id") references "volunteers" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "gotv_turnout_reports_received_at_index";`);
    this.addSql(`drop index if exists "gotv_voter_contacts_created_at_index";`);
    this.addSql(`drop table if exists "volunteer_voters" cascade;`);
    this.addSql(`drop table if exists "volunteer_activities" cascade;`);
    this.addSql(`drop table if exists "volunteer_sync" cascade;`);
    this.addSql(`drop table if exists "volunteers" cascade;`);
  }
}
