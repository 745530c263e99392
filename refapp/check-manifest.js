#!/usr/bin/env node
'use strict';
// Cross-checks a seed manifest against PostgreSQL and Redis using plain Redis commands (LPOS,
// ZSCORE, HGET, EXISTS, ...), not bullmq: every state the manifest claims must really be there.
//
//   node refapp/check-manifest.js --manifest FILE [--pg URL] [--redis URL] [--phase before|after]
//
// --phase before (default): the incident as seeded (run it before Reclaim touches anything).
// --phase after: the outcome the manifest expects after ONE successful recovery run: FAIL rows
//   are FAILED with an error, their parent column holds parent.after; REQUEUE rows are QUEUED
//   (progress 0, no error) with a runnable job under requeueTo.bullJobId whose data equals
//   restorePayload; every other row and parent is unchanged.
// Prints one line per problem and a closing summary; exit 0 when there is none, 1 otherwise.

const fs = require('fs');
const IORedis = require('ioredis');
const { Client } = require('pg');
const { parseArgs, UsageError, redisOptions, pgOptions, errText, runMain } = require('./lib/common');
const D = require('./lib/domains');

const PROG = 'check-manifest';
const RUNNABLE_LISTS = ['wait', 'active'];
const RUNNABLE_ZSETS = ['delayed', 'prioritized', 'waiting-children'];

async function main() {
  const args = parseArgs(process.argv.slice(2), { manifest: 'string', pg: 'string', redis: 'string', phase: 'string', quiet: 'bool' });
  if (!args.manifest) throw new UsageError('--manifest FILE is required');
  const phase = args.phase || 'before';
  if (phase !== 'before' && phase !== 'after') throw new UsageError('--phase must be before or after');
  const manifest = JSON.parse(fs.readFileSync(args.manifest, 'utf8'));
  const { opts: ro, label: rlabel } = redisOptions(args.redis || process.env.RECLAIM_REDIS_URL);
  const { cfg, label: plabel } = pgOptions(args.pg || process.env.RECLAIM_PG_URL);
  const prefix = manifest.prefix || D.PREFIX;
  const problems = [];
  const bad = (row, msg) => problems.push(`${row ? `${row.table} ${row.id} [${row.domain}/${row.kind}]` : 'global'}: ${msg}`);

  const redis = new IORedis(Object.assign({}, ro, { lazyConnect: true, retryStrategy: () => null }));
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${rlabel}: ${errText(e)}`);
  }
  const pg = new Client(cfg);
  pg.on('error', () => {});
  try {
    await pg.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${plabel}: ${errText(e)}`);
  }

  const key = (q, s) => `${prefix}:${q}:${s}`;
  const queues = new Set(D.ALL_QUEUES);
  for (const d of Object.values(manifest.domains || {})) for (const q of d.queues) queues.add(q);

  // --- one pass over every runnable structure: rowId -> [{queue, id, state}] ---------------
  const byRow = new Map();
  const runnableIds = new Map(); // queue -> Map(id -> state)
  for (const q of queues) {
    const ids = new Map();
    for (const l of RUNNABLE_LISTS) for (const id of await redis.lrange(key(q, l), 0, -1)) ids.set(id, l === 'wait' ? 'wait' : 'active');
    for (const z of RUNNABLE_ZSETS) for (const id of await redis.zrange(key(q, z), 0, -1)) ids.set(id, z);
    runnableIds.set(q, ids);
    const list = [...ids.keys()];
    for (let i = 0; i < list.length; i += 1000) {
      const pipe = redis.pipeline();
      const chunk = list.slice(i, i + 1000);
      for (const id of chunk) pipe.hget(key(q, id), 'data');
      const res = await pipe.exec();
      res.forEach(([err, data], k) => {
        if (err || data == null) return;
        let rowId;
        try { rowId = JSON.parse(data).jobId; } catch (e) { return; }
        if (rowId == null) return;
        const arr = byRow.get(String(rowId)) || [];
        arr.push({ queue: q, id: chunk[k], state: ids.get(chunk[k]) });
        byRow.set(String(rowId), arr);
      });
    }
  }
  const paused = new Map();
  for (const q of queues) paused.set(q, (await redis.hexists(key(q, 'meta'), 'paused')) === 1);

  async function stateOf(q, id) {
    // Mirrors bullmq's own order, but reports the paused queue explicitly.
    if (await redis.zscore(key(q, 'completed'), id) != null) return 'completed';
    if (await redis.zscore(key(q, 'failed'), id) != null) return 'failed';
    if (await redis.zscore(key(q, 'delayed'), id) != null) return 'delayed';
    if (await redis.zscore(key(q, 'prioritized'), id) != null) return 'prioritized';
    if ((await redis.call('LPOS', key(q, 'active'), id)) != null) return 'active';
    if ((await redis.call('LPOS', key(q, 'wait'), id)) != null) return paused.get(q) ? 'paused' : 'waiting';
    if (await redis.zscore(key(q, 'waiting-children'), id) != null) return 'waiting-children';
    return (await redis.exists(key(q, id))) ? 'orphan-hash' : 'missing';
  }

  // --- database rows -----------------------------------------------------------------------
  const dbRows = new Map();
  const parentRows = new Map();
  const byTable = new Map();
  for (const r of manifest.rows) {
    if (!byTable.has(r.table)) byTable.set(r.table, []);
    byTable.get(r.table).push(r.id);
  }
  for (const [table, ids] of byTable) {
    const dom = Object.values(D.DOMAINS).find((d) => d.table === table);
    const typeCol = dom && dom.types ? '"type"' : 'NULL::text AS "type"';
    const res = await pg.query(
      `SELECT "id", ${typeCol}, "status", "progress", "error",
              EXTRACT(EPOCH FROM (LOCALTIMESTAMP - "updatedAt"))::float8 AS age
         FROM "${table}" WHERE "id" = ANY($1::text[])`,
      [ids],
    );
    for (const row of res.rows) dbRows.set(`${table}\u0000${row.id}`, row);
  }
  const parentsByTable = new Map();
  for (const r of manifest.rows) {
    if (!r.parent) continue;
    const k = `${r.parent.table}\u0000${r.parent.column}`;
    if (!parentsByTable.has(k)) parentsByTable.set(k, []);
    parentsByTable.get(k).push(r.parent.id);
  }
  for (const [k, ids] of parentsByTable) {
    const [table, column] = k.split('\u0000');
    const res = await pg.query(`SELECT "id", "${column}" AS v FROM "${table}" WHERE "id" = ANY($1::text[])`, [ids]);
    for (const row of res.rows) parentRows.set(`${table}\u0000${column}\u0000${row.id}`, row.v);
  }

  // --- per row -----------------------------------------------------------------------------
  const threshold = manifest.thresholdSeconds;
  let checked = 0;
  for (const r of manifest.rows) {
    checked++;
    const db = dbRows.get(`${r.table}\u0000${r.id}`);
    if (!db) {
      bad(r, 'row missing from the database');
      continue;
    }
    const dom = D.DOMAINS[r.domain];
    const parentNow = r.parent ? parentRows.get(`${r.parent.table}\u0000${r.parent.column}\u0000${r.parent.id}`) : undefined;
    if (r.parent && parentNow === undefined) bad(r, `parent ${r.parent.table} ${r.parent.id} missing`);
    if (r.type !== (db.type || null)) bad(r, `type is ${db.type}, manifest says ${r.type}`);

    if (phase === 'before' || !r.candidate || r.expectedVerdict === 'SCHEDULED') {
      if (db.status !== r.status) bad(r, `status is ${db.status}, expected ${r.status}`);
      if (r.parent && parentNow !== undefined && parentNow !== r.parent.before) {
        bad(r, `parent ${r.parent.table}.${r.parent.column} is ${parentNow}, expected ${r.parent.before} (unchanged)`);
      }
    }
    if (phase === 'before') {
      const inFlight = db.status === 'PROCESSING' || db.status === 'QUEUED';
      const typeOk = !dom.typeFilter || dom.typeFilter.includes(db.type);
      const isCandidate = inFlight && typeOk && db.age > threshold;
      if (isCandidate !== r.candidate) bad(r, `candidate is ${isCandidate} by the database (age ${Math.round(db.age)} s), manifest says ${r.candidate}`);
    } else if (r.expectedAction === 'FAIL') {
      if (db.status !== 'FAILED') bad(r, `after recovery: status is ${db.status}, expected FAILED`);
      if (!db.error) bad(r, 'after recovery: error is empty, expected a reason');
      if (parentNow !== undefined && parentNow !== r.parent.after) bad(r, `after recovery: parent ${r.parent.table}.${r.parent.column} is ${parentNow}, expected ${r.parent.after}`);
    } else if (r.expectedAction === 'REQUEUE') {
      if (db.status !== 'QUEUED' || db.progress !== 0 || db.error != null) {
        bad(r, `after recovery: row is ${db.status}/progress ${db.progress}/error ${db.error}, expected QUEUED/0/null`);
      }
      if (parentNow !== undefined && parentNow !== r.parent.after) bad(r, `after recovery: parent changed to ${parentNow}`);
      const st = await stateOf(r.requeueTo.queue, r.requeueTo.bullJobId);
      if (!['waiting', 'paused', 'prioritized', 'delayed', 'active', 'completed'].includes(st)) {
        bad(r, `after recovery: ${r.requeueTo.queue}/${r.requeueTo.bullJobId} is ${st}, expected runnable`);
      } else if (r.restorePayload) {
        const data = JSON.parse((await redis.hget(key(r.requeueTo.queue, r.requeueTo.bullJobId), 'data')) || 'null');
        if (!sameJson(data, r.restorePayload)) bad(r, `after recovery: job data ${JSON.stringify(data)} differs from restorePayload`);
      }
    }

    if (phase !== 'before') continue;

    // Redis side of the claim.
    if (r.bullJobId && r.queue && r.expectedState) {
      const st = await stateOf(r.queue, r.bullJobId);
      if (st !== r.expectedState) bad(r, `${r.queue}/${r.bullJobId} is ${st}, expected ${r.expectedState}`);
      const data = JSON.parse((await redis.hget(key(r.queue, r.bullJobId), 'data')) || 'null');
      if (!data || data.jobId !== r.id) bad(r, `${r.queue}/${r.bullJobId} data.jobId is ${data && data.jobId}, expected ${r.id}`);
      if (r.expectedState === 'active') {
        const lockTtl = await redis.pttl(key(r.queue, `${r.bullJobId}:lock`));
        if (r.lockHeld === true && lockTtl <= 0) bad(r, `lock ${key(r.queue, `${r.bullJobId}:lock`)} missing (pttl ${lockTtl}) but lockHeld is true`);
        if (r.lockHeld === false && lockTtl > 0 && r.kind !== 'active-held-by-live-worker') bad(r, `lock present (pttl ${lockTtl}) but lockHeld is false`);
      }
      if (r.expectedState === 'waiting-children') {
        const deps = await redis.smembers(key(r.queue, `${r.bullJobId}:dependencies`));
        if (deps.length === 0) bad(r, 'waiting-children parent has no pending dependency');
        for (const c of r.children || []) {
          if (!deps.includes(key(c.queue, c.bullJobId))) bad(r, `child ${c.queue}/${c.bullJobId} not among the dependencies`);
          const cs = await stateOf(c.queue, c.bullJobId);
          if (cs !== c.state) bad(r, `child ${c.queue}/${c.bullJobId} is ${cs}, expected ${c.state}`);
        }
      }
      if (r.foundBy === 'direct' && r.bullJobId !== r.currentJobId) bad(r, 'foundBy direct but bullJobId is not the current id');
      if (r.foundBy === 'scan' && (r.bullJobId === r.currentJobId || !/^\d+$/.test(r.bullJobId))) bad(r, 'foundBy scan but bullJobId is not a legacy numeric id');
    }
    if (r.retained) {
      const st = await stateOf(r.retained.queue, r.retained.bullJobId);
      if (st !== r.retained.state) bad(r, `retained ${r.retained.queue}/${r.retained.bullJobId} is ${st}, expected ${r.retained.state}`);
    }
    if (r.candidate) {
      const seen = byRow.get(r.id) || [];
      // runnable appearances of this row's payload, by any id, in its domain's queues
      const inDomain = seen.filter((s) => dom.queues.includes(s.queue));
      if (r.expectedVerdict === 'ABSENT' && inDomain.length) {
        bad(r, `expected ABSENT but runnable as ${inDomain.map((s) => `${s.queue}/${s.id}(${s.state})`).join(', ')}`);
      }
      if (r.expectedVerdict === 'SCHEDULED' && inDomain.length === 0) bad(r, 'expected SCHEDULED but nothing runnable carries its row id');
      for (const q of dom.queues) {
        const st = runnableIds.get(q).get(r.currentJobId);
        if (r.expectedVerdict === 'ABSENT' && st) bad(r, `current id runnable in ${q} (${st})`);
        if (r.foundBy === 'scan' && st) bad(r, `foundBy scan, yet the current id is runnable in ${q}`);
      }
    }
  }

  // --- structure counts ----------------------------------------------------------------------
  if (phase === 'before' && manifest.counts && manifest.counts.redis) {
    for (const [q, c] of Object.entries(manifest.counts.redis)) {
      const now = {
        wait: await redis.llen(key(q, 'wait')),
        active: await redis.llen(key(q, 'active')),
        delayed: await redis.zcard(key(q, 'delayed')),
        prioritized: await redis.zcard(key(q, 'prioritized')),
        'waiting-children': await redis.zcard(key(q, 'waiting-children')),
        completed: await redis.zcard(key(q, 'completed')),
        failed: await redis.zcard(key(q, 'failed')),
      };
      for (const [s, n] of Object.entries(c)) if (now[s] !== n) bad(null, `${q} ${s}: ${now[s]} in Redis, manifest says ${n}`);
    }
    for (const q of manifest.pausedQueues || []) if (!paused.get(q)) bad(null, `${q} should be paused (meta field "paused")`);
  }

  await pg.end();
  redis.disconnect();
  for (const p of problems) process.stdout.write(`PROBLEM ${p}\n`);
  process.stdout.write(`${PROG}: ${phase}: ${checked} rows checked, ${problems.length} problem(s)\n`);
  return problems.length ? 1 : 0;
}

function sameJson(a, b) {
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
  return v;
}

runMain(PROG, main);
