/**
 * The store's schema version, for every adapter: SQLite's sqlite/migrate.ts (PRAGMA user_version)
 * and PostgreSQL's migrate-pg.ts (the schema_meta row) both bring a store here and refuse
 * one written by a newer Shop. Raise it with a migration step in both.
 */
export const SCHEMA_VERSION = 16;
