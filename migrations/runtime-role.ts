import type { QueryRunner } from 'typeorm';
import { SERVICES, type ServiceName } from '@mm/contracts';

/** TypeORM's bookkeeping table in each schema (`tools/db.ts` names it): migrations only, never the app. */
export const MIGRATIONS_TABLE = 'migrations';

/** What a runtime role may do to the ordinary tables of its schema: rows only, never the table itself. */
const ROW_PRIVILEGES = 'SELECT, INSERT, UPDATE, DELETE';

/** Tables whose rows the runtime role may not change as freely as the others. */
export interface RuntimeRestrictions {
  /** journals: the role reads and appends, it neither updates nor deletes (their triggers refuse it anyway) */
  appendOnly?: readonly string[];
  /** rows that are updated but never deleted */
  neverDeleted?: readonly string[];
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Gives every object of the schema owned by `from` to `to`. Indexes and the sequences behind
 * serial or identity columns follow their table; triggers have no owner of their own.
 */
async function reassignObjects(q: QueryRunner, schema: string, from: string, to: string): Promise<void> {
  const objects: { kind: string; name: string }[] = await q.query(
    `SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                           WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END AS kind,
            format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relowner = $2::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'c')
        AND NOT (c.relkind = 'S' AND EXISTS (
              SELECT 1 FROM pg_depend d
               WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
     UNION ALL
     SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
            format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND p.proowner = $2::regrole
     UNION ALL
     SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, format('%I.%I', n.nspname, t.typname)
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = $1 AND t.typowner = $2::regrole AND t.typtype IN ('e', 'd', 'r')`,
    [schema, from],
  );
  for (const { kind, name } of objects) await q.query(`ALTER ${kind} ${name} OWNER TO ${ident(to)}`);
}

async function currentRole(q: QueryRunner): Promise<string> {
  const [row]: { role: string }[] = await q.query(`SELECT current_user AS role`);
  return row.role;
}

/**
 * The runtime role of a service stops owning its schema
 * (docs/architecture.md "Storage: one database, one schema and one role per service"). An owner can
 * ALTER, DROP or TRUNCATE its tables and switch their triggers off, so the role an app connects as
 * could undo every guard the migrations install. Everything here now belongs to the migration role
 * (the current role: `tools/db.ts` runs migrations as it), and the runtime role keeps only row
 * privileges: DML on the tables (less on the restricted ones), USAGE on the sequences of serial
 * columns, EXECUTE on the functions. Default privileges give the same to whatever later migrations
 * create; a later table that must be restricted revokes what it does not need.
 *
 * On a database migrated before this change the service role owns the objects: they are handed
 * over here (the migration role is a member of the service role, so it may).
 */
export async function restrictRuntimeRole(q: QueryRunner, service: ServiceName, restrictions: RuntimeRestrictions = {}): Promise<void> {
  const { schema, role } = SERVICES[service];
  const s = ident(schema);
  const r = ident(role);
  await reassignObjects(q, schema, role, await currentRole(q));

  await q.query(`GRANT ${ROW_PRIVILEGES} ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
  await q.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`);
  await q.query(`GRANT EXECUTE ON ALL ROUTINES IN SCHEMA ${s} TO ${r}`);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT ${ROW_PRIVILEGES} ON TABLES TO ${r}`);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE ON SEQUENCES TO ${r}`);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT EXECUTE ON ROUTINES TO ${r}`);

  // The migrations journal is the migration role's alone.
  const migrations = `${s}.${ident(MIGRATIONS_TABLE)}`;
  await q.query(`REVOKE ALL ON TABLE ${migrations} FROM ${r}`);
  const [{ seq }]: { seq: string | null }[] = await q.query(`SELECT pg_get_serial_sequence($1, 'id') AS seq`, [
    `${schema}.${MIGRATIONS_TABLE}`,
  ]);
  if (seq) await q.query(`REVOKE ALL ON SEQUENCE ${seq} FROM ${r}`);

  for (const table of restrictions.appendOnly ?? []) await q.query(`REVOKE UPDATE, DELETE ON ${s}.${ident(table)} FROM ${r}`);
  for (const table of restrictions.neverDeleted ?? []) await q.query(`REVOKE DELETE ON ${s}.${ident(table)} FROM ${r}`);
}

/** The way back: the service role owns its objects again and may create in its schema, as before. */
export async function restoreRuntimeOwnership(q: QueryRunner, service: ServiceName): Promise<void> {
  const { schema, role } = SERVICES[service];
  const s = ident(schema);
  const r = ident(role);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} REVOKE ${ROW_PRIVILEGES} ON TABLES FROM ${r}`);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} REVOKE USAGE ON SEQUENCES FROM ${r}`);
  await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} REVOKE EXECUTE ON ROUTINES FROM ${r}`);
  await q.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${r}`);
  await q.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${s} FROM ${r}`);
  await q.query(`REVOKE ALL ON ALL ROUTINES IN SCHEMA ${s} FROM ${r}`);
  // A new owner needs CREATE on the schema, and the service role migrated as itself before.
  await q.query(`GRANT CREATE ON SCHEMA ${s} TO ${r}`);
  await reassignObjects(q, schema, await currentRole(q), role);
}
