import { Migration } from '@mikro-orm/migrations';

export class Migration20261122025204_QrCampaignsAndAudience extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "consent_texts" ("id" uuid not null, "sha256" varchar(64) not null, "text" text not null, "privacy_policy_url" varchar(500) null, "created_at" timestamptz not null, constraint "consent_texts_pkey" primary key ("id"));`);
    this.addSql(`alter table "consent_texts" add constraint "consent_texts_sha256_unique" unique ("sha256");`);

    this.addSql(`create table "qr_campaigns" ("id" uuid not null, "name" varchar(160) not null, "description" text null, "status" text check ("status" in ('draft', 'active', 'paused', 'ended')) not null default 'draft', "starts_at" timestamptz null, "ends_at" timestamptz null, "territory_id" uuid null, "landing" jsonb not null, "consent_text_id" uuid not null, "spam_blocked" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "qr_campaigns_pkey" primary key ("id"));`);

    this.addSql(`create table "qr_codes" ("id" uuid not null, "campaign_id" uuid not null, "code" varchar(16) not null, "label" varchar(160) not null, "address" varchar(300) null, "lat" double precision null, "lng" double precision null, "territory_id" uuid null, "placed_at" timestamptz null, "authorised_site" boolean not null default false, "removal_deadline" timestamptz null, "removed_at" timestamptz null, "created_at" timestamptz not null, constraint "qr_codes_pkey" primary key ("id"));`);
    this.addSql(`alter table "qr_codes" add constraint "qr_codes_code_unique" unique ("code");`);
    this.addSql(`create index "qr_codes_campaign_id_created_at_index" on "qr_codes" ("campaign_id", "created_at");`);

    this.addSql(`create table "qr_scans" ("id" uuid not null, "campaign_id" uuid not null, "code_id" uuid not null, "scanned_at" timestamptz not null, "is_bot" boolean not null, "ip_hash" varchar(64) null, "referrer" varchar(300) null, constraint "qr_scans_pkey" primary key ("id"));`);
    this.addSql(`create index "qr_scans_campaign_id_scanned_at_index" on "qr_scans" ("campaign_id", "scanned_at");`);
    this.addSql(`create index "qr_scans_code_id_scanned_at_index" on "qr_scans" ("code_id", "scanned_at");`);

    this.addSql(`create table "contacts" ("id" uuid not null, "identity_key" varchar(270) not null, "name" varchar(160) not null, "phone" varchar(20) null, "email" varchar(254) null, "document_id" varchar(20) null, "territory_id" uuid null, "neighbourhood" varchar(120) null, "interests" text[] not null default '{}', "whatsapp_opt_in" boolean not null default false, "whatsapp_opted_out_at" timestamptz null, "email_opt_in" boolean not null default false, "email_opted_out_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "contacts_pkey" primary key ("id"));`);
    this.addSql(`alter table "contacts" add constraint "contacts_identity_key_unique" unique ("identity_key");`);
    this.addSql(`create index "contacts_phone_index" on "contacts" ("phone");`);
    this.addSql(`create index "contacts_email_index" on "contacts" ("email");`);
    this.addSql(`create index "contacts_created_at_index" on "contacts" ("created_at");`);
    this.addSql(`create index "contacts_interests_gin" on "contacts" using gin ("interests");`);

    this.addSql(`create table "qr_leads" ("id" uuid not null, "campaign_id" uuid not null, "code_id" uuid not null, "contact_id" uuid not null, "territory_id" uuid null, "neighbourhood" varchar(120) null, "interests" text[] not null default '{}', "whatsapp_opt_in" boolean not null, "email_opt_in" boolean not null, "submissions" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "qr_leads_pkey" primary key ("id"));`);
    this.addSql(`create index "qr_leads_campaign_id_created_at_index" on "qr_leads" ("campaign_id", "created_at");`);
    this.addSql(`create index "qr_leads_code_id_created_at_index" on "qr_leads" ("code_id", "created_at");`);
    this.addSql(`create index "qr_leads_interests_gin" on "qr_leads" using gin ("interests");`);
    this.addSql(`alter table "qr_leads" add constraint "qr_leads_campaign_contact_unique" unique ("campaign_id", "contact_id");`);

    this.addSql(`create table "contact_origins" ("contact_id" uuid not null, "kind" varchar(40) not null, "ref_id" uuid not null, "first_seen_at" timestamptz not null, constraint "contact_origins_pkey" primary key ("contact_id", "kind", "ref_id"));`);
    this.addSql(`create index "contact_origins_kind_ref_id_index" on "contact_origins" ("kind", "ref_id");`);

    this.addSql(`create table "consents" ("id" uuid not null, "contact_id" uuid not null, "text_id" uuid not null, "source" varchar(40) not null, "source_ref" uuid null, "whatsapp_opt_in" boolean not null, "email_opt_in" boolean not null, "ip_hash" varchar(64) null, "user_agent" varchar(300) null, "given_at" timestamptz not null, constraint "consents_pkey" primary key ("id"));`);
    this.addSql(`create index "consents_contact_id_given_at_index" on "consents" ("contact_id", "given_at");`);

    this.addSql(`alter table "qr_campaigns" add constraint "qr_campaigns_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "qr_codes" add constraint "qr_codes_campaign_id_foreign" foreign key ("campaign_id") references "qr_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "qr_codes" add constraint "qr_codes_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "qr_scans" add constraint "qr_scans_campaign_id_foreign" foreign key ("campaign_id") references "qr_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "qr_scans" add constraint "qr_scans_code_id_foreign" foreign key ("code_id") references "qr_codes" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "contacts" add constraint "contacts_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "qr_leads" add constraint "qr_leads_campaign_id_foreign" foreign key ("campaign_id") references "qr_campaigns" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "qr_leads" add constraint "qr_leads_code_id_foreign" foreign key ("code_id") references "qr_codes" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "qr_leads" add constraint "qr_leads_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "qr_leads" add constraint "qr_leads_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "contact_origins" add constraint "contact_origins_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "consents" add constraint "consents_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "consents" add constraint "consents_text_id_foreign" foreign key ("text_id") references "consent_texts" ("id") on update cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "consents" drop constraint "consents_text_id_foreign";`);

    this.addSql(`alter table "qr_codes" drop constraint "qr_codes_campaign_id_foreign";`);

    this.addSql(`alter table "qr_scans" drop constraint "qr_scans_campaign_id_foreign";`);

    this.addSql(`alter table "qr_leads" drop constraint "qr_leads_campaign_id_foreign";`);

    this.addSql(`alter table "qr_scans" drop constraint "qr_scans_code_id_foreign";`);

    this.addSql(`alter table "qr_leads" drop constraint "qr_leads_code_id_foreign";`);

    this.addSql(`alter table "qr_leads" drop constraint "qr_leads_contact_id_foreign";`);

    this.addSql(`alter table "contact_origins" drop constraint "contact_origins_contact_id_foreign";`);

    this.addSql(`alter table "consents" drop constraint "consents_contact_id_foreign";`);

    this.addSql(`drop table if exists "consent_texts" cascade;`);

    this.addSql(`drop table if exists "qr_campaigns" cascade;`);

    this.addSql(`drop table if exists "qr_codes" cascade;`);

    this.addSql(`drop table if exists "qr_scans" cascade;`);

    this.addSql(`drop table if exists "contacts" cascade;`);

    this.addSql(`drop table if exists "qr_leads" cascade;`);

    this.addSql(`drop table if exists "contact_origins" cascade;`);

    this.addSql(`drop table if exists "consents" cascade;`);
  }

}
