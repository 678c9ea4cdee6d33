-- pg2lite catalog objects, version 5. Installed by the source connector (idempotent); the
-- version in pg2lite.installed lets a newer connector upgrade them. Version 2 added
-- pg2lite.schema_history (ADR 0009); version 3 leaves out generated columns pgoutput does not
-- send (issue 32); version 4 no longer records schemas in Postgres: the source records them in
-- Kafka (ADR 0028); version 5 adds pg2lite.verify and pg2lite.resync (issue 29). A pg2lite.schema_history left by an older version is only read, once, for
-- offsets that name one of its rows; it may be dropped once every source has run version 4.
CREATE SCHEMA IF NOT EXISTS pg2lite;

CREATE TABLE IF NOT EXISTS pg2lite.installed (
  id      boolean PRIMARY KEY DEFAULT true CHECK (id),
  version int NOT NULL
);

-- Publications whose schema the DDL triggers report (one row per source connector's publication).
CREATE TABLE IF NOT EXISTS pg2lite.sources (
  publication text PRIMARY KEY
);

-- The published schema of one publication as JSON: tables (with columns, key and indexes),
-- restricted to the publication's column lists, without pg2lite's own tables (which a FOR ALL
-- TABLES publication includes). Tables are keyed by OID and columns by attnum,
-- so the source can tell a rename from a drop and a create.
-- A generated column is part of the schema only when pgoutput sends its values: a STORED one on
-- Postgres 18+ whose publication has publish_generated_columns = stored or names it in a column
-- list. Otherwise live rows would leave it NULL while backfilled rows hold values: a replica
-- column is never half filled. (pg_publication_tables lists generated columns on Postgres 15
-- whatever pgoutput sends; pubgencols exists from 18 on, hence the to_jsonb.)
CREATE OR REPLACE FUNCTION pg2lite.published_schema(pub text) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $fn$
  WITH pt AS (
    SELECT c.oid AS reloid, n.oid AS nspoid, n.nspname, c.relname, c.relreplident, t.attnames
    FROM pg_publication_tables t
    JOIN pg_namespace n ON n.nspname = t.schemaname
    JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
    WHERE t.pubname = pub AND t.schemaname <> 'pg2lite' -- pg2lite's own tables are never replicated
  )
  SELECT jsonb_build_object('publication', pub, 'tables', COALESCE(jsonb_agg(
    jsonb_build_object(
      'oid', pt.reloid::bigint,
      'schemaOid', pt.nspoid::bigint,
      'schema', pt.nspname,
      'name', pt.relname,
      'replicaIdentity', pt.relreplident::text,
      'columns', (
        SELECT COALESCE(jsonb_agg(jsonb_build_object(
          'name', a.attname,
          'pos', a.attnum,
          'dataType', CASE WHEN bt.typelem <> 0 AND bt.typlen = -1
                           THEN et.typname || '[]' ELSE bt.typname END,
          'typeClass', t.typtype::text,
          'elemTypeClass', et.typtype::text,
          'maxLength', CASE WHEN bt.typname IN ('varchar', 'bpchar') AND a.atttypmod > 4
                            THEN a.atttypmod - 4 END,
          'typmod', a.atttypmod,
          'notNull', a.attnotnull,
          'dflt', pg_get_expr(d.adbin, d.adrelid)
        ) ORDER BY a.attnum), '[]'::jsonb)
        FROM pg_attribute a
        JOIN pg_type t ON t.oid = a.atttypid
        JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
        LEFT JOIN pg_type et ON et.oid = bt.typelem AND bt.typlen = -1
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = pt.reloid AND a.attnum > 0 AND NOT a.attisdropped
          AND (pt.attnames IS NULL OR a.attname = ANY (pt.attnames))
          AND (a.attgenerated = ''
               OR a.attgenerated = 's' AND (
                 (SELECT to_jsonb(p) ->> 'pubgencols' FROM pg_publication p WHERE p.pubname = pub) = 's'
                 OR EXISTS (SELECT 1 FROM pg_publication p JOIN pg_publication_rel r ON r.prpubid = p.oid
                            WHERE p.pubname = pub AND r.prrelid = pt.reloid AND a.attnum = ANY (r.prattrs))))),
      'indexes', (
        SELECT COALESCE(jsonb_agg(jsonb_build_object(
          'name', ic.relname,
          'schema', pt.nspname,
          'unique', i.indisunique,
          'primary', i.indisprimary,
          'replicaIdentity', i.indisreplident,
          'immediate', i.indimmediate,
          'valid', i.indisvalid AND i.indexprs IS NULL AND i.indpred IS NULL,
          'columns', (
            SELECT COALESCE(jsonb_agg(jsonb_build_object(
              'name', a.attname,
              'desc', (i.indoption[k.ord - 1] & 1) = 1) ORDER BY k.ord), '[]'::jsonb)
            FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = pt.reloid AND a.attnum = k.attnum
            WHERE k.ord <= i.indnkeyatts)
        ) ORDER BY ic.relname), '[]'::jsonb)
        FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
        WHERE i.indrelid = pt.reloid)
    ) ORDER BY pt.nspname, pt.relname), '[]'::jsonb))
  FROM pt
$fn$;

DROP FUNCTION IF EXISTS pg2lite.record_schema(text);
DROP FUNCTION IF EXISTS pg2lite.schema_at(text, bigint);
DROP FUNCTION IF EXISTS pg2lite.prune_schema_history(text, bigint);

-- DDL detection (Postgres logical replication carries no DDL): before and after each DDL
-- command, emit every registered publication's schema as a transactional logical message, so
-- it arrives inside the DDL's transaction, in WAL order with its data changes.
CREATE OR REPLACE FUNCTION pg2lite.emit_ddl(kind text, tag text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
DECLARE
  p text;
BEGIN
  FOR p IN SELECT publication FROM pg2lite.sources ORDER BY publication LOOP
    PERFORM pg_logical_emit_message(true, 'pg2lite.ddl', jsonb_build_object(
      'type', kind, 'version', 1, 'tag', tag, 'schema', pg2lite.published_schema(p))::text);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION pg2lite.on_ddl_start() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
BEGIN
  PERFORM pg2lite.emit_ddl('ddlStart', tg_tag);
END
$fn$;

CREATE OR REPLACE FUNCTION pg2lite.on_ddl_end() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
BEGIN
  PERFORM pg2lite.emit_ddl('ddlUpdate', tg_tag);
END
$fn$;

DROP EVENT TRIGGER IF EXISTS pg2lite_ddl_start;
CREATE EVENT TRIGGER pg2lite_ddl_start ON ddl_command_start
  WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE INDEX', 'DROP TABLE', 'DROP INDEX', 'ALTER PUBLICATION',
               'ALTER SCHEMA', 'CREATE PUBLICATION', 'DROP PUBLICATION', 'ALTER INDEX', 'CREATE TABLE AS',
               'SELECT INTO')
  EXECUTE FUNCTION pg2lite.on_ddl_start();

DROP EVENT TRIGGER IF EXISTS pg2lite_ddl_end;
CREATE EVENT TRIGGER pg2lite_ddl_end ON ddl_command_end
  WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE INDEX', 'DROP TABLE', 'DROP INDEX', 'ALTER PUBLICATION',
               'ALTER SCHEMA', 'CREATE PUBLICATION', 'DROP PUBLICATION', 'ALTER INDEX', 'CREATE TABLE AS',
               'SELECT INTO')
  EXECUTE FUNCTION pg2lite.on_ddl_end();

-- Verification (issue 29, ADR 0040): every source whose publication holds the tables reads them
-- from a snapshot and writes their digests into its change log, where each replica compares its
-- own. Tables are regclass, so names resolve with the caller's search_path before the call: SELECT
-- pg2lite.verify('{orders,items}'). NULL: every published table. A key range applies to tables
-- keyed by one integer column. A transactional message: it takes effect when the caller commits.
CREATE OR REPLACE FUNCTION pg2lite.verify(tables regclass[] DEFAULT NULL, key_from bigint DEFAULT NULL,
    key_to bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
DECLARE
  request text := 'v-' || to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS') || '-'
      || substr(md5(random()::text), 1, 6);
  named jsonb;
BEGIN
  IF key_from IS NOT NULL AND key_to IS NOT NULL AND key_to < key_from THEN
    RAISE EXCEPTION 'pg2lite.verify: key_to (%) is below key_from (%)', key_to, key_from;
  END IF;
  IF tables IS NOT NULL THEN
    IF cardinality(tables) = 0 THEN
      RAISE EXCEPTION 'pg2lite.verify: the list of tables is empty (NULL verifies every published table)';
    END IF;
    SELECT jsonb_agg(jsonb_build_object('schema', n.nspname, 'name', c.relname) ORDER BY t.ord) INTO named
      FROM unnest(tables) WITH ORDINALITY AS t(rel, ord)
      JOIN pg_class c ON c.oid = t.rel JOIN pg_namespace n ON n.oid = c.relnamespace;
  END IF;
  PERFORM pg_logical_emit_message(true, 'pg2lite.verify', jsonb_build_object('id', request, 'tables', named,
      'keyFrom', key_from, 'keyTo', key_to)::text);
  RETURN request;
END
$fn$;

-- Resync one table (the remedy for a verification's mismatch): every source whose publication
-- holds it makes its replicas drop the table and copy it again whole from a snapshot.
CREATE OR REPLACE FUNCTION pg2lite.resync(tab regclass) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
BEGIN
  PERFORM pg_logical_emit_message(true, 'pg2lite.resync', (SELECT jsonb_build_object('schema', n.nspname,
      'name', c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = tab)::text);
END
$fn$;

-- Both put load on every replica: only the owner (the connector's role) and whom it grants may call them.
REVOKE EXECUTE ON FUNCTION pg2lite.verify(regclass[], bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg2lite.resync(regclass) FROM PUBLIC;

INSERT INTO pg2lite.installed (version) VALUES (5)
  ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version;
