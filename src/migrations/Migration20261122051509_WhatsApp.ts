import { Migration } from '@mikro-orm/migrations';

export class Migration20261122051509_WhatsApp extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "wa_conversations" ("id" uuid not null, "contact_id" uuid not null, "status" text check ("status" in ('open', 'closed')) not null default 'open', "assigned_to_id" uuid null, "unread_count" int not null default 0, "last_inbound_at" timestamptz null, "last_message_at" timestamptz not null, "last_message_id" uuid null, "created_at" timestamptz not null, constraint "wa_conversations_pkey" primary key ("id"));`);
    this.addSql(`alter table "wa_conversations" add constraint "wa_conversations_contact_id_unique" unique ("contact_id");`);
    this.addSql(`create index "wa_conversations_last_message_at_id_index" on "wa_conversations" ("last_message_at", "id");`);

    this.addSql(`create table "wa_templates" ("id" uuid not null, "name" varchar(512) not null, "language" varchar(15) not null, "category" text check ("category" in ('MARKETING', 'UTILITY')) not null, "body" text not null, "header" varchar(60) null, "footer" varchar(60) null, "buttons" jsonb not null default '[]', "examples" jsonb not null default '[]', "placeholders" int not null, "status" text check ("status" in ('PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED')) not null default 'PENDING', "provider_template_id" varchar(64) null, "rejection_reason" varchar(200) null, "created_by_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "wa_templates_pkey" primary key ("id"));`);
    this.addSql(`alter table "wa_templates" add constraint "wa_templates_provider_template_id_unique" unique ("provider_template_id");`);
    this.addSql(`alter table "wa_templates" add constraint "wa_templates_name_language_unique" unique ("name", "language");`);

    this.addSql(`create table "wa_campaigns" ("id" uuid not null, "name" varchar(160) not null, "template_id" uuid not null, "variables" jsonb not null, "segment" jsonb not null, "status" text check ("status" in ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled')) not null default 'draft', "scheduled_at" timestamptz null, "audience_size" int not null, "queued_count" int not null default 0, "notice" varchar(300) null, "created_by_id" uuid null, "created_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, constraint "wa_campaigns_pkey" primary key ("id"));`);
    this.addSql(`create index "wa_campaigns_status_scheduled_at_index" on "wa_campaigns" ("status", "scheduled_at");`);

    this.addSql(`create table "wa_messages" ("id" uuid not null, "campaign_id" uuid null, "conversation_id" uuid null, "contact_id" uuid not null, "phone" varchar(20) not null, "direction" text check ("direction" in ('in', 'out')) not null, "kind" text check ("kind" in ('template', 'text', 'button', 'interactive', 'media', 'other')) not null, "body" text null, "template_id" uuid null, "params" jsonb null, "status" varchar(12) not null, "status_rank" smallint not null, "priority" smallint not null default 1, "wamid" varchar(128) null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "claimed_at" timestamptz null, "accepted_at" timestamptz null, "sent_at" timestamptz null, "delivered_at" timestamptz null, "read_at" timestamptz null, "failed_at" timestamptz null, "replied_at" timestamptz null, "error_code" int null, "error_title" varchar(200) null, "sent_by_id" uuid null, "created_at" timestamptz not null, constraint "wa_messages_pkey" primary key ("id"));`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_wamid_unique" unique ("wamid");`);
    this.addSql(`create index "wa_messages_queue" on "wa_messages" ("priority", "id") where "status" = 'queued';`);
    this.addSql(`create index "wa_messages_in_flight" on "wa_messages" ("claimed_at") where "status" = 'sending';`);
    this.addSql(`create index "wa_messages_campaign_id_status_index" on "wa_messages" ("campaign_id", "status");`);
    this.addSql(`create index "wa_messages_conversation_id_id_index" on "wa_messages" ("conversation_id", "id");`);
    this.addSql(`create index "wa_messages_contact_id_accepted_at_index" on "wa_messages" ("contact_id", "accepted_at");`);
    this.addSql(`create index "wa_messages_accepted_at_index" on "wa_messages" ("accepted_at");`);
    this.addSql(`create index "wa_messages_created_at_index" on "wa_messages" ("created_at");`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_campaign_contact_unique" unique ("campaign_id", "contact_id");`);

    this.addSql(`alter table "wa_conversations" add constraint "wa_conversations_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "wa_conversations" add constraint "wa_conversations_assigned_to_id_foreign" foreign key ("assigned_to_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "wa_templates" add constraint "wa_templates_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "wa_campaigns" add constraint "wa_campaigns_template_id_foreign" foreign key ("template_id") references "wa_templates" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "wa_campaigns" add constraint "wa_campaigns_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "wa_messages" add constraint "wa_messages_campaign_id_foreign" foreign key ("campaign_id") references "wa_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_conversation_id_foreign" foreign key ("conversation_id") references "wa_conversations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_template_id_foreign" foreign key ("template_id") references "wa_templates" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "wa_messages" add constraint "wa_messages_sent_by_id_foreign" foreign key ("sent_by_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "wa_messages" drop constraint "wa_messages_conversation_id_foreign";`);

    this.addSql(`alter table "wa_campaigns" drop constraint "wa_campaigns_template_id_foreign";`);

    this.addSql(`alter table "wa_messages" drop constraint "wa_messages_template_id_foreign";`);

    this.addSql(`alter table "wa_messages" drop constraint "wa_messages_campaign_id_foreign";`);

    this.addSql(`drop table if exists "wa_conversations" cascade;`);

    this.addSql(`drop table if exists "wa_templates" cascade;`);

    this.addSql(`drop table if exists "wa_campaigns" cascade;`);

    this.addSql(`drop table if exists "wa_messages" cascade;`);
  }

}
