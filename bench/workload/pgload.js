'use strict';
// Bulk rows into the reference schema with COPY through psql (one transaction, foreign keys
// checked as the app's own inserts would be), then ANALYZE. The password travels in the
// environment, never on a command line.

const { spawn } = require('child_process');
const { D, pgTime } = require('./common');

const PARENT_COLUMNS = {
  Slide: ['id', 'title', 'status', 'exportStatus'],
  Video: ['id', 'title', 'status', 'exportStatus'],
  Document: ['id', 'title', 'status'],
  Image: ['id', 'prompt', 'status'],
  Narration: ['id', 'text', 'voice', 'status'],
};

function esc(v) {
  if (v === null || v === undefined) return '\\N';
  return String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

class RowSink {
  constructor(now) {
    this.now = now;
    this.tables = new Map();
    this.parentSeen = new Set();
    this.rowCount = 0;
  }

  lines(table) {
    let l = this.tables.get(table);
    if (!l) this.tables.set(table, (l = []));
    return l;
  }

  parent(p, key) {
    const k = key || `${p.table}:${p.id}`;
    if (this.parentSeen.has(k)) return;
    this.parentSeen.add(k);
    const cols = PARENT_COLUMNS[p.table].map((c) => esc(p[c]));
    cols.push(pgTime(this.now - p.createdAgeMs), pgTime(this.now - p.updatedAgeMs));
    this.lines(p.table).push(cols.join('\t'));
  }

  job(r) {
    const dom = D.DOMAINS[D.JOB_TABLES[r.table]];
    const cols = [esc(r.id), esc(r.parentId)];
    if (dom.types) cols.push(esc(r.type));
    cols.push(esc(r.status), String(r.progress), esc(r.error), pgTime(this.now - r.createdAgeMs), pgTime(this.now - r.updatedAgeMs));
    this.lines(r.table).push(cols.join('\t'));
    this.rowCount++;
  }
}

function columnList(table) {
  if (PARENT_COLUMNS[table]) return [...PARENT_COLUMNS[table], 'createdAt', 'updatedAt'];
  const dom = D.DOMAINS[D.JOB_TABLES[table]];
  const cols = ['id', dom.fk];
  if (dom.types) cols.push('type');
  return [...cols, 'status', 'progress', 'error', 'createdAt', 'updatedAt'];
}

function psqlEnv(url) {
  const u = new URL(url);
  return Object.assign({}, process.env, {
    PGHOST: u.hostname, PGPORT: u.port || '5432', PGUSER: decodeURIComponent(u.username),
    PGPASSWORD: decodeURIComponent(u.password), PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
    PGOPTIONS: '-c client_min_messages=warning',
  });
}

/** Runs SQL text through psql; resolves with stdout. */
function psql(url, sql, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const p = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...extraArgs, '-f', '-'], { env: psqlEnv(url), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`psql failed (exit ${code}): ${err.trim().split('\n')[0]}`))));
    p.stdin.on('error', () => {});
    p.stdin.end(sql);
  });
}

/**
 * Feeds `chunks` (any iterable of strings, a generator included: nothing is held whole) to psql
 * on stdin, stopping at the first error, honouring the pipe's back-pressure.
 */
function psqlFeed(url, chunks, what) {
  return new Promise((resolve, reject) => {
    const p = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', '-'], { env: psqlEnv(url), stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`psql ${what} failed (exit ${code}): ${err.trim().split('\n')[0]}`))));
    p.stdin.on('error', () => {});
    const it = chunks[Symbol.iterator]();
    const write = () => {
      for (let n = it.next(); !n.done; n = it.next()) {
        if (!p.stdin.write(n.value)) {
          p.stdin.once('drain', write);
          return;
        }
      }
      p.stdin.end();
    };
    write();
  });
}

/** COPYs every buffered table (parents first) in one transaction, then ANALYZEs. */
function copyAll(url, sink) {
  const order = ['Slide', 'Video', 'Document', 'Image', 'Narration', 'SlideJob', 'VideoJob', 'DocumentJob', 'ImageJob', 'NarrationJob'];
  const chunks = ['BEGIN;\n'];
  for (const t of order) {
    const lines = sink.tables.get(t);
    if (!lines || !lines.length) continue;
    chunks.push(`COPY "${t}" (${columnList(t).map((c) => `"${c}"`).join(', ')}) FROM STDIN;\n`);
    for (let i = 0; i < lines.length; i += 5000) chunks.push(`${lines.slice(i, i + 5000).join('\n')}\n`);
    chunks.push('\\.\n');
  }
  chunks.push('COMMIT;\n');
  chunks.push(`ANALYZE ${order.map((t) => `"${t}"`).join(', ')};\n`);
  return psqlFeed(url, chunks, 'COPY');
}

module.exports = { RowSink, copyAll, esc, psql, psqlEnv, psqlFeed };
