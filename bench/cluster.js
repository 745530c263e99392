'use strict';
// Measurement 9 (#32 step 5): what a Redis Cluster costs Reclaim. The direct-lookup fixture of
// measurement 2 (one queue, image-render, its wait list holding --wait jobs, 20,000 candidates
// in every runnable state, 17.5 % only under a legacy id) is written twice under one hash-tagged
// prefix, {bull}: into a database of the sandbox's single node, and into the sandbox's 6-node
// cluster (every key of the queue in one slot, so onto the master that serves it). Then
// `reclaim_bench lookup` and `reclaim_bench scan --ids` run against each, interleaved, round
// after round, with the same configuration but for the URL. Targets: the cluster at ≥ 0.6× the
// single node's candidates/s and jobs/s, and ≤ 2 Redis round trips per master touched per 1,000
// candidates (the cluster client counts one per pipeline per node).

const fs = require('fs');
const path = require('path');
const { common, refRequire, D } = require('./workload/common');
const { buildLookup } = require('./workload/build');
const { validate } = require('./workload/validate');

const IORedis = refRequire('ioredis');

const SIZES = {
  full: { candidates: 20000, wait: 50000, rounds: 5, reps: 2 },
  smoke: { candidates: 1000, wait: 1000, rounds: 1, reps: 1 },
};
const PREFIX = '{bull}';
const SINGLE_DB = 11; // measurement 9's database on the single node (run.js's DB map leaves it free)

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function fmt(n, digits = 0) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Number(n).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

class ClusterBench {
  /** `b` is run.js's Bench: its URLs, work directory, configuration writer and bench runner. */
  constructor(b, log) {
    this.b = b;
    this.log = log;
    this.size = SIZES[b.smoke ? 'smoke' : 'full'];
    this.clusterUrl = process.env.RECLAIM_CLUSTER_URL || '';
    this.results = { size: this.size, targets: [], notes: [] };
  }

  /** The master serving the queue's slot, as a plain redis:// URL, asked of the first seed. */
  async owner() {
    const seed = /^redis\+cluster:\/\/([^,/]+)/.exec(this.clusterUrl);
    if (!seed) throw new Error(`RECLAIM_CLUSTER_URL is not a redis+cluster:// URL: ${this.clusterUrl}`);
    const [host, port] = seed[1].split(':');
    const r = new IORedis({ host, port: Number(port), lazyConnect: true, retryStrategy: () => null });
    r.on('error', () => {});
    await r.connect();
    try {
      const slot = await r.cluster('KEYSLOT', `${PREFIX}:image-render:wait`);
      for (const [first, last, [h, p]] of await r.cluster('SLOTS')) {
        if (slot >= first && slot <= last) return { url: `redis://${h}:${p}/0`, slot, master: `${h}:${p}` };
      }
    } finally {
      r.disconnect();
    }
    throw new Error('no master serves the queue\'s slot');
  }

  async flushUrl(url) {
    const { opts } = common.redisOptions(url);
    const r = new IORedis(Object.assign({}, opts, { lazyConnect: true, retryStrategy: () => null }));
    r.on('error', () => {});
    await r.connect();
    await r.flushdb();
    r.disconnect();
  }

  /** The lookup fixture under {bull} at `url`; both builds use the same seed, so the same jobs. */
  async fixture(name, url) {
    await this.flushUrl(url);
    const ids = this.b.file(`cluster-${name}.ids`);
    const summary = await buildLookup({ seed: 7, samples: this.b.smoke ? 3 : undefined, redis: url, prefix: PREFIX, candidates: this.size.candidates, wait: this.size.wait, ids });
    const problems = await validate(url, summary);
    if (problems.length) throw new Error(`bullmq does not read the ${name} fixture as written: ${problems.slice(0, 3).join(' | ')}`);
    return { ids, summary };
  }

  config() {
    const sample = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'resources', 'reclaim.sample.json'), 'utf8'));
    sample.connections = { postgresUrl: 'postgresql://reclaim@127.0.0.1/reclaim', redisUrl: 'redis://127.0.0.1/0' };
    sample.run = Object.assign({}, sample.run, { lockKey: `${PREFIX}:lock:job-recovery` });
    sample.domains = sample.domains.filter((d) => d.name === 'image').map((d) => Object.assign({}, d, { keyPrefix: PREFIX, queues: ['image-render'] }));
    const f = this.b.file('cluster.json');
    fs.writeFileSync(f, `${JSON.stringify(sample, null, 2)}\n`);
    return f;
  }

  async run() {
    if (!this.clusterUrl) {
      this.results.notes.push('no RECLAIM_CLUSTER_URL (tools/sandbox without --cluster): measurement 9 skipped');
      return this.results;
    }
    const owner = await this.owner();
    this.log(`9. cluster vs single node: fixtures (wait list ${this.size.wait}, ${this.size.candidates} candidates) on db ${SINGLE_DB} and on ${owner.master} (slot ${owner.slot})`);
    const single = await this.fixture('single', this.b.redisUrl(SINGLE_DB));
    const cluster = await this.fixture('cluster', owner.url);
    const same = fs.readFileSync(single.ids, 'utf8') === fs.readFileSync(cluster.ids, 'utf8');
    if (!same) throw new Error('the two fixtures hold different candidates');
    const cfg = this.config();
    const urls = { single: this.b.redisUrl(SINGLE_DB), cluster: this.clusterUrl };
    const samples = { lookup: { single: [], cluster: [] }, scan: { single: [], cluster: [] } };
    for (let round = 0; round < this.size.rounds; round++) {
      for (const where of round % 2 ? ['cluster', 'single'] : ['single', 'cluster']) {
        const env = { RECLAIM_REDIS_URL: urls[where] };
        samples.lookup[where].push(await this.b.bench(['lookup', '--config', cfg, '--ids', single.ids, '--reps', String(this.size.reps)], env));
        samples.scan[where].push(await this.b.bench(['scan', '--config', cfg, '--ids', single.ids, '--reps', String(this.size.reps)], env));
      }
    }
    const expected = single.summary.direct;
    for (const where of ['single', 'cluster']) {
      for (const x of samples.lookup[where]) if (x.scheduled !== expected) throw new Error(`${where}: the lookup found ${x.scheduled} runnable candidates, the fixture has ${expected}`);
    }
    const pick = (list, key) => median(list.flatMap((x) => x.seconds.samples).map((s) => (key === 'lookup' ? list[0].candidates : list[0].jobsRead) / s));
    const trips = (list) => median(list.flatMap((x) => x.roundTripsPer1000.samples));
    const r = this.results;
    r.fixture = { waitLength: single.summary.waitLength, candidates: single.summary.candidates, direct: expected, master: owner.master, slot: owner.slot };
    r.lookup = {
      single: { candidatesPerSecond: pick(samples.lookup.single, 'lookup'), roundTripsPer1000: trips(samples.lookup.single) },
      cluster: { candidatesPerSecond: pick(samples.lookup.cluster, 'lookup'), roundTripsPer1000: trips(samples.lookup.cluster) },
    };
    r.scan = {
      single: { jobsPerSecond: pick(samples.scan.single, 'scan'), jobsRead: samples.scan.single[0].jobsRead, found: samples.scan.single[0].foundByScan },
      cluster: { jobsPerSecond: pick(samples.scan.cluster, 'scan'), jobsRead: samples.scan.cluster[0].jobsRead, found: samples.scan.cluster[0].foundByScan },
    };
    if (r.scan.single.found !== r.scan.cluster.found) throw new Error(`the scan found ${r.scan.single.found} on one node and ${r.scan.cluster.found} on the cluster`);
    r.samples = samples;
    r.targets = clusterTargets(r);
    return r;
  }
}

function clusterTargets(r) {
  if (!r.lookup) return [];
  const rows = [];
  const add = (id, what, figure, alternative, rat, target, ok) => rows.push({ id, what, figure, alternative, ratio: rat, target, status: ok ? 'met' : 'missed' });
  const l = r.lookup;
  const lr = l.cluster.candidatesPerSecond / l.single.candidatesPerSecond;
  add('9a', 'direct lookup on the cluster: candidates/s', fmt(l.cluster.candidatesPerSecond), `${fmt(l.single.candidatesPerSecond)}/s on one node`, lr, '≥ 0.6× one node', lr >= 0.6);
  const s = r.scan;
  const sr = s.cluster.jobsPerSecond / s.single.jobsPerSecond;
  add('9b', 'scan on the cluster: jobs/s', fmt(s.cluster.jobsPerSecond), `${fmt(s.single.jobsPerSecond)}/s on one node`, sr, '≥ 0.6× one node', sr >= 0.6);
  // The fixture's queue lives on one master: one master touched.
  add('9c', 'lookup round trips per 1,000 candidates on the cluster (1 master touched)', fmt(l.cluster.roundTripsPer1000, 2), `${fmt(l.single.roundTripsPer1000, 2)} on one node`, null, '≤ 2 per master touched', l.cluster.roundTripsPer1000 <= 2);
  return rows;
}

function clusterMarkdown(r, mode) {
  const lines = ['## 9. Redis Cluster against one node (#32 step 5)', ''];
  if (mode === 'smoke') lines.push('**Smoke run (tiny sizes; the figures mean nothing).**', '');
  for (const n of r.notes || []) lines.push(`- ${n}`);
  if (!r.lookup) return `${lines.join('\n')}\n`;
  lines.push(
    `The lookup fixture (wait list ${fmt(r.fixture.waitLength)}, ${fmt(r.fixture.candidates)} candidates, ${fmt(r.fixture.direct)} runnable by direct lookup) ` +
      `under the prefix \`${PREFIX}\`, once in a database of the single node and once in the cluster (slot ${r.fixture.slot}, on ${r.fixture.master}); ` +
      `the same configuration but for the URL, ${r.size.rounds} interleaved round(s) of ${r.size.reps} repetition(s) each.`, '',
    '| figure | one node | cluster | cluster / one node | target | status |', '|---|---|---|---|---|---|',
    `| direct lookup, candidates/s | ${fmt(r.lookup.single.candidatesPerSecond)} | ${fmt(r.lookup.cluster.candidatesPerSecond)} | ${fmt(r.lookup.cluster.candidatesPerSecond / r.lookup.single.candidatesPerSecond, 2)}× | ≥ 0.6× | ${r.targets[0].status} |`,
    `| scan, jobs/s (${fmt(r.scan.cluster.jobsRead)} jobs read, ${fmt(r.scan.cluster.found)} found) | ${fmt(r.scan.single.jobsPerSecond)} | ${fmt(r.scan.cluster.jobsPerSecond)} | ${fmt(r.scan.cluster.jobsPerSecond / r.scan.single.jobsPerSecond, 2)}× | ≥ 0.6× | ${r.targets[1].status} |`,
    `| lookup round trips per 1,000 candidates | ${fmt(r.lookup.single.roundTripsPer1000, 2)} | ${fmt(r.lookup.cluster.roundTripsPer1000, 2)} | | ≤ 2 per master touched (1) | ${r.targets[2].status} |`,
    '');
  return `${lines.join('\n')}\n`;
}

module.exports = { ClusterBench, clusterMarkdown, clusterTargets, D };
