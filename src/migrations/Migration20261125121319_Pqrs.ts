import { Migration } from '@mikro-orm/migrations';

export class Migration20261125121319_Pqrs extends Migration {

  override name = 'Migration20261125121319_Pqrs';

  override up(): void | Promise<void> {
    this.addSql(`create table "pqrs_counters" ("year" smallint not null, "last" int not null, primary key ("year"));`);

    this.addSql(`create table "pqrs_settings" ("id" smallint not null, "consent_text" text not null, "privacy_policy_url" varchar(500) null, "received_template" varchar(100) null, "answered_template" varchar(100) null, "extended_template" varchar(100) null, "template_language" varchar(10) not null, "due_soon_run_on" varchar(10) null, "updated_by_id" uuid null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "pqrs_requests" ("id" uuid not null, "number" varchar(20) not null, "year" smallint not null, "sequence" int not null, "type" text not null, "subject" varchar(200) not null, "description" text not null, "channel" text not null, "contact_id" uuid null, "anonymous" boolean not null default false, "territory_id" uuid null, "assignee_id" uuid null, "priority" text not null default 'normal', "status" text not null default 'received', "received_at" timestamptz not null, "term_days" smallint not null, "original_due_date" varchar(10) not null, "due_date" varchar(10) not null, "due_at" timestamptz not null, "extended_at" timestamptz null, "extension_reason" varchar(1000) null, "extended_by_id" uuid null, "due_soon_at" timestamptz null, "answer" text null, "answered_at" timestamptz null, "answered_by_id" uuid null, "closed_at" timestamptz null, "conversation_id" uuid null, "received_notice" jsonb null, "answer_notice" jsonb null, "extension_notice" jsonb null, "upload_token_hash" varchar(64) null, "upload_token_expires_at" timestamptz null, "citizen_erased_at" timestamptz null, "created_by_id" uuid null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_number_unique" unique ("number");`);
    this.addSql(`create index "pqrs_requests_received_at_id_index" on "pqrs_requests" ("received_at", "id");`);
    this.addSql(`create index "pqrs_requests_status_due_at_index" on "pqrs_requests" ("status", "due_at");`);
    this.addSql(`create index "pqrs_requests_assignee_id_status_index" on "pqrs_requests" ("assignee_id", "status");`);
    this.addSql(`create index "pqrs_requests_contact_id_index" on "pqrs_requests" ("contact_id");`);
    this.addSql(`create index "pqrs_requests_territory_id_index" on "pqrs_requests" ("territory_id");`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_year_sequence_unique" unique ("year", "sequence");`);

    this.addSql(`create table "pqrs_history" ("id" uuid not null, "request_id" uuid not null, "at" timestamptz not null, "actor_id" uuid null, "action" text not null, "changes" jsonb not null, "note" varchar(1000) null, primary key ("id"));`);
    this.addSql(`create index "pqrs_history_request_id_at_index" on "pqrs_history" ("request_id", "at");`);

    this.addSql(`create table "pqrs_attachments" ("id" uuid not null, "request_id" uuid not null, "file_name" varchar(200) not null, "type" varchar(100) not null, "size" int not null, "sha256" varchar(64) not null, "uploaded_at" timestamptz not null, "uploaded_by_id" uuid null, primary key ("id"));`);
    this.addSql(`create index "pqrs_attachments_request_id_uploaded_at_index" on "pqrs_attachments" ("request_id", "uploaded_at");`);

    this.addSql(`alter table "pqrs_settings" add constraint "pqrs_settings_updated_by_id_foreign" foreign key ("updated_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_settings" add constraint "pqrs_settings_singleton_check" check (id = 1);`);

    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_assignee_id_foreign" foreign key ("assignee_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_extended_by_id_foreign" foreign key ("extended_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_answered_by_id_foreign" foreign key ("answered_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_anonymous_check" check (not anonymous or (type = 'denuncia' and contact_id is null));`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_term_check" check (term_days > 0 and term_days <= 60);`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_type_check" check ("type" in ('peticion', 'queja', 'reclamo', 'sugerencia', 'denuncia', 'consulta', 'informacion'));`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_channel_check" check ("channel" in ('web', 'whatsapp', 'email', 'presencial', 'telefono'));`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_priority_check" check ("priority" in ('low', 'normal', 'high', 'urgent'));`);
    this.addSql(`alter table "pqrs_requests" add constraint "pqrs_requests_status_check" check ("status" in ('received', 'in_progress', 'waiting_citizen', 'answered', 'closed'));`);

    this.addSql(`alter table "pqrs_history" add constraint "pqrs_history_request_id_foreign" foreign key ("request_id") references "pqrs_requests" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "pqrs_history" add constraint "pqrs_history_actor_id_foreign" foreign key ("actor_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "pqrs_history" add constraint "pqrs_history_action_check" check ("action" in ('filed', 'update', 'extend', 'answer', 'attachment', 'due_soon', 'notice', 'erase'));`);

    this.addSql(`alter table "pqrs_attachments" add constraint "pqrs_attachments_request_id_foreign" foreign key ("request_id") references "pqrs_requests" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "pqrs_attachments" add constraint "pqrs_attachments_uploaded_by_id_foreign" foreign key ("uploaded_by_id") references "users" ("id") on update cascade on delete set null;`);

    // The one settings row, with the consent text citizens accept on the public form.
    this.addSql(`insert into "pqrs_settings" ("id", "consent_text", "received_template", "answered_template", "extended_template", "template_language", "updated_at") values (1, 'Autorizo el tratamiento de mis datos personales para radicar, tramitar y responder esta solicitud, conforme a la Ley 1581 de 2012.', 'pqrs_recibida', 'pqrs_respuesta', 'pqrs_prorroga', 'es', now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "pqrs_attachments" cascade;`);
    this.addSql(`drop table if exists "pqrs_history" cascade;`);
    this.addSql(`drop table if exists "pqrs_requests" cascade;`);
    this.addSql(`drop table if exists "pqrs_settings" cascade;`);
    this.addSql(`drop table if exists "pqrs_counters" cascade;`);
  }
}
