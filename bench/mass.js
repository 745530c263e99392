'use strict';
// Measurement 8 (issue 30): mass recovery, side by side. "The incident" (workload/incident.js)
// is built once per size into a template (PostgreSQL database bench_mass_tpl, Redis database 9);
// every contender then starts from a fresh copy of it (CREATE DATABASE … TEMPLATE, Redis keys
// COPYed into database 10), runs in a fresh process, and its outcome is verified in full before
// the next one starts. Contenders: `reclaim --once --json`, and the seed-style peer
// (node/peer-recover.js, real bullmq + pg) one job at a time and 64 jobs in flight.
//
// Counted for each contender, the same way for all:
//   wall time and peak RSS of its process (/usr/bin/time: elapsed, max resident set);
//   PostgreSQL round trips: every statement the server logged for the contender's database
//     (log_statement = all set on that database only: one "statement:" line per simple-query
//     message, PREPARE/EXECUTE/DEALLOCATE/BEGIN/COMMIT included, one "execute" line per
//     extended-protocol Parse/Bind/Execute/Sync), and beside it the statements pg_stat_statements
//     counted for that database (calls; it does not track PREPARE or DEALLOCATE);
//   Redis round trips: Reclaim's own count (the report's redisRoundTrips, a pipeline counting
//     once); the peer's commands counted client-side by hooking ioredis (each command its own
//     request and reply, a pipeline counted once), plus the server's INFO commandstats delta for
//     everyone (every command executed, those inside scripts included).

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { refRequire, common } = require('./workload/common');
const { psql } = require('./workload/pgload');
const { buildMassIncident, payloadOf, rowId, jobIdOf, parentIdOf, QUEUE, JOB_NAME } = require('./workload/incident');
const { validate } = require('./workload/validate');
const proc = require('./lib/proc');

const { Queue } = refRequire('bullmq');
const pg = refRequire('pg');

const MiB = 1024;
const DB = { tpl: 9, run: 10 };
const TPL = 'bench_mass_tpl';
const RUN = 'bench_mass_run';
const CONTENDERS = ['reclaim', 'reclaim-approve', 'peer-serial', 'peer-64'];
// [kind, orphans, parent rule, healthy rows (default: as many as orphans), contenders (default:
// all)]. The last full-size variant is the memory target's incident: 1,000,000 rows of which
// 200,000 are orphans, Reclaim alone (a peer one job at a time would take most of an hour).
const SIZES = {
  full: {
    variants: [['requeue', 20000, false], ['requeue', 20000, true], ['fail', 20000, true], ['requeue', 100000, false],
      ['requeue', 200000, false, 800000, ['reclaim'], { console: true }]],
    reps: 1,
    verifySample: 200,
  },
  smoke: { variants: [['requeue', 200, false], ['requeue', 200, true], ['fail', 200, true], ['requeue', 200, false, 800, ['reclaim'], { console: true }]], reps: 1, verifySample: 20 },
};
const TARGETS = { vsSerial: 15, vsInFlight: 8, rssMiB: 256, rssLargeMiB: 512, tripsPer1000: 10, consoleStallMs: 50, consoleApplyMs: 122.7 };

/** A variant of SIZES as an object, with the key its files and results go under. */
// `console`: the console is also shown that incident's report (bench/src/consolebench.cpp).
function variantOf([kind, n, parents, healthy = n, contenders = CONTENDERS, { console = false } = {}]) {
  const key = `${kind}${parents ? '-parents' : ''}-${n}${healthy !== n ? `-of-${n + healthy}` : ''}`;
  return { key, kind, n, parents, healthy, contenders, console };
}

/** JSON text with object keys sorted: two values are equal iff their canonical texts are. */
function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function fmt(n, digits = 0) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Number(n).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

class MassBench {
  /** `b` is run.js's Bench: its URLs, database helpers, Redis copy, work directory and log. */
  constructor(b, log) {
    this.b = b;
    this.log = log;
    this.size = SIZES[b.smoke ? 'smoke' : 'full'];
    this.sandboxDir = process.env.RECLAIM_SANDBOX_DIR || '';
    this.results = { variants: [], targets: [], notes: [] };
  }

  async pgClient(db) {
    const { cfg } = common.pgOptions(this.b.pgUrl(db));
    cfg.application_name = 'reclaim-bench';
    const c = new pg.Client(cfg);
    await c.connect();
    return c;
  }

  async baseQuery(sql, params) {
    const c = await this.pgClient(new URL(this.b.pgBase).pathname.slice(1));
    try {
      return await c.query(sql, params);
    } finally {
      await c.end();
    }
  }

  // ---------------------------------------------------------------- counters around a contender

  async pgssAvailable() {
    if (this.pgss !== undefined) return this.pgss;
    try {
      await this.baseQuery('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await this.baseQuery('SELECT count(*) FROM pg_stat_statements');
      this.pgss = true;
    } catch (e) {
      this.pgss = false;
      this.results.notes.push(`pg_stat_statements is not available (${common.errText(e)}): statements are not counted`);
    }
    return this.pgss;
  }

  pgLog() {
    return this.sandboxDir ? path.join(this.sandboxDir, 'pg.log') : null;
  }

  async redisCommandTotal() {
    const r = await this.b.redis(0);
    try {
      const info = await r.info('commandstats');
      let total = 0;
      for (const m of info.matchAll(/calls=(\d+)/g)) total += Number(m[1]);
      return total;
    } finally {
      r.disconnect();
    }
  }

  async countersBefore(counted) {
    const c = { redisCommands: await this.redisCommandTotal() };
    if (await this.pgssAvailable()) {
      await this.baseQuery('SELECT pg_stat_statements_reset()');
      c.pgssDealloc = Number((await this.baseQuery('SELECT dealloc FROM pg_stat_statements_info')).rows[0].dealloc);
    }
    const log = this.pgLog();
    if (counted && log && fs.existsSync(log)) c.logOffset = fs.statSync(log).size;
    return c;
  }

  async countersAfter(before) {
    // The INFO call of countersBefore ran after its own count was taken, and this one's before: 1.
    const out = { redisServerCommands: (await this.redisCommandTotal()) - before.redisCommands - 1 };
    if (before.pgssDealloc !== undefined) {
      const s = await this.baseQuery(`SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements
                                       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`, [RUN]);
      out.pgStatements = Number(s.rows[0].calls);
      const d = Number((await this.baseQuery('SELECT dealloc FROM pg_stat_statements_info')).rows[0].dealloc);
      if (d !== before.pgssDealloc) out.pgStatementsIncomplete = `pg_stat_statements evicted ${d - before.pgssDealloc} entries during the run`;
    }
    if (before.logOffset !== undefined) {
      const logged = await this.countLoggedStatements(before.logOffset);
      out.pgRoundTrips = logged.total;
      out.pgRoundTripsByKind = logged.byKind;
    }
    return out;
  }

  /**
   * Lines the server logged since `offset` that are statements (simple query) or executes
   * (extended protocol): {total, byKind} with the first word of each (EXECUTE, PREPARE, BEGIN…).
   */
  countLoggedStatements(offset) {
    return new Promise((resolve, reject) => {
      const out = { total: 0, byKind: {} };
      let rest = '';
      const re = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+ \[\d+\] LOG: {2}(statement|execute [^:]*): (\S*)/;
      const take = (l) => {
        const m = re.exec(l);
        if (!m) return;
        out.total++;
        const kind = `${m[1] === 'statement' ? '' : 'extended '}${m[2].toUpperCase().replace(/[^A-Z_]/g, '')}`;
        out.byKind[kind] = (out.byKind[kind] || 0) + 1;
      };
      fs.createReadStream(this.pgLog(), { start: offset, encoding: 'utf8' })
        .on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop();
          for (const l of lines) take(l);
        })
        .on('end', () => {
          take(rest);
          resolve(out);
        })
        .on('error', reject);
    });
  }

  // ---------------------------------------------------------------- the workload

  async buildTemplate(n, healthy) {
    this.log(`8. mass recovery: building the incident, ${fmt(n)} orphans + ${fmt(healthy)} healthy waiting jobs`);
    await this.b.createDb(TPL);
    await this.b.flush(DB.tpl);
    const redis = await this.b.redis(DB.tpl);
    try {
      const summary = await buildMassIncident({ pg: this.b.pgUrl(TPL), redis: this.b.redisUrl(DB.tpl), redisClient: redis, orphans: n, healthy, samples: this.b.smoke ? 3 : 12 });
      summary.validation = await this.b.validate(DB.tpl, summary, `incident-${n}`);
      // Redis lost its data: the queue's meta hash (and with it the version stamp) is gone too.
      const deleted = await redis.del(`bull:${QUEUE}:meta`);
      if (deleted !== 1) throw new Error(`the incident's queue had no meta hash to delete (${deleted})`);
      const step = Math.max(1, Math.floor(healthy / this.size.verifySample));
      this.healthySample = [];
      for (let i = 0; i < healthy; i += step) {
        const id = rowId('h', i);
        this.healthySample.push({ id, hash: await redis.hgetall(`bull:${QUEUE}:${jobIdOf(id)}`) });
      }
      summary.sampledJobs = summary.samples.length;
      delete summary.samples;
      this.template = { n, healthy, summary, fingerprint: await this.fingerprint(TPL) };
      return summary;
    } finally {
      redis.disconnect();
    }
  }

  /** What must not change: healthy rows and their parents, whole; orphans' parents. */
  async fingerprint(db) {
    const c = await this.pgClient(db);
    try {
      return await this.fingerprintWith(c);
    } finally {
      await c.end();
    }
  }

  async freshCopy(counted) {
    await this.b.createDb(RUN, TPL);
    // Counted: every statement of the contender's sessions logged (one line each: the round-trip
    // count); bind parameters not. Never in a timed run: the log writes each statement's text in
    // full, which costs a client that inlines a batch's values (Reclaim) far more than one that
    // binds them (the peer): about 0.7 s of a 3.6 s run at 20,000.
    if (counted && this.pgLog()) await this.b.sql(`ALTER DATABASE "${RUN}" SET log_statement = 'all'; ALTER DATABASE "${RUN}" SET log_parameter_max_length = 0;`);
    await this.b.flush(DB.run);
    await this.b.copyRedis(DB.tpl, DB.run);
  }

  config(v) {
    const domain = {
      name: 'incident', table: 'IncidentJob',
      columns: { id: 'id', status: 'status', updatedAt: 'updatedAt', type: 'type', progress: 'progress', error: 'error' },
      thresholdSeconds: 3600, queues: [QUEUE], jobIdTemplate: 'incident-{id}',
      // The queue lost its meta hash with the rest of Redis: write what the app's bullmq 6 writes.
      bullmqIfUnstamped: 6,
    };
    if (v.kind === 'requeue') domain.restore = { queue: QUEUE, jobName: JOB_NAME, query: 'SELECT payload::text FROM "IncidentJob" WHERE id = :jobId' };
    if (v.parents) domain.parents = [{ table: 'IncidentBatch', foreignKey: 'parentId', column: 'status', inProgress: ['PENDING', 'PROCESSING'], failedValue: 'FAILED' }];
    const cfg = {
      connections: { postgresUrl: 'postgresql://reclaim@127.0.0.1/reclaim', redisUrl: 'redis://127.0.0.1/0' },
      run: {
        lockTtlSeconds: 600, redisTimeoutMs: 5000, postgresTimeoutMs: 30000, policy: 'auto', timeZone: 'UTC',
        // Every orphan of a lost Redis is one action: the default guard (100 actions, half the
        // candidates ABSENT) would hold them all for an operator, which is its job. Raised here
        // so that the run executes them: this measures the recovery, not the decision to run it.
        guard: { maxActions: 10000000, maxAbsentShare: 1.0, minCandidates: 20 },
      },
      domains: [domain],
    };
    const f = this.b.file(`mass-${v.key}.json`);
    fs.writeFileSync(f, `${JSON.stringify(cfg, null, 2)}\n`);
    // The same with the default guard, as production runs it: the run holds every action, and
    // on-call approves the domain (`reclaim-approve`).
    const held = JSON.parse(JSON.stringify(cfg));
    delete held.run.guard;
    fs.writeFileSync(this.b.file(`mass-${v.key}-held.json`), `${JSON.stringify(held, null, 2)}\n`);
    return f;
  }

  heldConfig(cfg) {
    return cfg.replace(/\.json$/, '-held.json');
  }

  // ---------------------------------------------------------------- contenders

  /** Runs a command under /usr/bin/time, stdout to a file; resolves {code, wallMs, peakRssKiB, stderr}. */
  timed(cmd, args, env, stdoutFile) {
    const timeFile = `${stdoutFile}.time`;
    return new Promise((resolve, reject) => {
      const fd = fs.openSync(stdoutFile, 'w');
      const t0 = process.hrtime.bigint();
      const p = spawn('/usr/bin/time', ['-f', '%e %M', '-o', timeFile, cmd, ...args], { env: Object.assign({}, process.env, env), stdio: ['ignore', fd, 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d) => { if (stderr.length < 20000) stderr += d; });
      const timer = setTimeout(() => p.kill('SIGKILL'), 1800000);
      p.on('error', (e) => { clearTimeout(timer); fs.closeSync(fd); reject(e); });
      p.on('close', (code) => {
        clearTimeout(timer);
        fs.closeSync(fd);
        const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
        const t = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ');
        resolve({ code, wallMs, peakRssKiB: Number(t[1]), stderr: proc.redact(stderr) });
      });
    });
  }

  async runReclaim(v, cfg) {
    const out = this.b.file(`mass-${v.key}-reclaim.json`);
    const env = { RECLAIM_PG_URL: this.b.pgUrl(RUN), RECLAIM_REDIS_URL: this.b.redisUrl(DB.run) };
    const r = await this.timed(this.b.reclaimBin, ['--once', '--json', '--config', cfg], env, out);
    if (r.code !== 0) {
      throw new Error(`reclaim --once exited ${r.code} on ${v.key}${r.code === 10 ? ' (actions held for an operator)' : ''}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    const report = await readReport(out);
    return { wallMs: r.wallMs, peakRssKiB: r.peakRssKiB, report, redisRoundTrips: report.head.redisRoundTrips, reportBytes: fs.statSync(out).size };
  }

  /** The daemon's hold under the default guard (exit 10, not measured), then the approval. */
  async holdForApproval(v, cfg) {
    const out = this.b.file(`mass-${v.key}-held-run.json`);
    const env = { RECLAIM_PG_URL: this.b.pgUrl(RUN), RECLAIM_REDIS_URL: this.b.redisUrl(DB.run) };
    const r = await this.timed(this.b.reclaimBin, ['--once', '--config', this.heldConfig(cfg)], env, out);
    if (r.code !== 10) throw new Error(`reclaim --once under the default guard exited ${r.code} on ${v.key}, expected 10 (held): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return r;
  }

  async runApproval(v, cfg, hold) {
    const out = this.b.file(`mass-${v.key}-approve.json`);
    const env = { RECLAIM_PG_URL: this.b.pgUrl(RUN), RECLAIM_REDIS_URL: this.b.redisUrl(DB.run) };
    const r = await this.timed(this.b.reclaimBin, ['--approve', '--domain', 'incident', '--json', '--config', this.heldConfig(cfg)], env, out);
    if (r.code !== 0) throw new Error(`reclaim --approve --domain incident exited ${r.code} on ${v.key}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
    const outcomes = {};
    for (const d of doc.decisions) outcomes[d.outcome] = (outcomes[d.outcome] || 0) + 1;
    return {
      wallMs: r.wallMs, peakRssKiB: r.peakRssKiB, redisRoundTrips: doc.redisRoundTrips,
      approval: { outcomes, decisions: doc.decisions.length, holdWallMs: hold.wallMs, holdPeakRssKiB: hold.peakRssKiB },
    };
  }

  async runPeer(v, concurrency) {
    const out = this.b.file(`mass-${v.key}-peer-${concurrency}.json`);
    const args = [path.join(__dirname, 'node', 'peer-recover.js'), '--pg', this.b.pgUrl(RUN), '--redis', this.b.redisUrl(DB.run), '--kind', v.kind,
      '--concurrency', String(concurrency)];
    if (v.parents) args.push('--parents');
    const r = await this.timed(process.execPath, args, {}, out);
    if (r.code !== 0) throw new Error(`peer-recover (${concurrency} in flight) exited ${r.code} on ${v.key}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n');
    const peer = JSON.parse(lines[lines.length - 1]);
    return { wallMs: r.wallMs, peakRssKiB: r.peakRssKiB, peer, redisRoundTrips: peer.redis.roundTrips };
  }

  /**
   * The console shown the incident's dry-run report (every orphan a row): the UI thread's time to
   * apply it and its longest stall while a run of its own is in flight and shown. Read-only: the
   * state stays as built.
   */
  async console(v, cfg) {
    await this.freshCopy(false);
    this.log(`   ${v.key} console: applying the incident's report, stalls while a run is shown`);
    const env = { RECLAIM_PG_URL: this.b.pgUrl(RUN), RECLAIM_REDIS_URL: this.b.redisUrl(DB.run), QT_QPA_PLATFORM: 'offscreen' };
    const c = await this.b.bench(['console', '--config', cfg, '--reps', '3', '--run-reps', '1', '--idle-ms', this.b.smoke ? '300' : '1000'], env, { timeoutMs: 1800000 });
    this.log(`   ${v.key} console: ${fmt(c.candidates)} rows, first apply ${fmt(c.firstApplyUiMs.median, 1)} ms on the UI thread ` +
      `(refresh ${fmt(c.refreshApplyUiMs.median, 1)} ms), longest stall with a run shown ${fmt(c.maxStallWithApplyMs.median, 1)} ms`);
    return c;
  }

  /**
   * The console's Held for approval tab when a whole domain is held (20,000 actions): the
   * listing shown, then the decisions of approving them all, as they come back in bursts
   * (bench/src/heldpanelbench.cpp). Synthetic entries: no servers.
   */
  async heldPanel() {
    const n = this.b.smoke ? 500 : 20000;
    this.log(`   console: the Held for approval tab with ${fmt(n)} held actions, listed then approved`);
    const h = await this.b.bench(['held-panel', '--synthetic', String(n), '--reps', '3'], { QT_QPA_PLATFORM: 'offscreen' }, { timeoutMs: 600000 });
    this.log(`   console: listing ${fmt(h.listingUiMs.median, 1)} ms, ${fmt(n)} decisions ${fmt(h.decisionsUiMs.median, 1)} ms on the UI thread, ` +
      `longest stall ${fmt(h.longestStallMs.median, 1)} ms`);
    return h;
  }

  // ---------------------------------------------------------------- verification

  /** Every outcome of one contender; returns a list of problems (empty: verified). */
  async verify(v, contender) {
    const { n, healthy } = this.template;
    const problems = [];
    const requeue = v.kind === 'requeue';
    // PostgreSQL: rows, parents, audit.
    const c = await this.pgClient(RUN);
    try {
      const rows = (await c.query(`SELECT
          count(*) FILTER (WHERE id LIKE 'o%') AS orphans,
          count(*) FILTER (WHERE id LIKE 'o%' AND status = $1 AND "updatedAt" > now() - interval '1 hour'
                             AND ${requeue ? 'error IS NULL AND progress = 0' : 'error IS NOT NULL'}) AS recovered
        FROM "IncidentJob"`, [requeue ? 'QUEUED' : 'FAILED'])).rows[0];
      if (Number(rows.recovered) !== n) problems.push(`${fmt(rows.recovered)} of ${fmt(n)} orphan rows are ${requeue ? 'QUEUED' : 'FAILED'} with a fresh updatedAt`);
      const fp = await this.fingerprintWith(c);
      if (fp.healthy_rows !== this.template.fingerprint.healthy_rows) problems.push('a healthy row changed');
      if (fp.healthy_parents !== this.template.fingerprint.healthy_parents) problems.push('a healthy row\'s parent changed');
      if (v.kind === 'fail' && v.parents) {
        const p = (await c.query('SELECT count(*) FILTER (WHERE status = \'FAILED\') AS failed FROM "IncidentBatch" WHERE id LIKE \'bo%\'')).rows[0];
        if (Number(p.failed) !== n) problems.push(`${fmt(p.failed)} of ${fmt(n)} orphans' parents are FAILED`);
      } else if (fp.orphan_parents !== this.template.fingerprint.orphan_parents) {
        problems.push('an orphan\'s parent changed (no rule asks for that here)');
      }
      const audit = async (table) => {
        const exists = (await c.query('SELECT to_regclass($1) AS t', [table])).rows[0].t;
        if (!exists) return { total: 0, applied: 0, distinctOrphans: 0, other: {} };
        const a = (await c.query(`SELECT result, count(*) AS n, count(DISTINCT row_id) FILTER (WHERE row_id LIKE 'o%') AS orphans
                                    FROM ${table} GROUP BY result`)).rows;
        const out = { total: 0, applied: 0, distinctOrphans: 0, other: {} };
        for (const x of a) {
          out.total += Number(x.n);
          if (x.result === 'applied') {
            out.applied = Number(x.n);
            out.distinctOrphans = Number(x.orphans);
          } else out.other[x.result] = Number(x.n);
        }
        return out;
      };
      const ours = await audit(contender.startsWith('reclaim') ? 'reclaim.audit' : 'peer_audit');
      const theirs = await audit(contender.startsWith('reclaim') ? 'peer_audit' : 'reclaim.audit');
      if (ours.applied !== n || ours.distinctOrphans !== n || ours.total !== n) {
        problems.push(`audit: ${fmt(ours.total)} rows, ${fmt(ours.applied)} applied for ${fmt(ours.distinctOrphans)} orphans (expected exactly one applied row per orphan, ${fmt(n)})` +
          `${Object.keys(ours.other).length ? `; other results ${JSON.stringify(ours.other)}` : ''}`);
      }
      if (theirs.total) problems.push(`the other contender's audit table has ${theirs.total} rows: the copy was not fresh`);
      this.lastAudit = ours;
    } finally {
      await c.end();
    }

    // Redis: every orphan's job (all of them by raw reads, a sample through bullmq), the healthy ones.
    const r = await this.b.redis(DB.run);
    const { opts } = common.redisOptions(this.b.redisUrl(DB.run));
    const q = new Queue(QUEUE, { connection: opts, prefix: 'bull', skipMetasUpdate: true });
    try {
      const wait = new Set(await r.lrange(`bull:${QUEUE}:wait`, 0, -1));
      const expectedWait = requeue ? n + healthy : healthy;
      if (wait.size !== expectedWait) problems.push(`the wait list holds ${fmt(wait.size)} jobs, expected ${fmt(expectedWait)}`);
      let missing = 0;
      let wrongData = 0;
      let present = 0;
      for (let i0 = 0; i0 < n; i0 += 1000) {
        const p = r.pipeline();
        const ids = [];
        for (let i = i0; i < Math.min(n, i0 + 1000); i++) {
          ids.push(i);
          p.hmget(`bull:${QUEUE}:${jobIdOf(rowId('o', i))}`, 'name', 'data');
        }
        const res = await p.exec();
        res.forEach(([err, [name, data]], k) => {
          if (err) throw err;
          const i = ids[k];
          if (!requeue) {
            if (name !== null || data !== null) present++;
            return;
          }
          if (!wait.has(jobIdOf(rowId('o', i)))) missing++;
          else if (name !== JOB_NAME || data === null || canon(JSON.parse(data)) !== canon(payloadOf(7, 'o', i))) wrongData++;
        });
      }
      if (missing) problems.push(`${fmt(missing)} orphans have no job waiting`);
      if (wrongData) problems.push(`${fmt(wrongData)} orphans' jobs do not carry exactly their payload (or the job name ${JOB_NAME})`);
      if (present) problems.push(`${fmt(present)} orphans have a job after FAIL actions`);
      const step = Math.max(1, Math.floor(n / this.size.verifySample));
      if (requeue) {
        for (let i = 0; i < n; i += step) {
          const id = rowId('o', i);
          const job = await q.getJob(jobIdOf(id));
          const state = job ? await job.getState() : null;
          if (!job || state !== 'waiting' || job.name !== JOB_NAME || canon(job.data) !== canon(payloadOf(7, 'o', i))) {
            problems.push(`bullmq reads orphan ${id} as ${job ? `${state} ${job.name} ${JSON.stringify(job.data).slice(0, 80)}` : 'missing'}`);
            break;
          }
        }
      }
      const counts = await q.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed', 'paused');
      const extra = Object.entries(counts).filter(([k, x]) => k !== 'wait' && x);
      if (counts.wait !== expectedWait || extra.length) problems.push(`bullmq counts ${JSON.stringify(counts)}, expected ${fmt(expectedWait)} waiting and nothing else`);
      let healthyMissing = 0;
      for (let i = 0; i < healthy; i++) if (!wait.has(jobIdOf(rowId('h', i)))) healthyMissing++;
      if (healthyMissing) problems.push(`${fmt(healthyMissing)} healthy jobs are no longer waiting`);
      for (const s of this.healthySample) {
        const now = await r.hgetall(`bull:${QUEUE}:${jobIdOf(s.id)}`);
        if (canon(now) !== canon(s.hash)) {
          problems.push(`healthy job ${jobIdOf(s.id)} changed`);
          break;
        }
      }
      this.lastMeta = await r.hget(`bull:${QUEUE}:meta`, 'version');
    } finally {
      await q.close();
      r.disconnect();
    }
    return problems;
  }

  async fingerprintWith(c) {
    const r = await c.query(`SELECT
        (SELECT md5(string_agg(concat_ws('|', id, status, "updatedAt"::text, type, payload::text, "parentId", progress, error), ',' ORDER BY id))
           FROM "IncidentJob" WHERE id LIKE 'h%') AS healthy_rows,
        (SELECT md5(string_agg(concat_ws('|', id, status, "updatedAt"::text), ',' ORDER BY id)) FROM "IncidentBatch" WHERE id LIKE 'bh%') AS healthy_parents,
        (SELECT md5(string_agg(concat_ws('|', id, status, "updatedAt"::text), ',' ORDER BY id)) FROM "IncidentBatch" WHERE id LIKE 'bo%') AS orphan_parents`);
    return r.rows[0];
  }

  // ---------------------------------------------------------------- the measurement

  /**
   * One contender's run from a fresh copy, verified. Timed runs have no statement log; a counted
   * run (`counted`) is the same run with it, for its PostgreSQL round trips only.
   */
  async contender(v, name, cfg, counted = false) {
    await this.freshCopy(counted);
    // The approval is measured alone: the hold before it is the daemon's run, not on-call's wait.
    const hold = name === 'reclaim-approve' ? await this.holdForApproval(v, cfg) : null;
    const before = await this.countersBefore(counted);
    let m;
    if (name === 'reclaim') m = await this.runReclaim(v, cfg);
    else if (hold) m = await this.runApproval(v, cfg, hold);
    else m = await this.runPeer(v, name === 'peer-serial' ? 1 : 64);
    const counters = await this.countersAfter(before);
    const problems = await this.verify(v, name);
    const { n, healthy } = this.template;
    const x = {
      contender: name, counted, wallMs: m.wallMs, rowsPerSecond: n / (m.wallMs / 1000), peakRssKiB: m.peakRssKiB,
      redisRoundTrips: m.redisRoundTrips, redisServerCommands: counters.redisServerCommands,
      pgRoundTrips: counters.pgRoundTrips, pgRoundTripsByKind: counters.pgRoundTripsByKind, pgStatements: counters.pgStatements, audit: this.lastAudit, metaVersionAfter: this.lastMeta, problems,
    };
    if (counters.pgStatementsIncomplete) x.pgStatementsIncomplete = counters.pgStatementsIncomplete;
    for (const k of ['redisRoundTrips', 'redisServerCommands', 'pgRoundTrips', 'pgStatements']) {
      if (typeof x[k] === 'number') x[`${k}Per1000`] = (1000 * x[k]) / n;
    }
    if (m.report) {
      const h = m.report;
      x.reclaim = {
        counts: h.head.counts, phasesMs: h.head.phasesMs, outcome: h.head.outcome, results: h.results, kinds: h.kinds, held: h.held,
        reportBytes: m.reportBytes, candidates: h.candidates,
      };
      const notApplied = Object.entries(h.results).filter(([k]) => k !== 'applied');
      if (notApplied.length || h.held) problems.push(`reclaim's actions: ${JSON.stringify(h.results)}${h.held ? `, ${h.held} held` : ''}`);
      if (h.head.counts.ABSENT !== n || h.head.counts.SCHEDULED !== healthy || h.head.counts.UNKNOWN !== 0) {
        problems.push(`reclaim's verdicts ${JSON.stringify(h.head.counts)}, expected ${healthy} SCHEDULED / ${n} ABSENT / 0 UNKNOWN`);
      }
    }
    if (m.approval) {
      x.approval = m.approval;
      if (m.approval.decisions !== n || m.approval.outcomes.executed !== n) problems.push(`the approval decided ${JSON.stringify(m.approval.outcomes)} of ${m.approval.decisions}, expected ${n} executed`);
    }
    if (m.peer) {
      x.peer = m.peer;
      if (m.peer.recovered !== n || m.peer.scheduled !== healthy || m.peer.candidates !== n + healthy) {
        problems.push(`the peer read ${m.peer.candidates} candidates, recovered ${m.peer.recovered}, left ${m.peer.scheduled} scheduled (expected ${n + healthy}/${n}/${healthy})`);
      }
    }
    this.log(`   ${v.key} ${name}${counted ? ' (counting round trips, statement log on)' : ''}: ${fmt(m.wallMs / 1000, 2)} s, ${fmt(x.rowsPerSecond)} rows/s, peak RSS ${fmt(m.peakRssKiB / MiB, 1)} MiB, ` +
      `per 1,000 actions: Redis ${fmt(x.redisRoundTripsPer1000, 1)}, PG ${fmt(x.pgRoundTripsPer1000, 1)} round trips (${fmt(x.pgStatementsPer1000, 1)} statements)` +
      `${problems.length ? `; PROBLEMS: ${problems.join('; ')}` : '; verified'}`);
    return x;
  }

  async run() {
    const byKey = new Map();
    let built = null;
    const variants = this.size.variants.map(variantOf).filter((v) => !this.only || this.only.includes(v.key));
    if (this.only && !variants.length) throw new Error(`--only ${this.only.join(',')} names no variant (${this.size.variants.map((x) => variantOf(x).key).join(', ')})`);
    for (const v of variants) {
      const { kind, n, parents, healthy } = v;
      const contenders = v.contenders.filter((c) => !this.contenders || this.contenders.includes(c));
      v.contenders = contenders;
      if (built !== `${n}/${healthy}`) {
        const summary = await this.buildTemplate(n, healthy);
        this.results.workloads = this.results.workloads || {};
        this.results.workloads[healthy !== n ? `${n}-of-${n + healthy}` : n] = summary;
        built = `${n}/${healthy}`;
      }
      const cfg = this.config(v);
      this.log(`8. mass recovery ${v.key}: ${contenders.join(', ')}, each from a fresh copy, ${this.size.reps} repetition(s)`);
      const reps = Object.fromEntries(contenders.map((c) => [c, []]));
      for (let rep = 0; rep < this.size.reps; rep++) {
        // Interleaved, and the order rotated per repetition and variant.
        const shift = (rep + this.results.variants.length) % contenders.length;
        const order = [...contenders.slice(shift), ...contenders.slice(0, shift)];
        for (const name of order) reps[name].push(await this.contender(v, name, cfg));
      }
      // Reclaim's PostgreSQL round trips (a target) from one more run of each of its contenders
      // with the statement log; the peers' from pg_stat_statements (each of their statements is
      // one extended-protocol round trip: the pg client binds, and prepares nothing by name).
      const counts = {};
      for (const name of contenders.filter((c) => c.startsWith('reclaim'))) counts[name] = await this.contender(v, name, cfg, true);
      const entry = { key: v.key, kind, orphans: n, healthy, parents, config: path.basename(cfg), contenders: {} };
      for (const name of contenders) {
        const e = medianOf(reps[name]);
        const c = counts[name];
        if (c) {
          for (const k of ['pgRoundTrips', 'pgRoundTripsPer1000', 'pgRoundTripsByKind']) e[k] = c[k];
          e.countedRun = { wallMs: c.wallMs, peakRssKiB: c.peakRssKiB, pgStatements: c.pgStatements };
        } else {
          e.pgRoundTrips = e.pgStatements;
          e.pgRoundTripsPer1000 = e.pgStatementsPer1000;
        }
        entry.contenders[name] = e;
      }
      for (const [name, c] of Object.entries(counts)) reps[name].push(c);
      if (v.console) entry.console = await this.console(v, cfg);
      this.results.variants.push(entry);
      byKey.set(v.key, entry);
      const problems = contenders.flatMap((name) => reps[name].flatMap((x) => x.problems.map((p) => `${v.key} ${name}: ${p}`)));
      if (problems.length) {
        this.results.problems = problems;
        throw new Error(`mass recovery: an outcome is not what it must be: ${problems.slice(0, 4).join('; ')}`);
      }
    }
    await this.b.dropDb(RUN);
    await this.b.dropDb(TPL);
    await this.b.flush(DB.tpl, DB.run);
    if (!this.contenders) this.results.heldPanel = await this.heldPanel();
    this.results.targets = massTargets(this.results);
    return this.results;
  }
}

function median(values) {
  const s = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!s.length) return undefined;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** One contender's repetitions as one: medians of the figures, every sample kept. */
function medianOf(list) {
  const out = Object.assign({}, list[0]);
  for (const k of ['wallMs', 'rowsPerSecond', 'peakRssKiB', 'redisRoundTrips', 'redisServerCommands', 'pgRoundTrips', 'pgStatements',
    'redisRoundTripsPer1000', 'redisServerCommandsPer1000', 'pgRoundTripsPer1000', 'pgStatementsPer1000']) {
    out[k] = median(list.map((x) => x[k]));
  }
  out.peakRssKiB = Math.max(...list.map((x) => x.peakRssKiB));
  out.samples = list.map((x) => ({ wallMs: x.wallMs, peakRssKiB: x.peakRssKiB, redisRoundTrips: x.redisRoundTrips, pgRoundTrips: x.pgRoundTrips, pgStatements: x.pgStatements }));
  return out;
}

/** The report from `reclaim --once --json`, read a line at a time (writeJson puts each candidate and action on a line of its own). */
async function readReport(file) {
  const readline = require('readline');
  const head = {};
  const results = {};
  const kinds = {};
  let held = 0;
  let candidates = 0;
  let state = 'head';
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line0 of rl) {
    const line = line0.trim();
    if (!line || line === '{') continue;
    if (line.startsWith('"domains":[')) {
      state = 'domains';
      continue;
    }
    if (line.startsWith('"actions":[')) {
      state = 'actions';
      continue;
    }
    if (state === 'head') {
      Object.assign(head, JSON.parse(`{${line.replace(/,$/, '')}}`));
    } else if (state === 'domains') {
      if (line.startsWith('{"candidate') || /"verdict"/.test(line)) candidates++;
    } else {
      const text = line.replace(/\]\}$/, '').replace(/,$/, '');
      if (!text || text === ']') continue;
      const a = JSON.parse(text);
      results[a.result] = (results[a.result] || 0) + 1;
      kinds[a.kind] = (kinds[a.kind] || 0) + 1;
      if (a.held) held++;
    }
  }
  return { head, results, kinds, held, candidates };
}

function massTargets(r) {
  const t = [];
  // At smoke size the figures mean nothing, but they are judged the same way (as every other
  // measurement's are): the report says it is a smoke run.
  const add = (id, what, figure, alternative, ratio, target, ok, note = '') => t.push({ id, what, figure, alternative, ratio, target, status: ok === null ? 'info' : ok ? 'met' : 'missed', note });
  for (const v of r.variants) {
    const ours = v.contenders.reclaim;
    const s = v.contenders['peer-serial'];
    const f = v.contenders['peer-64'];
    const label = `${v.kind}${v.parents ? ' + parent rule' : ''}, ${fmt(v.orphans)} orphans${v.healthy !== v.orphans ? ` of ${fmt(v.orphans + v.healthy)} rows` : ''}`;
    if (!s || !f) {
      // Reclaim alone (the large incident): its memory and round trips, no ratio.
      add('8', `peak RSS of reclaim --once (${label})`, `${fmt(ours.peakRssKiB / MiB, 1)} MiB`, '', null, `< ${TARGETS.rssLargeMiB} MiB`,
        ours.peakRssKiB < TARGETS.rssLargeMiB * MiB, `wall ${fmt(ours.wallMs / 1000, 2)} s, ${fmt(ours.rowsPerSecond)} rows recovered/s`);
      add('8', `  Redis round trips per 1,000 actions (${label})`, fmt(ours.redisRoundTripsPer1000, 1), '', null, `≤ ${TARGETS.tripsPer1000}`,
        ours.redisRoundTripsPer1000 <= TARGETS.tripsPer1000);
      add('8', `  PostgreSQL round trips per 1,000 actions (${label})`, fmt(ours.pgRoundTripsPer1000, 1), '', null, `≤ ${TARGETS.tripsPer1000}`,
        typeof ours.pgRoundTripsPer1000 === 'number' ? ours.pgRoundTripsPer1000 <= TARGETS.tripsPer1000 : null);
      if (v.console) {
        const c = v.console;
        add('8', `  console: a ${fmt(c.candidates)}-row report applied, UI thread (${label})`, `${fmt(c.firstApplyUiMs.median, 1)} ms`, '', null,
          `≤ ${TARGETS.consoleApplyMs} ms (20,000 rows before issue 30)`, c.firstApplyUiMs.median <= TARGETS.consoleApplyMs,
          `the call alone ${fmt(c.firstApplyCallMs.median, 1)} ms; the same rows again ${fmt(c.refreshApplyUiMs.median, 1)} ms; rows built off the UI thread in ${fmt(c.rowsBuildOffUiMs.median, 1)} ms`);
        add('8', `  console: longest UI-thread stall while its own run is in flight and shown (${label})`, `${fmt(c.maxStallWithApplyMs.median, 1)} ms`, '', null,
          `≤ ${TARGETS.consoleStallMs} ms`, c.maxStallWithApplyMs.median <= TARGETS.consoleStallMs,
          `before the report arrived ${fmt(c.maxStallDuringRunMs.median, 1)} ms; a 5 ms timer alone on the machine ${fmt(c.idleProbe.maxStallMs, 1)} ms`);
      }
      continue;
    }
    add('8', `mass recovery (${label}): rows recovered/s vs the peer one job at a time`, fmt(ours.rowsPerSecond), `${fmt(s.rowsPerSecond)}/s`,
      ours.rowsPerSecond / s.rowsPerSecond, `≥ ${TARGETS.vsSerial}×`, ours.rowsPerSecond / s.rowsPerSecond >= TARGETS.vsSerial,
      `wall ${fmt(ours.wallMs / 1000, 2)} s vs ${fmt(s.wallMs / 1000, 2)} s`);
    add('8', `  vs the peer with 64 jobs in flight (${label})`, fmt(ours.rowsPerSecond), `${fmt(f.rowsPerSecond)}/s`,
      ours.rowsPerSecond / f.rowsPerSecond, `≥ ${TARGETS.vsInFlight}×`, ours.rowsPerSecond / f.rowsPerSecond >= TARGETS.vsInFlight,
      `wall ${fmt(ours.wallMs / 1000, 2)} s vs ${fmt(f.wallMs / 1000, 2)} s`);
    const a = v.contenders['reclaim-approve'];
    if (a) {
      add('8', `  held by the default guard, then approved (\`--approve --domain\`, ${label}): rows/s vs the peer one at a time`, fmt(a.rowsPerSecond), `${fmt(s.rowsPerSecond)}/s`,
        a.rowsPerSecond / s.rowsPerSecond, `≥ ${TARGETS.vsSerial}×`, a.rowsPerSecond / s.rowsPerSecond >= TARGETS.vsSerial,
        `the approval's wall ${fmt(a.wallMs / 1000, 2)} s, peak RSS ${fmt(a.peakRssKiB / MiB, 1)} MiB; the hold before it ${fmt(a.approval.holdWallMs / 1000, 2)} s`);
      add('8', `    the approval vs the peer with 64 jobs in flight (${label})`, fmt(a.rowsPerSecond), `${fmt(f.rowsPerSecond)}/s`,
        a.rowsPerSecond / f.rowsPerSecond, `≥ ${TARGETS.vsInFlight}×`, a.rowsPerSecond / f.rowsPerSecond >= TARGETS.vsInFlight);
    }
    add('8', `  peak RSS of reclaim --once (${label})`, `${fmt(ours.peakRssKiB / MiB, 1)} MiB`, `peer ${fmt(s.peakRssKiB / MiB, 1)} / ${fmt(f.peakRssKiB / MiB, 1)} MiB`, null,
      v.orphans >= 100000 ? `< ${TARGETS.rssMiB} MiB` : '', v.orphans >= 100000 ? ours.peakRssKiB < TARGETS.rssMiB * MiB : null);
    add('8', `  Redis round trips per 1,000 actions (${label})`, fmt(ours.redisRoundTripsPer1000, 1),
      `peer ${fmt(s.redisRoundTripsPer1000)} / ${fmt(f.redisRoundTripsPer1000)}`, null, `≤ ${TARGETS.tripsPer1000}`, ours.redisRoundTripsPer1000 <= TARGETS.tripsPer1000,
      `server-side command executions (scripts' included) per 1,000: ${fmt(ours.redisServerCommandsPer1000, 1)} vs ${fmt(s.redisServerCommandsPer1000)}`);
    add('8', `  PostgreSQL round trips per 1,000 actions (${label})`, fmt(ours.pgRoundTripsPer1000, 1),
      `peer ${fmt(s.pgRoundTripsPer1000)} / ${fmt(f.pgRoundTripsPer1000)}`, null, `≤ ${TARGETS.tripsPer1000}`,
      typeof ours.pgRoundTripsPer1000 === 'number' ? ours.pgRoundTripsPer1000 <= TARGETS.tripsPer1000 : null,
      `statements (pg_stat_statements) per 1,000: ${fmt(ours.pgStatementsPer1000, 1)} vs ${fmt(s.pgStatementsPer1000)}`);
  }
  if (r.heldPanel) {
    const h = r.heldPanel;
    add('8', `console: Held for approval, ${fmt(h.held)} held actions listed, UI thread`, `${fmt(h.listingUiMs.median, 1)} ms`, '', null, '', null,
      `the call alone ${fmt(h.listingCallMs.median, 1)} ms`);
    add('8', `  console: the ${fmt(h.held)} decisions of approving them all shown, UI thread (bursts of 1,000)`, `${fmt(h.decisionsUiMs.median, 1)} ms`, '', null, '', null);
    add('8', `  console: longest UI-thread stall over the listing and the decisions`, `${fmt(h.longestStallMs.median, 1)} ms`, '', null,
      `≤ ${TARGETS.consoleStallMs} ms`, h.longestStallMs.median <= TARGETS.consoleStallMs, 'the longest is the listing');
  }
  return t;
}

function massMarkdown(r, mode) {
  const L = [];
  L.push('## 8. Mass recovery (issue 30)', '');
  L.push(`${mode === 'smoke' ? '**Smoke size: the figures mean nothing.** ' : ''}One domain, N QUEUED orphans two hours old with no job in Redis, N healthy QUEUED rows ` +
    'of the same age whose jobs wait in BullMQ, the queue\'s `meta` hash deleted (Redis lost its data; `bullmqIfUnstamped: 6`), the restore query ' +
    '`SELECT payload::text FROM "IncidentJob" WHERE id = :jobId`, `run.guard` raised (maxActions 10,000,000, maxAbsentShare 1.0). Every contender starts from ' +
    'the same freshly built state (`CREATE DATABASE … TEMPLATE`, Redis keys copied), runs in a fresh process, and its outcome is verified in full. ' +
    'Rows/s = orphans ÷ the process\'s wall time. Redis round trips: Reclaim\'s own count (`redisRoundTrips`), the peer\'s commands counted in ioredis ' +
    '(a pipeline once). Timed runs have no statement log. PostgreSQL round trips: Reclaim\'s, from one more run of each of its contenders (verified too) ' +
    'with `log_statement = all` on its database: every simple query (PREPARE/EXECUTE/DEALLOCATE/BEGIN/COMMIT each) and every extended-protocol execute ' +
    'the server logged; the peer\'s, the statements pg_stat_statements counted (its pg client binds every statement: one extended-protocol round trip each). ' +
    'In brackets, the statements pg_stat_statements counted in the timed run (no PREPARE/DEALLOCATE). ' +
    '"Held, then approved" is production\'s path: `reclaim --once` under the default guard holds every action (exit 10, its time not counted), then ' +
    '`reclaim --approve --domain incident --json` approves them all; its wall time, peak RSS and round trips are the approval\'s alone.', '');
  L.push('| variant | contender | wall | rows recovered/s | Reclaim ÷ this | peak RSS | Redis trips /1,000 actions | PG round trips /1,000 (statements) | Redis commands executed /1,000 | verified |',
    '|---|---|---|---|---|---|---|---|---|---|');
  for (const v of r.variants) {
    const ours = v.contenders.reclaim;
    for (const name of CONTENDERS) {
      const x = v.contenders[name];
      if (!x) continue;
      const label = { reclaim: '`reclaim --once`', 'reclaim-approve': 'held by the default guard, then `reclaim --approve --domain` (the approval alone)', 'peer-serial': 'peer, one at a time' }[name] || 'peer, 64 in flight (pool 16)';
      L.push(`| ${v.kind}${v.parents ? ' + parent rule' : ''}, ${fmt(v.orphans)}${v.healthy !== v.orphans ? ` (+ ${fmt(v.healthy)} healthy)` : ''} | ${label} | ${fmt(x.wallMs / 1000, 2)} s | ${fmt(x.rowsPerSecond)} | ` +
        `${name.startsWith('reclaim') ? '' : `${fmt(ours.rowsPerSecond / x.rowsPerSecond, 2)}×`} | ${fmt(x.peakRssKiB / MiB, 1)} MiB | ${fmt(x.redisRoundTripsPer1000, 1)} | ` +
        `${fmt(x.pgRoundTripsPer1000, 1)} (${fmt(x.pgStatementsPer1000, 1)}) | ${fmt(x.redisServerCommandsPer1000, 0)} | ${x.problems.length ? `**no**: ${x.problems.join('; ')}` : 'yes'} |`);
    }
  }
  L.push('');
  L.push('| measurement | Reclaim | the peer | ratio | target | status | notes |', '|---|---|---|---|---|---|---|');
  for (const t of r.targets) {
    L.push(`| ${t.what} | ${t.figure} | ${t.alternative} | ${t.ratio ? `${fmt(t.ratio, 2)}×` : ''} | ${t.target} | ${t.status === 'info' ? '' : `**${t.status}**`} | ${t.note} |`);
  }
  L.push('');
  for (const v of r.variants) {
    const x = v.contenders.reclaim.reclaim;
    const trips = v.contenders.reclaim.pgRoundTripsByKind;
    if (x) {
      L.push(`- ${v.key}: reclaim phases ${Object.entries(x.phasesMs).map(([k, ms]) => `${k} ${fmt(ms)} ms`).join(', ')}; actions ${JSON.stringify(x.results)}; ` +
        `--json report ${fmt(x.reportBytes / 1048576, 1)} MB; PostgreSQL round trips by kind ${trips ? Object.entries(trips).sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${fmt(c)}`).join(', ') : 'not counted'}.`);
    }
  }
  for (const note of r.notes || []) L.push(`- ${note}`);
  L.push('');
  return `${L.join('\n')}\n`;
}

module.exports = { MassBench, massMarkdown, massTargets };
