#!/usr/bin/env node
'use strict';
// Applies refapp/migrations/NNN_*.sql in order, once each, recording them in "_refapp_migrations".
//
//   node refapp/migrate.js [--pg URL] [--dir DIR] [--quiet]
//
// A file whose first line is `-- no-transaction` runs statement by statement in autocommit
// mode (needed for CREATE INDEX CONCURRENTLY); every other file runs in one transaction together
// with its bookkeeping row. Safe to run again (applied files are skipped) and concurrently (an
// advisory lock serialises runners). A file changed after it was applied is an error.

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { Client } = require('pg');
const { parseArgs, pgOptions, errText, runMain } = require('./lib/common');

const PROG = 'migrate';
const LOCK_KEY = 727105; // arbitrary, constant: serialises concurrent migrate runs

class MigrationError extends Error {}

function listMigrations(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw new MigrationError(`cannot read migrations directory ${dir}: ${errText(e)}`);
  }
  return names
    .filter((n) => /^\d+_[A-Za-z0-9_.-]+\.sql$/.test(n))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b))
    .map((name) => {
      const text = fs.readFileSync(path.join(dir, name), 'utf8');
      const firstLine = text.split('\n', 1)[0].trim().toLowerCase();
      return {
        name,
        text,
        noTransaction: firstLine === '-- no-transaction',
        checksum: crypto.createHash('sha256').update(text).digest('hex'),
      };
    });
}

/**
 * Splits SQL into statements at top-level semicolons, respecting comments, quoted strings,
 * quoted identifiers and dollar-quoted bodies. Statements that are only comments are dropped.
 */
function splitStatements(sql) {
  const out = [];
  let start = 0;
  let i = 0;
  let meaningful = false;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
      continue;
    }
    if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') { depth++; i += 2; }
        else if (sql[i] === '*' && sql[i + 1] === '/') { depth--; i += 2; }
        else i++;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      meaningful = true;
      i++;
      while (i < n) {
        if (sql[i] === c) {
          if (sql[i + 1] === c) { i += 2; continue; }
          i++;
          break;
        }
        i++;
      }
      continue;
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (m) {
        meaningful = true;
        const tag = m[0];
        const end = sql.indexOf(tag, i + tag.length);
        i = end < 0 ? n : end + tag.length;
        continue;
      }
    }
    if (c === ';') {
      if (meaningful) out.push(sql.slice(start, i).trim());
      start = i + 1;
      meaningful = false;
      i++;
      continue;
    }
    if (!/\s/.test(c)) meaningful = true;
    i++;
  }
  if (meaningful) out.push(sql.slice(start).trim());
  return out;
}

async function dropInvalidIndex(client, statement, log) {
  const m = /create\s+(?:unique\s+)?index\s+concurrently\s+if\s+not\s+exists\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)/i.exec(
    statement.replace(/--[^\n]*\n/g, '\n'),
  );
  if (!m) return;
  const raw = m[1];
  const name = raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw.toLowerCase();
  const r = await client.query(
    `SELECT n.nspname AS schema
       FROM pg_index x
       JOIN pg_class c ON c.oid = x.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relname = $1 AND n.nspname = current_schema() AND NOT x.indisvalid`,
    [name],
  );
  if (r.rowCount > 0) {
    log(`  dropping invalid index "${name}" left by an earlier failed build`);
    await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name.replace(/"/g, '""')}"`);
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2), { pg: 'string', dir: 'string', quiet: 'bool', help: 'bool' });
  if (args.help) {
    process.stdout.write('usage: node refapp/migrate.js [--pg URL] [--dir DIR] [--quiet]\n');
    return 0;
  }
  const { cfg, label } = pgOptions(args.pg || process.env.RECLAIM_PG_URL);
  const dir = path.resolve(args.dir || path.join(__dirname, 'migrations'));
  const log = args.quiet ? () => {} : (s) => process.stdout.write(`${s}\n`);
  const migrations = listMigrations(dir);
  if (migrations.length === 0) throw new MigrationError(`no NNN_*.sql files in ${dir}`);

  const client = new Client(cfg);
  client.on('error', () => {}); // reported through the failing query instead
  try {
    await client.connect();
  } catch (e) {
    throw new MigrationError(`cannot connect to ${label}: ${errText(e)}`);
  }
  let current = null;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_refapp_migrations" (
        "name"      text        PRIMARY KEY,
        "checksum"  text        NOT NULL,
        "appliedAt" timestamptz NOT NULL DEFAULT now())`);
    const applied = new Map(
      (await client.query('SELECT "name", "checksum" FROM "_refapp_migrations"')).rows.map((r) => [r.name, r.checksum]),
    );
    let count = 0;
    for (const m of migrations) {
      current = m.name;
      if (applied.has(m.name)) {
        if (applied.get(m.name) !== m.checksum) {
          throw new MigrationError(`${m.name} was changed after it was applied to ${label}; add a new migration instead`);
        }
        continue;
      }
      log(`applying ${m.name}${m.noTransaction ? ' (no transaction)' : ''}`);
      if (m.noTransaction) {
        const statements = splitStatements(m.text);
        for (let k = 0; k < statements.length; k++) {
          current = `${m.name} (statement ${k + 1} of ${statements.length})`;
          await dropInvalidIndex(client, statements[k], log);
          await client.query(statements[k]);
        }
        current = m.name;
        await client.query('INSERT INTO "_refapp_migrations" ("name", "checksum") VALUES ($1, $2)', [m.name, m.checksum]);
      } else {
        await client.query('BEGIN');
        try {
          await client.query(m.text);
          await client.query('INSERT INTO "_refapp_migrations" ("name", "checksum") VALUES ($1, $2)', [m.name, m.checksum]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw e;
        }
      }
      count++;
    }
    current = null;
    log(count ? `migrate: applied ${count} migration(s) to ${label}` : `migrate: ${label} is up to date`);
    return 0;
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    throw new MigrationError(current ? `${current} failed on ${label}: ${errText(e)}` : `failed on ${label}: ${errText(e)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

if (require.main === module) runMain(PROG, main);

module.exports = { splitStatements };
