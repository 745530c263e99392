#!/usr/bin/env node
'use strict';
// One scenario, run unchanged against any bullmq version: the version is the module directory
// passed with --bullmq (refapp/bullmq-versions/v4, v5, v6, each an npm project pinning the
// latest release of its major). Used by tests/core/test_bullmqversions and bench/.
//
//   node scenario.js --bullmq DIR --redis URL --prefix P --queue Q <command> [flags]
//
// Commands (each prints JSON lines on stdout):
//   produce        makes every state this version can produce on queues Q, Q-paused, Q-live and
//                  Q-killed; prints {"jobs":[{label, queue, id, state}]} (state = the library's
//                  own Job.getState(), read after everything settled), then "SCENARIO READY",
//                  and keeps its live worker holding its active job until SIGTERM.
//   hold           (internal) a Worker on Q that takes one job and never finishes it; prints
//                  "HELD <id>"; `produce` SIGKILLs it to leave an active job without a worker.
//   add            Queue.add of one job: --id ID (optional) --name N --data JSON --opts JSON;
//                  prints {id, state}.
//   work           an unmodified Worker on Q: prints {"event":"blocked"} once its blocking
//                  connection waits in Redis, then {"event":"active"|"completed", id, at} per
//                  job (at = Date.now() when the library emitted it); exits after --count N
//                  completions, or 3 after --timeout-ms.
//                  A job whose data has "fail": true fails (and counts as one of the N).
//   pickup         (bench/) a Worker and a Queue in one process: prints {"event":"blocked"}
//                  whenever its worker waits again in Redis, {"event":"active"|"completed", id,
//                  at} per job, and for every stdin line "add ID" stamps t0 and adds job ID with
//                  Queue.add, printing {"event":"added", id, t0}. Times are wall-clock ms with
//                  sub-ms precision, comparable with another process on the same machine.
//   counts         Queue.getJobCounts() of every state: prints {counts}. Opening the Queue
//                  stamps the queue's meta with this version, as any producer would.
//   pause          Queue.pause(): prints {paused: true}.
//   bulk           Queue.addBulk of --count N jobs named --name N with --data JSON and --opts
//                  JSON: prints {added: N}.
//   take           a Worker's manual getNextJob of --count N jobs, one after the other, each
//                  completed, or failed when its data has "fail": true (a retry or a backoff
//                  follows the job's own attempts): prints {taken: [ids]}.
//   promote        --id ID: Job.promote() of a delayed job (it moves to the head of wait, as a
//                  retry without lifo does): prints {id, state}.
//   retry          --id ID: Job.retry() of a failed job (back to the head of wait): prints
//                  {id, state}.
//   priority       --id ID --priority N: Job.changePriority({priority: N}) (no event is
//                  written): prints {id, state}.
//   state          --id ID: prints {id, state} (Job.getState()).
//   version        prints {version} (the library's own version string).
// Exit 0 on success, 2 on a usage error, 1 when Redis cannot be used.

const path = require('path');
const { spawn } = require('child_process');
const { parseArgs, UsageError, redisOptions, errText } = require('../lib/common');

const HOUR = 3600 * 1000;

function load(dir) {
  const root = path.resolve(dir, 'node_modules', 'bullmq');
  // The raw client for the few direct reads (a lock key, CLIENT LIST): the ioredis this
  // version's bullmq resolves (a dependency up to 5.x, an optional peer pinned beside it in 6.x).
  const IORedis = require(require.resolve('ioredis', { paths: [root] }));
  return { bullmq: require(root), IORedis, version: require(path.join(root, 'package.json')).version };
}

function once(emitter, event, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
    emitter.once(event, (...a) => {
      clearTimeout(t);
      resolve(a);
    });
  });
}

async function until(check, timeoutMs, what) {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Whether a client of this connection's server is blocked in the command a worker waits with
// (BZPOPMIN on the marker from 5.x on, BRPOPLPUSH on the wait list in 4.x).
async function workerBlocked(client) {
  const list = await client.client('LIST');
  return /cmd=(bzpopmin|brpoplpush|blmove)/.test(list);
}

function line(o) {
  process.stdout.write(`${typeof o === 'string' ? o : JSON.stringify(o)}\n`);
}

async function produce(ctx) {
  const { Queue, Worker, FlowProducer } = ctx.bullmq;
  const conn = ctx.connection;
  const prefix = ctx.prefix;
  const name = ctx.queue;
  const queues = {};
  const queue = (n) => (queues[n] = queues[n] || new Queue(n, { connection: conn, prefix }));
  const jobs = [];
  const note = (label, q, id) => jobs.push({ label, queue: q, id: String(id) });

  // Finished jobs first, by a short-lived worker that leaves nothing else active.
  const idle = queue(name);
  note('completed custom id', name, (await idle.add('job', { n: 1 }, { jobId: 'done-c' })).id);
  note('completed auto id', name, (await idle.add('job', { n: 2 })).id);
  note('failed custom id', name, (await idle.add('job', { fail: true }, { jobId: 'fail-c', attempts: 1 })).id);
  const finisher = new Worker(name, async (job) => {
    if (job.data.fail) throw new Error('scenario failure');
    return { ok: true };
  }, { connection: conn, prefix });
  await until(async () => {
    const c = await idle.getJobCounts('completed', 'failed');
    return c.completed === 2 && c.failed === 1;
  }, 20000, 'the finished jobs');
  await finisher.close();

  note('waiting custom id', name, (await idle.add('job', { n: 3 }, { jobId: 'wait-c' })).id);
  note('waiting auto id', name, (await idle.add('job', { n: 4 })).id);
  note('delayed custom id', name, (await idle.add('job', { n: 5 }, { jobId: 'delay-c', delay: HOUR })).id);
  note('delayed auto id', name, (await idle.add('job', { n: 6 }, { delay: HOUR })).id);
  note('prioritized custom id', name, (await idle.add('job', { n: 7 }, { jobId: 'prio-c', priority: 3 })).id);
  note('prioritized auto id', name, (await idle.add('job', { n: 8 }, { priority: 5 })).id);
  const removedC = await idle.add('job', { n: 9 }, { jobId: 'gone-c' });
  await removedC.remove();
  note('removed custom id', name, removedC.id);
  const removedA = await idle.add('job', { n: 10 });
  await removedA.remove();
  note('removed auto id', name, removedA.id);
  note('never added', name, 'never-c');

  // A parent waits for its child; the child is delayed, so nothing finishes it.
  const flows = new FlowProducer({ connection: conn, prefix });
  const tree = await flows.add({
    name: 'parent', queueName: name, data: { n: 11 }, opts: { jobId: 'parent-c' },
    children: [{ name: 'child', queueName: name, data: { n: 12 }, opts: { jobId: 'child-c', delay: HOUR } }],
  });
  note('waiting-children custom id', name, tree.job.id);
  await flows.close();

  // A paused queue.
  const pausedName = `${name}-paused`;
  const paused = queue(pausedName);
  await paused.pause();
  note('paused custom id', pausedName, (await paused.add('job', { n: 13 }, { jobId: 'paused-c' })).id);
  note('paused auto id', pausedName, (await paused.add('job', { n: 14 })).id);

  // Active, held by a live worker that never finishes it.
  const liveName = `${name}-live`;
  const live = queue(liveName);
  let release;
  const held = new Promise((r) => (release = r));
  const liveWorker = new Worker(liveName, () => held, { connection: conn, prefix });
  const liveJob = await live.add('job', { n: 15 }, { jobId: 'live-c' });
  await until(async () => (await live.getJobState(liveJob.id)) === 'active', 20000, 'the live job');
  note('active, live worker', liveName, liveJob.id);

  // Active, its worker SIGKILLed: the lock expires and no stalled check runs on that queue.
  const killedName = `${name}-killed`;
  const killed = queue(killedName);
  const killedJob = await killed.add('job', { n: 16 }, { jobId: 'killed-c' });
  const child = spawn(process.execPath, [__filename, ...ctx.argv, '--queue', killedName, 'hold'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await until(async () => out.includes('HELD'), 20000, 'the holding worker');
  child.kill('SIGKILL');
  const client = ctx.client();
  await until(async () => (await client.exists(`${prefix}:${killedName}:${killedJob.id}:lock`)) === 0, 20000, 'the killed worker\'s lock to expire');
  note('active, worker SIGKILLed (lock expired)', killedName, killedJob.id);

  for (const j of jobs) j.state = await queue(j.queue).getJobState(j.id);
  line({ version: ctx.version, jobs });
  line('SCENARIO READY');
  await new Promise((r) => {
    process.on('SIGTERM', r);
    process.on('SIGINT', r);
  });
  release({ ok: true });
  await liveWorker.close(true).catch(() => {});
  for (const q of Object.values(queues)) await q.close().catch(() => {});
}

async function hold(ctx) {
  const { Worker } = ctx.bullmq;
  // A short lock so that the lock of the job it dies holding expires quickly.
  const w = new Worker(ctx.queue, (job) => {
    line(`HELD ${job.id}`);
    return new Promise(() => {});
  }, { connection: ctx.connection, prefix: ctx.prefix, lockDuration: 1000, stalledInterval: 600000 });
  w.on('error', () => {});
  await new Promise(() => {});
}

async function add(ctx, args) {
  const { Queue } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const opts = args.opts ? JSON.parse(args.opts) : {};
  if (args.id) opts.jobId = args.id;
  const job = await q.add(args.name || 'job', JSON.parse(args.data || '{}'), opts);
  line({ id: job.id, state: await q.getJobState(job.id) });
  await q.close();
}

async function work(ctx, args) {
  const { Worker, Queue } = ctx.bullmq;
  const count = args.count || 1;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const client = ctx.client();
  let done = 0;
  const w = new Worker(ctx.queue, async (job) => {
    if (job.data && job.data.fail) throw new Error('scenario failure');
    return { ok: true };
  }, { connection: ctx.connection, prefix: ctx.prefix, autorun: false });
  w.on('error', (e) => process.stderr.write(`worker: ${errText(e)}\n`));
  w.on('active', (job) => line({ event: 'active', id: job.id, at: Date.now() }));
  const finished = new Promise((resolve) => {
    w.on('completed', (job) => {
      line({ event: 'completed', id: job.id, at: Date.now() });
      if (++done >= count) resolve(0);
    });
    w.on('failed', (job) => {
      line({ event: 'failed', id: job.id, at: Date.now() });
      if (++done >= count) resolve(0);
    });
  });
  w.run().catch((e) => process.stderr.write(`worker: ${errText(e)}\n`));
  await until(() => workerBlocked(client), 20000, 'the worker to block');
  line({ event: 'blocked' });
  const timeout = new Promise((r) => setTimeout(() => r(3), args['timeout-ms'] || 60000));
  const code = await Promise.race([finished, timeout]);
  await w.close().catch(() => {});
  await q.close().catch(() => {});
  return code;
}

async function pickup(ctx) {
  const { Worker, Queue } = ctx.bullmq;
  const { performance } = require('perf_hooks');
  const now = () => performance.timeOrigin + performance.now();
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const client = ctx.client();
  const w = new Worker(ctx.queue, async () => ({ ok: true }), { connection: ctx.connection, prefix: ctx.prefix });
  w.on('error', (e) => process.stderr.write(`worker: ${errText(e)}\n`));
  w.on('active', (job) => line({ event: 'active', id: job.id, at: now() }));
  w.on('completed', (job) => {
    line({ event: 'completed', id: job.id, at: now() });
    until(() => workerBlocked(client), 20000, 'the worker to block').then(() => line({ event: 'blocked' }), () => {});
  });
  await until(() => workerBlocked(client), 20000, 'the worker to block');
  line({ event: 'blocked' });
  const rl = require('readline').createInterface({ input: process.stdin });
  for await (const text of rl) {
    const m = /^add (\S+)$/.exec(text.trim());
    if (!m) continue;
    const t0 = now();
    await q.add('job', { bench: true }, { jobId: m[1] });
    line({ event: 'added', id: m[1], t0 });
  }
  await w.close().catch(() => {});
  await q.close().catch(() => {});
}

async function counts(ctx) {
  const { Queue } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const c = await q.getJobCounts('active', 'completed', 'delayed', 'failed', 'paused', 'prioritized', 'waiting', 'waiting-children');
  line({ counts: c });
  await q.close();
}

async function pause(ctx) {
  const { Queue } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  await q.pause();
  line({ paused: await q.isPaused() });
  await q.close();
}

async function bulk(ctx, args) {
  const { Queue } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const data = JSON.parse(args.data || '{}');
  const opts = args.opts ? JSON.parse(args.opts) : {};
  const jobs = Array.from({ length: args.count || 1 }, () => ({ name: args.name || 'filler', data, opts }));
  await q.addBulk(jobs);
  line({ added: jobs.length });
  await q.close();
}

async function take(ctx, args) {
  const { Worker } = ctx.bullmq;
  const w = new Worker(ctx.queue, null, { connection: ctx.connection, prefix: ctx.prefix, autorun: false });
  w.on('error', (e) => process.stderr.write(`worker: ${errText(e)}\n`));
  const token = `scenario-take-${process.pid}`;
  const taken = [];
  for (let i = 0; i < (args.count || 1); i++) {
    const job = await w.getNextJob(token, { block: false });
    if (!job) break;
    if (job.data && job.data.fail) await job.moveToFailed(new Error('scenario failure'), token, false);
    else await job.moveToCompleted({ ok: true }, token, false);
    taken.push(job.id);
  }
  line({ taken });
  await w.close();
}

// Job.fromId of --id, `move` applied to it, then {id, state} as the library reads it after.
async function moveJob(ctx, args, move) {
  const { Queue, Job } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  const job = await Job.fromId(q, args.id);
  if (!job) throw new Error(`no job ${args.id}`);
  await move(job);
  line({ id: args.id, state: await q.getJobState(args.id) });
  await q.close();
}

const promote = (ctx, args) => moveJob(ctx, args, (job) => job.promote());
const retry = (ctx, args) => moveJob(ctx, args, (job) => job.retry('failed'));
const priority = (ctx, args) => moveJob(ctx, args, (job) => job.changePriority({ priority: args.priority || 0 }));

async function state(ctx, args) {
  const { Queue } = ctx.bullmq;
  const q = new Queue(ctx.queue, { connection: ctx.connection, prefix: ctx.prefix });
  line({ id: args.id, state: await q.getJobState(args.id) });
  await q.close();
}

async function main() {
  const argv = process.argv.slice(2);
  // The command is the one word that is not a flag nor a flag's value (every flag takes one).
  let command;
  const flags = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
      flags.push(argv[i]);
      if (!argv[i].includes('=') && i + 1 < argv.length) flags.push(argv[++i]);
    } else if (command === undefined) {
      command = argv[i];
    } else {
      throw new UsageError(`unexpected argument '${argv[i]}'`);
    }
  }
  const args = parseArgs(flags, {
    bullmq: 'string', redis: 'string', prefix: 'string', queue: 'string', id: 'string', name: 'string',
    data: 'string', opts: 'string', count: 'int', 'timeout-ms': 'int', priority: 'int',
  });
  if (!args.bullmq) throw new UsageError('--bullmq DIR is required');
  if (!args.queue) throw new UsageError('--queue Q is required');
  const { opts } = redisOptions(args.redis || process.env.RECLAIM_REDIS_URL);
  const { bullmq, IORedis, version } = load(args.bullmq);
  let raw = null;
  const client = () => (raw = raw || new IORedis(opts));
  const ctx = { bullmq, version, connection: opts, client, prefix: args.prefix || 'bull', queue: args.queue, argv: flags };
  const commands = { produce, hold, add, work, pickup, counts, pause, bulk, take, promote, retry, priority, state, version: async () => line({ version }) };
  if (!commands[command]) throw new UsageError(`unknown command '${command}'`);
  return (await commands[command](ctx, args)) || 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`scenario: ${errText(e)}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  },
);
