import { Migration } from '@mikro-orm/migrations';

export class Migration20261122052516_EmailMarketing extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "email_campaigns" ("id" uuid not null, "name" varchar(160) not null, "from_name" varchar(120) not null, "from_email" varchar(254) not null, "reply_to" varchar(254) null, "segment" jsonb not null, "status" text check ("status" in ('draft', 'scheduled', 'sending', 'sent')) not null default 'draft', "audience_size" int not null, "ab_test" jsonb null, "ab_phase" text check ("ab_phase" in ('none', 'testing', 'waiting', 'winner_sent')) not null default 'none', "ab_decide_at" timestamptz null, "winner_variant_id" uuid null, "decided_at" timestamptz null, "decision" jsonb null, "scheduled_at" timestamptz null, "started_at" timestamptz null, "finished_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "email_campaigns_pkey" primary key ("id"));`);
    this.addSql(`create index "email_campaigns_created_at_index" on "email_campaigns" ("created_at");`);

    this.addSql(`create table "email_suppressions" ("email" varchar(254) not null, "reason" varchar(20) not null, "campaign_id" uuid null, "detail" varchar(200) null, "created_at" timestamptz not null, constraint "email_suppressions_pkey" primary key ("email"));`);
    this.addSql(`create index "email_suppressions_created_at_index" on "email_suppressions" ("created_at");`);

    this.addSql(`create table "email_templates" ("id" uuid not null, "name" varchar(160) not null, "subject" varchar(300) not null, "source_kind" text check ("source_kind" in ('mjml', 'html')) not null, "source" text not null, "html" text not null, "text" text not null, "send_html" text not null, "send_text" text not null, "variables" text[] not null default '{}', "links" jsonb not null, "created_at" timestamptz not null, constraint "email_templates_pkey" primary key ("id"));`);
    this.addSql(`create index "email_templates_created_at_index" on "email_templates" ("created_at");`);

    this.addSql(`create table "email_variants" ("id" uuid not null, "campaign_id" uuid not null, "position" smallint not null, "name" varchar(40) not null, "subject" varchar(300) not null, "template_id" uuid not null, constraint "email_variants_pkey" primary key ("id"));`);
    this.addSql(`alter table "email_variants" add constraint "email_variants_campaign_id_position_unique" unique ("campaign_id", "position");`);

    this.addSql(`create table "email_recipients" ("id" bigserial primary key, "campaign_id" uuid not null, "contact_id" uuid not null, "email" varchar(254) not null, "variant_id" uuid null, "phase" text check ("phase" in ('main', 'test', 'rest')) not null, "status" text check ("status" in ('held', 'queued', 'sending', 'sent', 'bounced', 'failed', 'unknown', 'skipped')) not null, "attempts" smallint not null default 0, "next_attempt_at" timestamptz null, "claimed_at" timestamptz null, "sent_at" timestamptz null, "message_id" varchar(200) null, "last_error" varchar(200) null);`);
    this.addSql(`create index "email_recipients_campaign_id_status_next_attempt_at_index" on "email_recipients" ("campaign_id", "status", "next_attempt_at");`);
    this.addSql(`create index "email_recipients_contact_id_index" on "email_recipients" ("contact_id");`);
    this.addSql(`alter table "email_recipients" add constraint "email_recipients_campaign_email_unique" unique ("campaign_id", "email");`);

    this.addSql(`create table "email_events" ("id" bigserial primary key, "campaign_id" uuid not null, "variant_id" uuid null, "recipient_id" bigint not null, "kind" text check ("kind" in ('open', 'click', 'unsubscribe')) not null, "link_index" smallint null, "machine" boolean not null default false, "at" timestamptz not null);`);
    this.addSql(`create index "email_events_campaign_id_kind_at_index" on "email_events" ("campaign_id", "kind", "at");`);
    this.addSql(`create index "email_events_recipient_id_kind_index" on "email_events" ("recipient_id", "kind");`);
    this.addSql(`create index "email_events_at_index" on "email_events" ("at");`);

    this.addSql(`alter table "email_variants" add constraint "email_variants_campaign_id_foreign" foreign key ("campaign_id") references "email_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "email_variants" add constraint "email_variants_template_id_foreign" foreign key ("template_id") references "email_templates" ("id") on update cascade;`);

    this.addSql(`alter table "email_recipients" add constraint "email_recipients_campaign_id_foreign" foreign key ("campaign_id") references "email_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "email_recipients" add constraint "email_recipients_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "email_recipients" add constraint "email_recipients_variant_id_foreign" foreign key ("variant_id") references "email_variants" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "email_variants" drop constraint "email_variants_campaign_id_foreign";`);

    this.addSql(`alter table "email_recipients" drop constraint "email_recipients_campaign_id_foreign";`);

    this.addSql(`alter table "email_variants" drop constraint "email_variants_template_id_foreign";`);

    this.addSql(`alter table "email_recipients" drop constraint "email_recipients_variant_id_foreign";`);

    this.addSql(`drop table if exists "email_campaigns" cascade;`);

    this.addSql(`drop table if exists "email_suppressions" cascade;`);

    this.addSql(`drop table if exists "email_templates" cascade;`);

    this.addSql(`drop table if exists "email_variants" cascade;`);

    this.addSql(`drop table if exists "email_recipients" cascade;`);

    this.addSql(`drop table if exists "email_events" cascade;`);
  }

}
