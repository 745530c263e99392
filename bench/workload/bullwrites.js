'use strict';
// Writes BullMQ jobs straight into Redis, key for key and field for field as bullmq 6.7.0's own
// scripts leave them (addStandardJob / addDelayedJob / addPrioritizedJob / addParentJob, then
// moveToActive and moveToFinished for jobs a worker took), so a benchmark can hold hundreds of
// thousands of jobs without running bullmq's producers for minutes. validate.js checks a sample
// through bullmq's own Queue.getJob / Job.getState / Queue.getJobCounts afterwards.
// The writes stream through `redis-cli --pipe` (Redis's documented mass-insertion path); reads
// (the queues' counters before, the delayed head after) go through ioredis.

const { spawn } = require('child_process');

const CHUNK_BYTES = 1 << 20; // RESP bytes handed to redis-cli --pipe at a time
const EVENTS_KEPT = 1000; // newest "added" events written per queue (the stream is capped anyway)
const LOCK_TTL_MS = 6 * 3600 * 1000; // a live worker keeps renewing its lock: it must not lapse mid-benchmark
const SAMPLES_PER_KIND = 12;

const STACK = (reason) => JSON.stringify([`Error: ${reason}\n    at Worker.processFn (/app/dist/worker.js:88:19)\n` +
  '    at Worker.callProcessJob (/app/node_modules/bullmq/dist/cjs/classes/worker.js:199:21)']);

class BullWriter {
  constructor(redis, { prefix, now, url, samplesPerKind = SAMPLES_PER_KIND }) {
    this.redis = redis;
    this.samplesPerKind = samplesPerKind;
    this.prefix = prefix;
    this.now = now;
    this.url = url;
    this.chunk = [];
    this.chunkBytes = 0;
    this.pipe = null;
    this.queues = new Map();
    this.samples = [];
    this.sampleCounts = new Map();
    this.written = 0;
  }

  key(queue, suffix) {
    return `${this.prefix}:${queue}:${suffix}`;
  }

  async queue(name) {
    let q = this.queues.get(name);
    if (q) return q;
    const [[, id], [, pc], [, paused]] = await this.redis.pipeline()
      .get(this.key(name, 'id')).get(this.key(name, 'pc')).hexists(this.key(name, 'meta'), 'paused').exec();
    q = {
      name, id: Number(id || 0), pc: Number(pc || 0), paused: paused === 1, wait: [], active: [], events: [],
      counts: { wait: 0, active: 0, delayed: 0, prioritized: 0, 'waiting-children': 0, completed: 0, failed: 0 },
      delayedSeq: new Map(),
    };
    this.queues.set(name, q);
    return q;
  }

  startPipe() {
    const u = new URL(this.url);
    const args = ['-h', u.hostname || '127.0.0.1', '-p', u.port || '6379', '-n', String(u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0), '--pipe'];
    if (u.username) args.push('--user', decodeURIComponent(u.username));
    const env = Object.assign({}, process.env);
    if (u.password) env.REDISCLI_AUTH = decodeURIComponent(u.password);
    const p = spawn('redis-cli', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.stdin.on('error', () => {});
    this.pipeDone = new Promise((resolve, reject) => {
      p.on('error', reject);
      p.on('close', (code) => {
        const m = /errors: (\d+), replies: (\d+)/.exec(out);
        if (code !== 0 || !m || m[1] !== '0') reject(new Error(`redis-cli --pipe failed (exit ${code}): ${out.trim().split('\n').pop()}`));
        else resolve(Number(m[2]));
      });
    });
    this.pipe = p;
  }

  /** Appends one command in RESP; hands a full chunk to redis-cli, waiting while it is busy. */
  cmd(...args) {
    let s = `*${args.length}\r\n`;
    for (const a of args) {
      const v = String(a);
      s += `$${Buffer.byteLength(v)}\r\n${v}\r\n`;
    }
    this.chunk.push(s);
    this.chunkBytes += s.length;
    if (this.chunkBytes >= CHUNK_BYTES) return this.flush();
    return null;
  }

  flush() {
    if (!this.chunk.length) return null;
    if (!this.pipe) this.startPipe();
    const data = this.chunk.join('');
    this.chunk = [];
    this.chunkBytes = 0;
    if (this.pipe.stdin.write(data)) return null;
    return new Promise((resolve) => this.pipe.stdin.once('drain', resolve));
  }

  /** Ends the stream and waits until redis-cli has every reply (and no error). */
  async drain() {
    await this.flush();
    if (!this.pipe) return;
    this.pipe.stdin.end();
    await this.pipeDone;
    this.pipe = null;
  }

  sample(spec, q, id) {
    const kind = `${spec.queue}/${spec.state}/${spec.legacy ? 'legacy' : 'current'}`;
    const n = this.sampleCounts.get(kind) || 0;
    if (n >= this.samplesPerKind) return;
    this.sampleCounts.set(kind, n + 1);
    this.samples.push({ queue: spec.queue, id, state: spec.state, paused: q.paused, rowId: spec.rowId, name: spec.name, lock: !!spec.lock, parent: spec.parentJob ? spec.parentJob.assignedId : null });
  }

  /** Adds one job (and, for a flow parent, its children) exactly as bullmq would have. */
  async add(spec) {
    const q = await this.queue(spec.queue);
    q.id += 1; // bullmq INCRs the counter for every add, custom id or not
    const id = spec.legacy ? String(q.id) : spec.id;
    spec.assignedId = id;
    const jobKey = this.key(spec.queue, id);
    const ts = this.now - spec.ageMs;
    const opts = {};
    if (!spec.legacy) opts.jobId = id;
    if (spec.parentJob) opts.parent = { id: spec.parentJob.assignedId, queue: `${this.prefix}:${spec.parentJob.queue}` };
    if (spec.state === 'delayed') {
      opts.backoff = { delay: 60000, type: 'exponential' };
      opts.delay = spec.delayMs;
    }
    if (spec.priority) opts.priority = spec.priority;
    opts.attempts = spec.attempts || 0;
    const fields = ['name', spec.name, 'data', spec.data, 'opts', JSON.stringify(opts), 'timestamp', String(ts),
      'delay', String(spec.state === 'delayed' ? spec.delayMs : 0), 'priority', String(spec.priority || 0)];
    if (spec.parentJob) {
      fields.push('parentKey', this.key(spec.parentJob.queue, spec.parentJob.assignedId),
        'parent', JSON.stringify({ id: spec.parentJob.assignedId, queueKey: `${this.prefix}:${spec.parentJob.queue}` }));
    }
    if (spec.state === 'active' || spec.state === 'completed' || spec.state === 'failed') {
      fields.push('processedOn', String(this.now - spec.processedAgeMs), 'ats', '1');
    }
    if (spec.state === 'completed') {
      fields.push('finishedOn', String(this.now - spec.finishedAgeMs), 'atm', '1',
        'returnvalue', JSON.stringify({ ok: true, output: `https://outputs.example.invalid/${spec.queue}/${spec.rowId}` }));
    }
    if (spec.state === 'failed') {
      fields.push('finishedOn', String(this.now - spec.finishedAgeMs), 'atm', '1', 'failedReason', spec.failedReason,
        'stacktrace', STACK(spec.failedReason));
    }
    await this.cmd('hset', jobKey, ...fields);

    switch (spec.state) {
      case 'waiting':
        q.wait.push([spec.ageMs, id]);
        q.counts.wait++;
        break;
      case 'active':
        q.active.push([spec.processedAgeMs, id]);
        q.counts.active++;
        if (spec.lock) await this.cmd('set', `${jobKey}:lock`, `bench-worker-${spec.queue}-${q.id}`, 'px', String(LOCK_TTL_MS));
        break;
      case 'delayed': {
        // getDelayedScore: the due time in the high bits, a tie-breaker in the low 12.
        const due = ts + spec.delayMs;
        const seq = q.delayedSeq.get(due) || 0;
        q.delayedSeq.set(due, seq + 1);
        await this.cmd('zadd', this.key(spec.queue, 'delayed'), String(due * 0x1000 + Math.min(seq, 0xfff)), id);
        q.counts.delayed++;
        break;
      }
      case 'prioritized':
        q.pc += 1;
        await this.cmd('zadd', this.key(spec.queue, 'prioritized'), String(spec.priority * 0x100000000 + q.pc), id);
        q.counts.prioritized++;
        break;
      case 'waiting-children':
        await this.cmd('zadd', this.key(spec.queue, 'waiting-children'), String(ts), id);
        q.counts['waiting-children']++;
        break;
      case 'completed':
      case 'failed':
        await this.cmd('zadd', this.key(spec.queue, spec.state), String(this.now - spec.finishedAgeMs), id);
        q.counts[spec.state]++;
        break;
      default:
        throw new Error(`unknown state ${spec.state}`);
    }
    q.events.push([id, spec.name]);
    if (q.events.length > 2 * EVENTS_KEPT) q.events.splice(0, EVENTS_KEPT);
    this.sample(spec, q, id);
    this.written++;
    for (const child of spec.children || []) {
      await this.add(child);
      await this.cmd('sadd', `${jobKey}:dependencies`, this.key(child.queue, child.assignedId));
    }
  }

  /** Lists in bullmq's order (LPUSH: newest at the head), counters, markers, meta and events. */
  async finish() {
    for (const q of this.queues.values()) {
      const push = async (list, entries) => {
        entries.sort((a, b) => b[0] - a[0]); // oldest first, so it ends up nearest the tail
        for (let i = 0; i < entries.length; i += 1000) {
          await this.cmd('lpush', this.key(q.name, list), ...entries.slice(i, i + 1000).map((e) => e[1]));
        }
      };
      await push('wait', q.wait);
      await push('active', q.active);
      await this.cmd('set', this.key(q.name, 'id'), String(q.id));
      if (q.pc) await this.cmd('set', this.key(q.name, 'pc'), String(q.pc));
      await this.cmd('hsetnx', this.key(q.name, 'meta'), 'opts.maxLenEvents', '10000');
      await this.cmd('hsetnx', this.key(q.name, 'meta'), 'version', 'bullmq:6.7.0');
      if (!q.paused && (q.counts.wait || q.counts.prioritized)) await this.cmd('zadd', this.key(q.name, 'marker'), '0', '0');
      for (const [id, name] of q.events.slice(-EVENTS_KEPT)) {
        await this.cmd('xadd', this.key(q.name, 'events'), 'MAXLEN', '~', '10000', '*', 'event', 'added', 'jobId', id, 'name', name);
      }
      q.wait = [];
      q.active = [];
    }
    await this.drain();
    // addDelayMarkerIfNeeded: the marker carries the next due time of the delayed set.
    for (const q of this.queues.values()) {
      if (!q.counts.delayed) continue;
      const first = await this.redis.zrange(this.key(q.name, 'delayed'), 0, 0, 'WITHSCORES');
      if (first.length === 2) await this.redis.zadd(this.key(q.name, 'marker'), String(Number(first[1]) / 0x1000), '1');
    }
  }

  counts() {
    const out = {};
    for (const q of this.queues.values()) out[q.name] = q.counts;
    return out;
  }
}

module.exports = { BullWriter };
