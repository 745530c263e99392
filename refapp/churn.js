#!/usr/bin/env node
'use strict';
// A busy BullMQ deployment for the moving-queue test (#13): a queue kept at about --size jobs
// while real workers take, promote and complete them continuously, with healthy candidate jobs
// spread over every state BullMQ has, each moving through states the whole time.
//
//   node refapp/churn.js --queue Q [--redis URL] [--size N] [--concurrency C] [--candidates K]
//
// Candidates (row ids "cj_<n>", payload {jobId: row id}), K of each kind:
//   direct-cycling   id "<Q>-cj_n": taken by a worker, held 200-1200 ms, moved to delayed for
//                    200-1500 ms, promoted to wait, taken again ... (never finishes)
//   legacy-cycling   the same under an id no template builds ("old-cj_n"): only a scan finds it
//   legacy-priority  like legacy-cycling, with a priority (prioritized between turns)
//   legacy-delayed   delayed by an hour: stays in delayed
//   legacy-parent    a flow parent whose child (in "<Q>-children", no worker) is delayed: it
//                    stays in waiting-children
//   legacy-held      held by a worker for the whole test: active, with a live lock
//   legacy-paused    in "<Q>-paused", a paused queue: waiting (paused)
//   legacy-retrying  taken, held 100-600 ms, failed: retried at once (no backoff) to the head of
//                    wait, taken again ... (never runs out of attempts)
// Filler jobs (payload {filler: n}) make up the rest: 80% plain, 10% delayed 0-3 s, 10% with a
// priority, and 5% of them fail once and are retried; workers complete them at once. A producer
// keeps the queue near --size. Throughout (#28): every --pause-every ms the queue is paused for
// 150 ms and resumed; every --prioritize-every ms a random legacy cycling, priority or retrying
// candidate gets a new priority (0-20) with changePriority (0 moves it back to wait).
// Prints "READY {json}" once the queue is full and the workers run, with the candidates' row
// ids by kind; then "STATS {json}" every second (jobs added and completed, candidate turns).
// Runs until SIGTERM or stdin closes.

const { Queue, Worker, FlowProducer, DelayedError } = require('bullmq');
const { parseArgs, UsageError, redisOptions, makeRng, sleep, runMain } = require('./lib/common');

const KINDS = ['direct-cycling', 'legacy-cycling', 'legacy-priority', 'legacy-delayed', 'legacy-parent', 'legacy-held', 'legacy-paused', 'legacy-retrying'];

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    queue: 'string', redis: 'string', size: 'int', concurrency: 'int', candidates: 'int',
    'pause-every': 'int', 'prioritize-every': 'int',
  });
  if (!args.queue) throw new UsageError('--queue Q is required');
  const size = args.size || 50000;
  const concurrency = args.concurrency || 24;
  const perKind = args.candidates || 8;
  const { opts } = redisOptions(args.redis || process.env.RECLAIM_REDIS_URL);
  const rng = makeRng(13);
  const name = args.queue;
  const queue = new Queue(name, { connection: opts });
  const paused = new Queue(`${name}-paused`, { connection: opts });
  const children = new Queue(`${name}-children`, { connection: opts });
  const flows = new FlowProducer({ connection: opts });
  const stats = { added: 0, completed: 0, turns: 0, promotedBack: 0, retries: 0, pauses: 0, priorityChanges: 0 };

  // Candidates first, so that fillers surround them in every structure.
  const rows = {};
  let n = 0;
  const candidate = () => `cj_${++n}`;
  for (const kind of KINDS) rows[kind] = [];
  await paused.pause();
  for (let i = 0; i < perKind; ++i) {
    let row = candidate();
    rows['direct-cycling'].push(row);
    await queue.add('work', { jobId: row, cycle: true }, { jobId: `${name}-${row}` });
    row = candidate();
    rows['legacy-cycling'].push(row);
    await queue.add('work', { jobId: row, cycle: true }, { jobId: `old-${row}` });
    row = candidate();
    rows['legacy-priority'].push(row);
    await queue.add('work', { jobId: row, cycle: true }, { jobId: `old-${row}`, priority: rng.int(1, 20) });
    row = candidate();
    rows['legacy-delayed'].push(row);
    await queue.add('work', { jobId: row }, { jobId: `old-${row}`, delay: 3600 * 1000 });
    row = candidate();
    rows['legacy-parent'].push(row);
    await flows.add({
      name: 'work', queueName: name, data: { jobId: row }, opts: { jobId: `old-${row}` },
      children: [{ name: 'child', queueName: `${name}-children`, data: { child: row }, opts: { delay: 3600 * 1000 } }],
    });
    row = candidate();
    rows['legacy-paused'].push(row);
    await paused.add('work', { jobId: row }, { jobId: `old-${row}` });
    row = candidate();
    rows['legacy-retrying'].push(row);
    await queue.add('work', { jobId: row, retry: true }, { jobId: `old-${row}`, attempts: 1000000 });
  }
  // The held ones go last into wait (the tail is taken first): workers pick them up at once.
  for (let i = 0; i < Math.min(perKind, Math.floor(concurrency / 4)); ++i) {
    const row = candidate();
    rows['legacy-held'].push(row);
    await queue.add('work', { jobId: row, hold: true }, { jobId: `old-${row}`, lifo: true });
  }

  const filler = () => {
    const r = rng.float();
    const o = { removeOnComplete: true };
    if (r < 0.1) o.delay = rng.int(0, 3000);
    else if (r < 0.2) o.priority = rng.int(1, 20);
    const data = { filler: stats.added + 1 };
    if (rng.float() < 0.05) {
      data.failOnce = true;
      o.attempts = 2;
    }
    return { name: 'filler', data, opts: o };
  };
  const fill = async (target) => {
    const counts = await queue.getJobCounts('wait', 'prioritized', 'delayed', 'active');
    let missing = target - (counts.wait + counts.prioritized + counts.delayed + counts.active);
    while (missing > 0) {
      const batch = [];
      for (let i = 0; i < Math.min(missing, 1000); ++i) batch.push(filler());
      await queue.addBulk(batch);
      stats.added += batch.length;
      missing -= batch.length;
    }
  };
  await fill(size);

  const processor = async (job, token) => {
    if (job.data.hold) {
      await sleep(3600 * 1000);
      return 'held';
    }
    if (job.data.retry) {
      await sleep(rng.int(100, 600));
      stats.retries += 1;
      throw new Error('retry me');
    }
    if (job.data.failOnce && job.attemptsMade === 0) {
      stats.retries += 1;
      throw new Error('fail once');
    }
    if (job.data.cycle) {
      await sleep(rng.int(200, 1200));
      stats.turns += 1;
      await job.moveToDelayed(Date.now() + rng.int(200, 1500), token);
      throw new DelayedError();
    }
    stats.completed += 1;
    return 'done';
  };
  const workers = [];
  for (let i = 0; i < 2; ++i) {
    workers.push(new Worker(name, processor, { connection: opts, concurrency: Math.ceil(concurrency / 2) }));
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  process.stdout.write(`READY ${JSON.stringify({ queue: name, rows })}\n`);

  let stopping = false;
  const stop = () => { stopping = true; };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  // The pauser and the prioritizer, each on its own timer while the producer fills.
  const pauseEvery = args['pause-every'] || 0;
  const prioritizeEvery = args['prioritize-every'] || 0;
  const pauser = (async () => {
    while (pauseEvery > 0 && !stopping) {
      await sleep(pauseEvery);
      if (stopping) break;
      await queue.pause();
      await sleep(150);
      await queue.resume();
      stats.pauses += 1;
    }
  })();
  const movable = [...rows['legacy-cycling'], ...rows['legacy-priority'], ...rows['legacy-retrying']];
  const prioritizer = (async () => {
    while (prioritizeEvery > 0 && !stopping) {
      await sleep(prioritizeEvery);
      if (stopping) break;
      const job = await queue.getJob(`old-${movable[rng.int(0, movable.length - 1)]}`);
      if (!job) continue;
      try {
        await job.changePriority({ priority: rng.int(0, 20) });
        stats.priorityChanges += 1;
      } catch (e) {
        // A job that finished in between: nothing to change.
      }
    }
  })();
  let last = Date.now();
  while (!stopping) {
    await fill(size);
    if (Date.now() - last >= 1000) {
      process.stdout.write(`STATS ${JSON.stringify(stats)}\n`);
      last = Date.now();
    }
    await sleep(100);
  }
  await Promise.all([pauser, prioritizer]);
  if (pauseEvery > 0) await queue.resume();
  await Promise.all(workers.map((w) => w.close(true)));
  await Promise.all([queue.close(), paused.close(), children.close(), flows.close()]);
  return 0;
}

runMain('churn', main);
