import { Migration } from '@mikro-orm/migrations';

export class Migration20261124060847_Finance extends Migration {

  override name = 'Migration20261124060847_Finance';

  override up(): void | Promise<void> {
    this.addSql(`create table "finance_codes" ("code" varchar(10) not null, "kind" text not null, "name" varchar(160) not null, "description" varchar(500) null, "donation" boolean not null default false, "active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("code"));`);

    this.addSql(`create table "finance_settings" ("id" smallint not null, "spending_cap" bigint null, "election_date" varchar(10) null, "donor_limit_share" double precision not null, "closed_through" varchar(10) null, "updated_by_id" uuid null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "finance_entries" ("id" uuid not null, "kind" text not null, "date" varchar(10) not null, "amount" bigint not null, "code" varchar(10) not null, "counterparty_name" varchar(200) not null, "counterparty_id_number" varchar(20) null, "description" varchar(500) null, "notes" text null, "donor_type" text null, "reverses_id" uuid null, "override" jsonb null, "receipt_sha256" varchar(64) null, "receipt_type" varchar(40) null, "receipt_size" int null, "receipt_uploaded_at" timestamptz null, "recorded_by_id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_reverses_id_unique" unique ("reverses_id");`);
    this.addSql(`create index "finance_entries_date_id_index" on "finance_entries" ("date", "id");`);
    this.addSql(`create index "finance_entries_code_date_index" on "finance_entries" ("code", "date");`);
    this.addSql(`create index "finance_entries_counterparty_id_number_index" on "finance_entries" ("counterparty_id_number");`);

    this.addSql(`create table "finance_audit" ("id" uuid not null, "entry_id" uuid null, "action" text not null, "actor_id" uuid not null, "at" timestamptz not null, "changes" jsonb not null, "reason" varchar(500) null, primary key ("id"));`);
    this.addSql(`create index "finance_audit_entry_id_at_index" on "finance_audit" ("entry_id", "at");`);
    this.addSql(`create index "finance_audit_at_index" on "finance_audit" ("at");`);

    this.addSql(`alter table "users" drop constraint "users_role_check";`);
    this.addSql(`alter table "users" add constraint "users_role_check" check ("role" in ('admin', 'manager', 'treasurer', 'brigade', 'volunteer', 'viewer'));`);

    this.addSql(`alter table "finance_codes" add constraint "finance_codes_code_check" check ((kind = 'income' and code ~ '^I-[0-9]{3}(\\.[0-9]{1,2})?$') or (kind = 'expense' and code ~ '^G-[0-9]{3}(\\.[0-9]{1,2})?$'));`);
    this.addSql(`alter table "finance_codes" add constraint "finance_codes_kind_check" check ("kind" in ('income', 'expense'));`);

    this.addSql(`alter table "finance_settings" add constraint "finance_settings_updated_by_id_foreign" foreign key ("updated_by_id") references "users" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_settings" add constraint "finance_settings_singleton_check" check (id = 1);`);
    this.addSql(`alter table "finance_settings" add constraint "finance_settings_cap_check" check (spending_cap is null or spending_cap > 0);`);

    this.addSql(`alter table "finance_entries" add constraint "finance_entries_code_foreign" foreign key ("code") references "finance_codes" ("code") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_reverses_id_foreign" foreign key ("reverses_id") references "finance_entries" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_recorded_by_id_foreign" foreign key ("recorded_by_id") references "users" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_amount_check" check ((reverses_id is null and amount > 0 and amount <= 10000000000000) or (reverses_id is not null and amount < 0 and amount >= -10000000000000));`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_kind_check" check ("kind" in ('income', 'expense'));`);
    this.addSql(`alter table "finance_entries" add constraint "finance_entries_donor_type_check" check ("donor_type" in ('person', 'company', 'party', 'own'));`);

    this.addSql(`alter table "finance_audit" add constraint "finance_audit_entry_id_foreign" foreign key ("entry_id") references "finance_entries" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_audit" add constraint "finance_audit_actor_id_foreign" foreign key ("actor_id") references "users" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "finance_audit" add constraint "finance_audit_action_check" check ("action" in ('create', 'update', 'reverse', 'receipt', 'settings', 'code'));`);

    // Nothing rewrites or removes the audit: it is the evidence of who changed the ledger.
    this.addSql(`create function finance_audit_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'the finance audit is append-only' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`create trigger finance_audit_append_only before update or delete on "finance_audit"
      for each row execute function finance_audit_append_only();`);

    // An entry dated on or before the closed day is never written again, whoever runs the statement;
    // attaching the first receipt is the one change allowed, since it leaves the figures as they were.
    this.addSql(`create function finance_entries_closed_period() returns trigger language plpgsql as $$
      declare
        closed varchar(10);
        receipt_columns text[] := array['receipt_sha256', 'receipt_type', 'receipt_size', 'receipt_uploaded_at', 'updated_at'];
      begin
        select closed_through into closed from finance_settings where id = 1;
        if closed is null then
          return coalesce(new, old);
        end if;
        if tg_op = 'DELETE' then
          if old.date <= closed then
            raise exception 'finance entries dated on or before % are closed', closed using errcode = 'restrict_violation';
          end if;
          return old;
        end if;
        if tg_op = 'INSERT' then
          if new.date <= closed then
            raise exception 'finance entries dated on or before % are closed', closed using errcode = 'restrict_violation';
          end if;
          return new;
        end if;
        if (old.date <= closed or new.date <= closed)
          and not (old.receipt_sha256 is null and (to_jsonb(new) - receipt_columns) = (to_jsonb(old) - receipt_columns)) then
          raise exception 'finance entries dated on or before % are closed', closed using errcode = 'restrict_violation';
        end if;
        return new;
      end $$;`);
    this.addSql(`create trigger finance_entries_closed_period before insert or update or delete on "finance_entries"
      for each row execute function finance_entries_closed_period();`);

    // The default catalogue (docs/finance.md), after the headings of the CNE's Formulario 5B.
    this.addSql(`insert into "finance_codes" ("code", "kind", "name", "description", "donation", "created_at", "updated_at") values
      ('I-101', 'income', 'Recursos propios', 'Aportes del patrimonio del candidato, de su cónyuge o compañero permanente o de sus parientes', false, now(), now()),
      ('I-102', 'income', 'Créditos', 'Créditos obtenidos en entidades financieras legalmente autorizadas', false, now(), now()),
      ('I-103', 'income', 'Contribuciones y donaciones de particulares', 'Contribuciones, donaciones y créditos de personas naturales o jurídicas, en dinero o en especie', true, now(), now()),
      ('I-104', 'income', 'Aportes del partido o movimiento', 'Recursos propios del partido, movimiento o grupo significativo de ciudadanos que inscribió la candidatura', false, now(), now()),
      ('I-105', 'income', 'Anticipo y financiación estatal', 'Anticipos y reposición de gastos por votos con recursos del Estado', false, now(), now()),
      ('I-106', 'income', 'Otros ingresos', 'Actos públicos, publicaciones, rendimientos financieros y demás ingresos', false, now(), now()),
      ('G-201', 'expense', 'Gastos de administración', 'Personal de la campaña, honorarios, contador y gerente de campaña', false, now(), now()),
      ('G-202', 'expense', 'Gastos de oficina y adquisiciones', 'Arriendos de sedes, servicios públicos, papelería y equipos', false, now(), now()),
      ('G-203', 'expense', 'Propaganda electoral y publicidad', 'Vallas, avisos, medios de comunicación, impresos y redes sociales', false, now(), now()),
      ('G-204', 'expense', 'Actos públicos', 'Eventos, tarimas, sonido y logística de reuniones', false, now(), now()),
      ('G-205', 'expense', 'Transporte y correo', 'Transporte de personas y materiales, combustible y mensajería', false, now(), now()),
      ('G-206', 'expense', 'Capacitación e investigación política', 'Formación de equipos, encuestas y estudios', false, now(), now()),
      ('G-207', 'expense', 'Gastos financieros', 'Intereses, comisiones y gravámenes bancarios', false, now(), now()),
      ('G-208', 'expense', 'Testigos electorales', 'Capacitación, transporte y alimentación de testigos electorales', false, now(), now()),
      ('G-209', 'expense', 'Otros gastos', 'Gastos que no encajan en los demás códigos', false, now(), now());`);

    // One settings row: no cap and no election day until a manager sets them; private donors limited to 10 % of the cap (Ley 1475 de 2011, art. 23).
    this.addSql(`insert into "finance_settings" ("id", "spending_cap", "election_date", "donor_limit_share", "closed_through", "updated_at") values (1, null, null, 0.1, null, now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists finance_entries_closed_period on "finance_entries";`);
    this.addSql(`drop function if exists finance_entries_closed_period();`);
    this.addSql(`drop trigger if exists finance_audit_append_only on "finance_audit";`);
    this.addSql(`drop function if exists finance_audit_append_only();`);
    for (const table of ['finance_audit', 'finance_entries', 'finance_settings', 'finance_codes']) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
    this.addSql(`alter table "users" drop constraint "users_role_check";`);
    this.addSql(`alter table "users" add constraint "users_role_check" check ("role" in ('admin', 'manager', 'brigade', 'volunteer', 'viewer'));`);
  }
}
