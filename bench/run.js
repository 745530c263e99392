#!/usr/bin/env node
'use strict';
// The benchmark driver (tools/bench starts it inside a private sandbox): builds every workload,
// runs every measurement side by side, and writes results/latest.{md,json} and the growth plot.
//
//   node bench/run.js --build-dir DIR --out DIR [--smoke] [--mass [--only VARIANT[,VARIANT]] [--contenders NAME[,NAME]] [--reps N]] [--cluster] [--work DIR]
//
// --cluster runs only measurement 9 (a Redis Cluster against one node, bench/cluster.js; needs
// RECLAIM_CLUSTER_URL, tools/sandbox --cluster) and writes results/cluster.{md,json}; the whole
// benchmark runs it too when a cluster is there.
// --mass runs only measurement 8 (mass recovery, bench/mass.js) and writes results/mass.{md,json};
// the whole benchmark runs it last and writes those beside latest.{md,json}.
// Needs RECLAIM_PG_URL / RECLAIM_REDIS_URL (a sandbox: this creates and drops databases and
// flushes Redis databases 1-15 there; measurement 8 uses 9 and 10). See bench/README.md for what each figure means.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { common, refRequire, REFAPP } = require('./workload/common');
const { psql } = require('./workload/pgload');
const { buildIncident, buildLookup } = require('./workload/build');
const { validate } = require('./workload/validate');
const proc = require('./lib/proc');
const { evaluate, markdown } = require('./lib/report');
const { MassBench, massMarkdown } = require('./mass');
const { ClusterBench, clusterMarkdown } = require('./cluster');

const IORedis = refRequire('ioredis');
const ROOT = path.resolve(__dirname, '..');

const SIZES = {
  full: {
    seederScale: 20,
    main: { candidates: 20000, jobs: 500000, rows: 1000000 },
    direct: { candidates: [10000, 20000, 40000], jobs: [250000, 500000, 1000000] },
    lookup: { candidates: 20000, waits: [5000, 50000, 150000] },
    reps: { query: 5, lookup: 5, bullmq: 3, scan: 3, run: 3, console: 3 },
    auditRows: 100000,
    floorRequests: 100000,
  },
  smoke: {
    seederScale: 1,
    main: { candidates: 200, jobs: 4000, rows: 20000 },
    direct: { candidates: [100, 200, 400], jobs: [2000, 4000, 8000] },
    lookup: { candidates: 1000, waits: [250, 1000, 3000] },
    reps: { query: 1, lookup: 1, bullmq: 1, scan: 1, run: 1, console: 1 },
    auditRows: 2000,
    floorRequests: 2000,
  },
};

const DB = { seed: 15, main: 1, main2j: 2, main2c: 3, d0: 4, d1: 5, d2: 6, d3: 7, d4: 8, lookup: [12, 13, 14] };

const t0 = Date.now();
function log(msg) {
  process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
}

class Bench {
  constructor(args) {
    this.smoke = !!args.smoke;
    this.massOnly = !!args.mass;
    this.clusterOnly = !!args.cluster;
    // --only KEY[,KEY]: only those variants of measurement 8 (for working on one; the report then
    // holds only them, so it is not the one to commit).
    this.massVariants = args.only ? args.only.split(',') : null;
    // --contenders NAME[,NAME] and --reps N: only those contenders of measurement 8, N times each
    // (for working on Reclaim's side: its time against its own earlier runs; not a report to
    // commit either).
    this.massContenders = args.contenders ? args.contenders.split(',') : null;
    this.massReps = args.reps ? Number(args.reps) : null;
    this.size = SIZES[this.smoke ? 'smoke' : 'full'];
    this.build = path.resolve(args['build-dir']);
    this.out = path.resolve(args.out);
    this.work = path.resolve(args.work || path.join(this.build, this.smoke ? 'bench-smoke-work' : 'bench-work'));
    this.benchBin = path.join(this.build, 'bench', 'reclaim_bench');
    this.reclaimBin = path.join(this.build, 'app', 'reclaim');
    this.pgBase = process.env.RECLAIM_PG_URL;
    this.redisBase = process.env.RECLAIM_REDIS_URL;
    if (!this.pgBase || !this.redisBase) throw new common.UsageError('RECLAIM_PG_URL and RECLAIM_REDIS_URL must be set (run inside tools/sandbox)');
    for (const bin of [this.benchBin, this.reclaimBin]) if (!fs.existsSync(bin)) throw new Error(`${bin} is not built`);
    fs.mkdirSync(this.work, { recursive: true });
    fs.mkdirSync(this.out, { recursive: true });
    this.results = {
      mode: this.smoke ? 'smoke' : 'full', startedAt: new Date().toISOString(), host: { cpus: os.cpus().length, loadAverageAtStart: os.loadavg() },
      workloads: {}, query: null, lookup: {}, floors: {}, scan: null, runs: {}, growth: null, apply: null, console: null, audit: null, daemon: null,
      mass: null, cluster: null,
    };
  }

  pgUrl(db) {
    const u = new URL(this.pgBase);
    u.pathname = `/${db}`;
    return u.toString();
  }

  redisUrl(n) {
    const u = new URL(this.redisBase);
    u.pathname = `/${n}`;
    return u.toString();
  }

  file(name) {
    return path.join(this.work, name);
  }

  async redis(n) {
    const { opts } = common.redisOptions(this.redisUrl(n));
    const r = new IORedis(Object.assign({}, opts, { lazyConnect: true, retryStrategy: () => null }));
    r.on('error', () => {});
    await r.connect();
    return r;
  }

  async flush(...dbs) {
    for (const n of dbs) {
      const r = await this.redis(n);
      await r.flushdb();
      r.disconnect();
    }
  }

  /** Copies every key of Redis database `from` into `to` (values and TTLs). */
  async copyRedis(from, to) {
    const r = await this.redis(from);
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'COUNT', 1000);
      cursor = next;
      if (keys.length) {
        const p = r.pipeline();
        for (const k of keys) p.copy(k, k, 'DB', to, 'REPLACE');
        for (const [err] of await p.exec()) if (err) throw err;
      }
    } while (cursor !== '0');
    r.disconnect();
  }

  async sql(statement) {
    await psql(this.pgBase, `${statement}\n`);
  }

  async dropDb(name) {
    await this.sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE);`);
  }

  async createDb(name, template) {
    await this.dropDb(name);
    await this.sql(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''};`);
  }

  /** A configuration file for one workload (URLs come from the environment, passwords too). */
  config(name, { lookupOnly = false } = {}) {
    const sample = JSON.parse(fs.readFileSync(path.join(ROOT, 'resources', 'reclaim.sample.json'), 'utf8'));
    sample.connections = { postgresUrl: 'postgresql://reclaim@127.0.0.1/reclaim', redisUrl: 'redis://127.0.0.1/0' };
    if (lookupOnly) sample.domains = sample.domains.filter((d) => d.name === 'image');
    const f = this.file(`${name}.json`);
    fs.writeFileSync(f, `${JSON.stringify(sample, null, 2)}\n`);
    return f;
  }

  env(pgDb, redisDb) {
    const e = { RECLAIM_REDIS_URL: this.redisUrl(redisDb), QT_QPA_PLATFORM: 'offscreen' };
    if (pgDb) e.RECLAIM_PG_URL = this.pgUrl(pgDb);
    return e;
  }

  bench(args, env, opts = {}) {
    return proc.json(this.benchBin, args, Object.assign({ env }, opts));
  }

  node(script, args, env) {
    return proc.json(process.execPath, [path.join(__dirname, script), ...args], { env });
  }

  /** Builds one workload in this process (several run concurrently); keeps its summary on disk. */
  async workload(mode, args, summaryName) {
    const full = Object.assign({ seed: 7, samples: this.smoke ? 3 : undefined }, args);
    const summary = mode === 'lookup' ? await buildLookup(full) : await buildIncident(full);
    fs.writeFileSync(this.file(`${summaryName}.summary.json`), `${JSON.stringify(summary, null, 1)}\n`);
    return summary;
  }

  /** bullmq's own reading of a sample of what was written (see workload/validate.js). */
  async validate(redisDb, summary, name) {
    const problems = await validate(this.redisUrl(redisDb), summary);
    if (problems.length) throw new Error(`bullmq does not read workload ${name} as written: ${problems.slice(0, 3).join(' | ')}`);
    return `bullmq read ${(summary.samples || []).length} sampled jobs and every queue's counts as written`;
  }

  // ------------------------------------------------------------------------------------------
  // Workloads
  // ------------------------------------------------------------------------------------------

  async buildTemplates() {
    log('migrating a template database');
    await this.createDb('bench_tpl');
    await proc.must(process.execPath, [path.join(REFAPP, 'migrate.js'), '--pg', this.pgUrl('bench_tpl'), '--quiet']);
  }

  async buildMain() {
    const s = this.size;
    const { candidates: C, jobs: J, rows: R } = s.main;
    log(`seeding the scenario base with the reference seeder (scale ${s.seederScale})`);
    await this.createDb('bench_seed', 'bench_tpl');
    await this.flush(DB.seed);
    const manifest = this.file('seed-manifest.json');
    await proc.must(process.execPath, [path.join(REFAPP, 'seed.js'), '--pg', this.pgUrl('bench_seed'), '--redis', this.redisUrl(DB.seed),
      '--scale', String(s.seederScale), '--history-rows', '0', '--manifest', manifest, '--quiet'], { timeoutMs: 600000 });
    await this.createDb('bench_main', 'bench_seed');
    await this.createDb('bench_main2c', 'bench_seed');
    await this.flush(DB.main, DB.main2j, DB.main2c);
    await Promise.all([DB.main, DB.main2j, DB.main2c].map((n) => this.copyRedis(DB.seed, n)));
    const variants = [
      { key: 'main', pg: 'bench_main', redis: DB.main, C, J, part: 'both' },
      { key: 'main2j', pg: 'bench_main', redis: DB.main2j, C, J: 2 * J, part: 'redis' },
      { key: 'main2c', pg: 'bench_main2c', redis: DB.main2c, C: 2 * C, J, part: 'both' },
    ];
    log(`building the 80/20 workloads on top of it: ${variants.map((v) => `${v.key} (${v.C} candidates, ${v.J} jobs)`).join(', ')}; ${R} rows each`);
    const summaries = await Promise.all(variants.map((v) => this.workload('incident', {
      pg: this.pgUrl(v.pg), redis: this.redisUrl(v.redis), candidates: v.C, jobs: v.J, rows: R, part: v.part,
      'seeder-manifest': manifest, 'direct-fraction': '0.8',
    }, v.key)));
    await Promise.all(variants.map(async (v, i) => {
      const summary = summaries[i];
      summary.validation = await this.validate(v.redis, summary, v.key);
      summary.family = '80 % direct / 20 % scan';
      this.results.workloads[v.key] = summary;
    }));
    this.results.workloads.main2j.pg = this.results.workloads.main.pg;
    this.mainConfig = this.config('main');
  }

  async dropMain() {
    await this.flush(DB.seed, DB.main, DB.main2j, DB.main2c);
    for (const d of ['bench_seed', 'bench_main', 'bench_main2c']) await this.dropDb(d);
  }

  // ------------------------------------------------------------------------------------------
  // Measurements
  // ------------------------------------------------------------------------------------------

  async measureQuery() {
    log('1. candidate query: readCandidates with and without index scans, EXPLAIN (ANALYZE, BUFFERS)');
    this.results.query = await this.bench(['query', '--config', this.mainConfig, '--reps', String(this.size.reps.query)],
      this.env('bench_main', DB.main), { ok: [0, 3] });
  }

  async measureScan() {
    log('3. scan: reclaim scanDomain/scanPage against bullmq Queue.getJobs paging, interleaved');
    const unresolved = this.file('unresolved.json');
    const ours = [];
    const theirs = [];
    for (let r = 0; r < this.size.reps.scan; r++) {
      ours.push(await this.bench(['scan', '--config', this.mainConfig, '--reps', '1', '--unresolved-out', unresolved], this.env('bench_main', DB.main)));
      theirs.push(await this.node('node/bullmq-scan.js', ['--redis', this.redisUrl(DB.main), '--unresolved', unresolved, '--reps', '1'], {}));
    }
    this.results.scan = { reclaim: mergeReps(ours, 'jobsPerSecond'), bullmq: mergeReps(theirs, 'jobsPerSecond') };
  }

  async measureRuns(family, variants) {
    log(`4. whole dry runs (${family}), interleaved: ${variants.map((v) => v.key).join(', ')}`);
    const per = {};
    for (const v of variants) per[v.key] = [];
    for (let r = 0; r < this.size.reps.run; r++) {
      for (const v of variants) per[v.key].push(await this.bench(['run', '--config', v.config, ...(v.apply ? ['--apply'] : [])], this.env(v.pg, v.redis)));
    }
    for (const v of variants) {
      const runs = per[v.key];
      for (const x of runs) if (x.outcome !== 'completed') throw new Error(`run of ${v.key} did not complete: ${x.outcomeDetail}`);
      this.results.runs[v.key] = Object.assign(summarizeRuns(runs), { family, candidatesPlanned: v.C, jobsPlanned: v.J });
    }
  }

  async measureConsole() {
    log('5. console: applying a full report, UI-thread stalls during a run');
    this.results.console = await this.bench(['console', '--config', this.mainConfig, '--reps', String(this.size.reps.console), '--idle-ms', this.smoke ? '300' : '2000'],
      this.env('bench_main', DB.main), { timeoutMs: 1800000 });
  }

  async measureAudit() {
    log(`6. console: the audit history over ${this.size.auditRows} audit rows`);
    this.results.audit = await this.bench(['audit', '--config', this.mainConfig, '--rows', String(this.size.auditRows),
      '--reps', String(this.size.reps.console), '--scroll-pages', this.smoke ? '3' : '20', '--idle-ms', this.smoke ? '300' : '2000'],
    this.env('bench_main', DB.main), { timeoutMs: 600000 });
  }

  async measureDaemon() {
    log('idle daemon RSS after its first run');
    const { spawn } = require('child_process');
    const env = Object.assign({}, process.env, this.env('bench_main', DB.main));
    const p = spawn(this.reclaimBin, ['--daemon', '--dry-run', '--config', this.mainConfig, '--log-format', 'json', '--metrics-address', 'off'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let runLine = null;
    const ran = new Promise((resolve, reject) => {
      const onData = (d) => {
        buf += d;
        for (const line of buf.split('\n')) {
          if (/"event"\s*:\s*"run"/.test(line) && !runLine) {
            runLine = line;
            resolve();
          }
        }
        buf = buf.slice(buf.lastIndexOf('\n') + 1);
      };
      p.stdout.on('data', onData);
      p.stderr.on('data', onData);
      p.on('close', (code) => reject(new Error(`the daemon exited (${code}) before its first run finished`)));
      setTimeout(() => reject(new Error('the daemon did not finish a run within 10 minutes')), 600000).unref();
    });
    try {
      await ran;
      const samples = [];
      await sleep(this.smoke ? 300 : 2000);
      for (let i = 0; i < (this.smoke ? 2 : 6); i++) {
        samples.push(statusKiB(p.pid));
        await sleep(this.smoke ? 100 : 500);
      }
      this.results.daemon = {
        idleRssKiB: median(samples.map((s) => s.VmRSS)), samplesKiB: samples.map((s) => s.VmRSS), peakRssKiB: samples[samples.length - 1].VmHWM,
        firstRunLog: JSON.parse(runLine),
      };
    } finally {
      p.kill('SIGTERM');
      await new Promise((resolve) => {
        if (p.exitCode !== null) resolve();
        else p.on('close', resolve);
        setTimeout(() => { p.kill('SIGKILL'); resolve(); }, 30000).unref();
      });
    }
  }

  async measureApply() {
    log('4b. one applying run on the main workload (changes it: last thing done there)');
    const before = this.results.runs.main;
    const applied = await this.bench(['run', '--config', this.mainConfig, '--apply'], this.env('bench_main', DB.main));
    const after = await this.bench(['run', '--config', this.mainConfig], this.env('bench_main', DB.main));
    this.results.apply = { run: applied, dryRunAfter: { candidates: after.candidates, scheduled: after.scheduled, absent: after.absent, unknown: after.unknown }, absentBefore: before.absent };
  }

  async buildAndRunDirect() {
    const s = this.size;
    const R = s.main.rows;
    const [c0, c1, c2] = s.direct.candidates;
    const [j0, j1, j2] = s.direct.jobs;
    const pgFor = this.directDatabases();
    const cfg = this.config('direct');
    const redisVariant = async (key, C, J, n) => {
      await this.flush(n);
      const summary = await this.workload('incident', { redis: this.redisUrl(n), candidates: C, jobs: J, rows: R, 'direct-fraction': '1', part: 'redis' }, key);
      summary.validation = await this.validate(n, summary, key);
      summary.family = 'all found by direct lookup';
      this.results.workloads[key] = summary;
      return { key, C, J, pg: pgFor[C], redis: n, config: cfg };
    };
    // Phase A: the candidates vary at the base queue size.
    log(`building the direct-only workloads: ${s.direct.candidates.join(' / ')} candidates (${R} rows each), ${j1} jobs`);
    const a = await Promise.all([redisVariant('direct_c0', c0, j1, DB.d0), redisVariant('direct_base', c1, j1, DB.d1), redisVariant('direct_c2', c2, j1, DB.d2),
      this.directPg || this.buildDirectPg()]);
    await this.measureRuns('all found by direct lookup', a.slice(0, 3));
    await this.flush(DB.d0, DB.d2);
    // Phase B: the queue size varies with the same candidates (the base kept from phase A).
    log(`building the direct-only workloads: ${c1} candidates, ${j0} / ${j2} jobs`);
    const b = await Promise.all([redisVariant('direct_j0', c1, j0, DB.d3), redisVariant('direct_j2', c1, j2, DB.d4)]);
    await this.measureRuns('all found by direct lookup', [b[0], Object.assign({}, a[1], { key: 'direct_base_b' }), b[1]]);
    await this.flush(DB.d1, DB.d3, DB.d4);
    for (const db of Object.values(pgFor)) await this.dropDb(db);
  }

  directDatabases() {
    const [c0, c1, c2] = this.size.direct.candidates;
    return { [c0]: 'bench_d0', [c1]: 'bench_d1', [c2]: 'bench_d2' };
  }

  /** The direct-only family's job tables (no Redis): one database per candidate count. */
  buildDirectPg() {
    const R = this.size.main.rows;
    return Promise.all(Object.entries(this.directDatabases()).map(async ([C, db]) => {
      await this.createDb(db, 'bench_tpl');
      this.results.workloads[`${db}-pg`] = await this.workload('incident', {
        pg: this.pgUrl(db), candidates: Number(C), jobs: this.size.direct.jobs[1], rows: R, 'direct-fraction': '1', part: 'pg',
      }, `${db}-pg`);
    }));
  }

  async buildLookupFixtures() {
    const s = this.size.lookup;
    this.lookupConfig = this.config('lookup', { lookupOnly: true });
    log(`building the direct-lookup fixtures: wait lists of ${s.waits.join(' / ')} jobs, ${s.candidates} candidates each`);
    this.fixtures = await Promise.all(s.waits.map(async (W, i) => {
      const n = DB.lookup[i];
      await this.flush(n);
      const ids = this.file(`lookup-${W}.ids`);
      const summary = await this.workload('lookup', { redis: this.redisUrl(n), candidates: s.candidates, wait: W, ids }, `lookup-${W}`);
      summary.validation = await this.validate(n, summary, `lookup-${W}`);
      this.results.workloads[`lookup-${W}`] = summary;
      return { W, n, ids, summary };
    }));
  }

  async measureLookup() {
    const cfg = this.lookupConfig;
    for (const f of this.fixtures) {
      log(`2. direct lookup, wait list ${f.W}: reclaim vs bullmq one by one vs all in flight, interleaved`);
      const reps = { reclaim: [], serial: [], parallel: [] };
      const nodeArgs = ['--redis', this.redisUrl(f.n), '--queue', 'image-render', '--ids', f.ids, '--id-template', 'image-{id}', '--reps', '1'];
      for (let r = 0; r < Math.max(this.size.reps.bullmq, 1); r++) {
        reps.reclaim.push(await this.bench(['lookup', '--config', cfg, '--ids', f.ids, '--reps', String(Math.ceil(this.size.reps.lookup / this.size.reps.bullmq))], { RECLAIM_REDIS_URL: this.redisUrl(f.n) }));
        const both = await proc.must(process.execPath, [path.join(__dirname, 'node', 'bullmq-lookup.js'), ...nodeArgs, '--mode', 'both']);
        const [serial, parallel] = both.stdout.trim().split('\n').map((l) => JSON.parse(l));
        reps.serial.push(serial);
        reps.parallel.push(parallel);
      }
      const expected = f.summary.direct;
      for (const x of reps.reclaim) if (x.scheduled !== expected) throw new Error(`reclaim found ${x.scheduled} runnable candidates, the fixture has ${expected}`);
      for (const x of [...reps.serial, ...reps.parallel]) if (x.runnable !== expected) throw new Error(`bullmq found ${x.runnable} runnable candidates, the fixture has ${expected}`);
      this.results.lookup[f.W] = {
        waitLength: f.summary.waitLength, candidates: f.summary.candidates, direct: expected,
        reclaim: mergeReps(reps.reclaim, 'candidatesPerSecond'), bullmqSerial: mergeReps(reps.serial, 'candidatesPerSecond'),
        bullmqParallel: mergeReps(reps.parallel, 'candidatesPerSecond'),
      };
    }
    this.results.floors = await this.floors(this.fixtures[this.fixtures.length - 1]);
    await this.flush(...DB.lookup);
  }

  /**
   * redis-benchmark floors on the same server. The plain commands a candidate costs (PTTL of its
   * lock, HMGET of its hash, ZSCORE in the state its fields point to), each pipelined -P 32 by
   * 50 clients and combined per candidate: what Redis alone does for the same per-candidate
   * commands. Reclaim's own probe script over the fixture's first 1,000 ids, one call at a time:
   * the server's share of a Reclaim lookup, without the client. A trivial EVALSHA for scale.
   */
  async floors(fixture) {
    log('2c. redis-benchmark floors');
    const r = await this.redis(fixture.n);
    const trivial = await r.script('LOAD', 'return 1');
    const probe = await r.script('LOAD', fs.readFileSync(path.join(ROOT, 'core', 'bullmq', 'lua', 'probe.lua'), 'utf8'));
    const samples = JSON.parse(fs.readFileSync(this.file(`lookup-${fixture.W}.summary.json`), 'utf8')).samples;
    r.disconnect();
    const port = new URL(this.redisBase).port;
    const bench = async (label, opts, ...command) => {
      const res = await proc.must('redis-benchmark', ['-h', '127.0.0.1', '-p', port, '--dbnum', String(fixture.n), ...opts, '--csv', ...command]);
      const line = res.stdout.trim().split('\n').pop();
      return { label, requestsPerSecond: Number(line.split('","')[1]) };
    };
    const pipelined = ['-n', String(this.size.floorRequests), '-P', '32', '-c', '50'];
    const q = 'bull:image-render:';
    const delayed = samples.find((x) => x.queue === 'image-render' && x.state === 'delayed' && !/^\d+$/.test(x.id));
    const id = delayed ? delayed.id : 'x';
    const out = { clients: 50, pipeline: 32 };
    out.trivialEvalsha = await bench('EVALSHA return 1', pipelined, 'EVALSHA', trivial, '0');
    out.pttl = await bench('PTTL', pipelined, 'PTTL', `${q}${id}:lock`);
    out.hmget = await bench('HMGET (10 fields)', pipelined, 'HMGET', `${q}${id}`, 'name', 'data', 'timestamp', 'processedOn', 'finishedOn', 'failedReason', 'atm',
      'attemptsMade', 'delay', 'priority');
    out.zscore = await bench('ZSCORE', pipelined, 'ZSCORE', `${q}delayed`, id);
    const perCandidate = 1 / out.pttl.requestsPerSecond + 1 / out.hmget.requestsPerSecond + 1 / out.zscore.requestsPerSecond;
    out.plainCommands = { label: 'PTTL + HMGET + ZSCORE per candidate, -P 32', candidatesPerSecond: 1 / perCandidate };
    const ids = fs.readFileSync(fixture.ids, 'utf8').trim().split('\n').slice(0, 1000).map((x) => `image-${x}`);
    const keys = ['completed', 'failed', 'delayed', 'prioritized', 'waiting-children', 'wait', 'paused', 'active', 'meta'].map((k) => q + k);
    const calls = this.smoke ? 5 : 50;
    const script = await bench('probe.lua, 1,000 ids per call', ['-n', String(calls), '-c', '1', '-P', '1'], 'EVALSHA', probe, '9', ...keys, q, '10000', '16384', ...ids);
    out.probeScript = { label: script.label, ids: ids.length, candidatesPerSecond: script.requestsPerSecond * ids.length };
    return out;
  }

  async runAll() {
    await this.buildTemplates();
    // The lookup fixtures need no seeder: they build while it runs. At smoke size the direct-only
    // tables do too; at full size they wait, so their fresh rows are still fresh when measured.
    if (this.smoke) {
      this.directPg = this.buildDirectPg();
      this.directPg.catch(() => {});
    }
    await Promise.all([this.buildMain(), this.buildLookupFixtures(), this.directPg]);
    const main = { pg: 'bench_main', config: this.mainConfig };
    await this.measureQuery();
    await this.measureScan();
    await this.measureRuns('80 % direct / 20 % scan', [
      Object.assign({ key: 'main', redis: DB.main, C: this.size.main.candidates, J: this.size.main.jobs }, main),
      Object.assign({ key: 'main2c', redis: DB.main2c, C: 2 * this.size.main.candidates, J: this.size.main.jobs }, main, { pg: 'bench_main2c' }),
      Object.assign({ key: 'main2j', redis: DB.main2j, C: this.size.main.candidates, J: 2 * this.size.main.jobs }, main),
    ]);
    await this.measureConsole();
    await this.measureDaemon();
    await this.measureApply();
    await this.measureAudit(); // after the applying run: its audit rows are Reclaim's, these the bench's
    await this.dropMain();
    await this.measureLookup();
    await this.buildAndRunDirect();
    await this.dropDb('bench_tpl');
    await this.measureCluster();
    await this.measureMass();
  }

  /** 9. A Redis Cluster against one node (bench/cluster.js): lookup and scan, interleaved. */
  async measureCluster() {
    const c = new ClusterBench(this, log);
    try {
      this.results.cluster = await c.run();
    } catch (e) {
      this.results.cluster = c.results;
      throw e;
    }
  }

  /** results/cluster.{md,json}: measurement 9 on its own (written by --cluster and the whole run). */
  writeCluster() {
    const r = this.results;
    const c = Object.assign({ mode: r.mode, startedAt: r.startedAt, finishedAt: new Date().toISOString(), host: r.host }, r.cluster);
    fs.writeFileSync(path.join(this.out, 'cluster.json'), `${JSON.stringify(c, null, 1)}\n`);
    const head = `# Reclaim benchmark: Redis Cluster against one node\n\nRun ${c.startedAt} → ${c.finishedAt} on ${c.host.cpus} CPU(s). ` +
      `Produced by \`tools/bench${this.clusterOnly ? ' --cluster' : ''}\`; see bench/README.md, measurement 9.\n\n`;
    fs.writeFileSync(path.join(this.out, 'cluster.md'), head + clusterMarkdown(c, r.mode));
    log(`wrote ${path.join(this.out, 'cluster.md')} and cluster.json`);
  }

  /** 8. Mass recovery (bench/mass.js): Reclaim against the seed-style peer on the incident. */
  async measureMass() {
    const m = new MassBench(this, log);
    m.only = this.massVariants;
    m.contenders = this.massContenders;
    if (this.massReps) m.size = Object.assign({}, m.size, { reps: this.massReps });
    try {
      this.results.mass = await m.run();
    } catch (e) {
      this.results.mass = m.results;
      throw e;
    }
  }

  /** results/mass.{md,json}: measurement 8 on its own (written by --mass and by the whole run). */
  writeMass() {
    const r = this.results;
    const m = Object.assign({ mode: r.mode, startedAt: r.startedAt, finishedAt: new Date().toISOString(), seconds: (Date.now() - t0) / 1000, host: r.host }, r.mass);
    m.host.loadAverageAtEnd = os.loadavg();
    fs.writeFileSync(path.join(this.out, 'mass.json'), `${JSON.stringify(m, null, 1)}\n`);
    const head = `# Reclaim benchmark: mass recovery\n\n${r.mode === 'smoke' ? '**Smoke run (tiny sizes; the figures mean nothing).** ' : ''}Run ${m.startedAt} → ${m.finishedAt} ` +
      `(${m.seconds.toFixed(0)} s) on ${m.host.cpus} CPU(s), load average ${m.host.loadAverageAtStart.map((x) => x.toFixed(1)).join('/')} at the start and ` +
      `${m.host.loadAverageAtEnd.map((x) => x.toFixed(1)).join('/')} at the end. Produced by \`tools/bench${this.massOnly ? ' --mass' : ''}\`; see bench/README.md, measurement 8.\n\n`;
    fs.writeFileSync(path.join(this.out, 'mass.md'), head + massMarkdown(m, r.mode));
    log(`wrote ${path.join(this.out, 'mass.md')} and mass.json`);
    return m;
  }

  /**
   * What the workloads say the runs must have found. A wrong figure here means the benchmark
   * measured something else than it claims, so it stops (and the smoke test fails).
   */
  check() {
    const r = this.results;
    const problems = [];
    const expectRun = (key, workloadKey) => {
      const run = r.runs[key];
      const w = r.workloads[workloadKey];
      if (!run || !w) return;
      const absent = w.seeder && w.seeder.absent ? w.seeder.absent : 0;
      if (run.candidates !== w.counts.candidates) problems.push(`${key}: the run read ${run.candidates} candidates, the workload has ${w.counts.candidates}`);
      if (run.absent !== absent || run.unknown !== 0 || run.scheduled !== w.counts.candidates - absent) {
        problems.push(`${key}: verdicts ${run.scheduled}/${run.absent}/${run.unknown} (S/A/U), the workload implies ${w.counts.candidates - absent}/${absent}/0`);
      }
    };
    expectRun('main', 'main');
    expectRun('main2j', 'main2j');
    expectRun('main2c', 'main2c');
    for (const k of ['direct_c0', 'direct_base', 'direct_c2', 'direct_j0', 'direct_j2']) expectRun(k, k);
    if (r.query && !r.query.allUseCompositeIndex) problems.push('a candidate query plan does not use the composite index');
    if (r.scan && r.scan.reclaim.foundByScan !== r.scan.bullmq.foundByScan) {
      problems.push(`the scan found ${r.scan.reclaim.foundByScan} candidates, bullmq's paging ${r.scan.bullmq.foundByScan}`);
    }
    if (r.apply) {
      const applied = r.apply.run.actions.applied || 0;
      if (applied !== r.apply.absentBefore || r.apply.dryRunAfter.absent !== 0) {
        problems.push(`the applying run applied ${applied} of ${r.apply.absentBefore} actions and left ${r.apply.dryRunAfter.absent} ABSENT`);
      }
    }
    if (r.console && r.console.candidates !== r.runs.main.candidates) problems.push(`the console showed ${r.console.candidates} candidates`);
    if (r.audit && r.audit.auditRows >= 200 && r.audit.open.firstPageRows !== 200) problems.push(`the audit history's first page showed ${r.audit.open.firstPageRows} rows`);
    return problems;
  }

  async write() {
    const r = this.results;
    r.finishedAt = new Date().toISOString();
    r.seconds = (Date.now() - t0) / 1000;
    r.host.loadAverageAtEnd = os.loadavg();
    r.growth = growthOf(r, this.size);
    for (const w of Object.values(r.workloads)) {
      // The sampled jobs stay in the work directory's summaries; the results keep their number.
      if (w.samples) {
        w.sampledJobs = w.samples.length;
        delete w.samples;
      }
    }
    r.targets = evaluate(r).concat(r.mass ? r.mass.targets : [], r.cluster ? r.cluster.targets : []);
    if (r.mass) this.writeMass();
    if (r.cluster) this.writeCluster();
    fs.writeFileSync(path.join(this.out, 'latest.json'), `${JSON.stringify(r, null, 1)}\n`);
    const png = path.join(this.out, 'runtime.png');
    await proc.must(this.benchBin, ['plot', '--in', path.join(this.out, 'latest.json'), '--out', png], { env: { QT_QPA_PLATFORM: 'offscreen' } });
    if (!(fs.statSync(png).size > 1000)) throw new Error(`${png} is empty`);
    fs.writeFileSync(path.join(this.out, 'latest.md'), markdown(r, 'runtime.png') + (r.mass ? `\n${massMarkdown(r.mass, r.mode)}` : '') +
      (r.cluster ? `\n${clusterMarkdown(r.cluster, r.mode)}` : ''));
    log(`wrote ${path.join(this.out, 'latest.md')}, latest.json and runtime.png`);
    return r;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function statusKiB(pid) {
  const out = {};
  for (const line of fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(VmRSS|VmHWM):\s+(\d+)/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** Several single-repetition results of one measurement as one: all samples, the median. */
function mergeReps(list, rateKey) {
  const seconds = list.flatMap((x) => x.seconds.samples);
  const first = list[0];
  const med = median(seconds);
  const units = first.candidates || first.jobsRead;
  const out = Object.assign({}, first, { seconds: { median: med, min: Math.min(...seconds), max: Math.max(...seconds), samples: seconds } });
  out[rateKey] = units / med;
  if (first.roundTripsPer1000 && first.roundTripsPer1000.samples) {
    const trips = list.flatMap((x) => x.roundTripsPer1000.samples);
    out.roundTripsPer1000 = { median: median(trips), samples: trips };
  }
  return out;
}

function summarizeRuns(runs) {
  const pick = (f) => median(runs.map(f));
  const phases = {};
  for (const k of Object.keys(runs[0].phasesMs)) phases[k] = pick((x) => x.phasesMs[k]);
  const trips = {};
  for (const k of Object.keys(runs[0].roundTripsByPhase)) trips[k] = pick((x) => x.roundTripsByPhase[k] || 0);
  return {
    reps: runs.length, wallMs: pick((x) => x.wallMs), wallMsSamples: runs.map((x) => x.wallMs), phasesMs: phases,
    roundTrips: pick((x) => x.roundTrips), roundTripsByPhase: trips, candidates: runs[0].candidates, scheduled: runs[0].scheduled,
    absent: runs[0].absent, unknown: runs[0].unknown, actions: runs[0].actions, domains: runs[0].domains,
    peakRssKiB: Math.max(...runs.map((x) => x.peakRssKiB)), peakRssKiBSamples: runs.map((x) => x.peakRssKiB),
  };
}

function growthOf(r, size) {
  // Each point says which chart it belongs to: "candidates" (queue size at the base), "jobs"
  // (candidates at the base) or "both" (the base itself, measured with both neighbours).
  const point = (key, axis) => {
    const x = r.runs[key];
    if (!x) return null;
    return {
      key, axis, candidates: x.candidatesPlanned, jobs: x.jobsPlanned, runSeconds: x.wallMs / 1000, lookupSeconds: x.phasesMs.lookup / 1000,
      scanSeconds: x.phasesMs.scan / 1000, peakRssKiB: x.peakRssKiB,
    };
  };
  const fam = (name, label, keys) => ({ name, label, points: keys.map(([k, axis]) => point(k, axis)).filter(Boolean) });
  return {
    baseCandidates: size.main.candidates, baseJobs: size.main.jobs,
    families: [
      fam('all found by direct lookup', 'direct only', [['direct_c0', 'candidates'], ['direct_base', 'candidates'], ['direct_c2', 'candidates'],
        ['direct_j0', 'jobs'], ['direct_base_b', 'jobs'], ['direct_j2', 'jobs']]),
      fam('80 % direct / 20 % scan', '80/20, scan runs', [['main', 'both'], ['main2c', 'candidates'], ['main2j', 'jobs']]),
    ],
  };
}

async function main() {
  const args = common.parseArgs(process.argv.slice(2), { 'build-dir': 'string', out: 'string', smoke: 'bool', mass: 'bool', only: 'string', contenders: 'string', reps: 'string', work: 'string', cluster: 'bool' });
  if (!args['build-dir'] || !args.out) throw new common.UsageError('--build-dir DIR and --out DIR are required');
  const b = new Bench(args);
  if (b.clusterOnly) {
    log(`${b.smoke ? 'smoke' : 'full-size'} cluster benchmark only; build ${b.build}; results to ${b.out}`);
    try {
      await b.measureCluster();
    } finally {
      if (b.results.cluster) b.writeCluster();
    }
    const missed = b.results.cluster.targets.filter((t) => t.status === 'missed').length;
    log(`done: ${b.results.cluster.targets.length - missed} target(s) met, ${missed} missed`);
    return 0;
  }
  if (b.massOnly) {
    log(`${b.smoke ? 'smoke' : 'full-size'} mass-recovery benchmark only; build ${b.build}; results to ${b.out}`);
    try {
      await b.measureMass();
    } finally {
      if (b.results.mass) b.writeMass();
    }
    const missed = b.results.mass.targets.filter((t) => t.status === 'missed').length;
    log(`done: ${b.results.mass.targets.filter((t) => t.status === 'met').length} target(s) met, ${missed} missed`);
    return 0;
  }
  log(`${b.smoke ? 'smoke' : 'full-size'} benchmark; build ${b.build}; results to ${b.out}`);
  await b.runAll();
  const problems = b.check();
  b.results.problems = problems;
  const r = await b.write();
  if (problems.length) throw new Error(`the results contradict the workloads: ${problems.join('; ')}`);
  const missed = r.targets.filter((t) => t.status === 'missed').length;
  log(`done in ${r.seconds.toFixed(0)} s: ${r.targets.length - missed} target(s) met, ${missed} missed`);
  return 0;
}

module.exports = { Bench };

if (require.main === module) common.runMain('bench', main);
