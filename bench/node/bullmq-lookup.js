#!/usr/bin/env node
'use strict';
// The design note's way to look candidates up, with bullmq's own client: for each candidate,
// Queue.getJob(current id) and, when a job exists, job.getState(). --mode serial awaits each
// candidate before the next (one by one); --mode parallel puts every candidate in flight at once.
//
//   node bench/node/bullmq-lookup.js --redis URL --queue Q --ids FILE --id-template 'image-{id}'
//        --mode serial|parallel|both [--reps N]
// Prints one JSON object per mode (both: serial and parallel alternate within each repetition):
// seconds per repetition, candidates/s, round trips, states seen.

const fs = require('fs');
const { common, refRequire, D } = require('../workload/common');

const { Queue } = refRequire('bullmq');
const RUNNABLE = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

async function lookUp(queue, jobIds, mode) {
  const states = {};
  let trips = 0;
  const one = async (id) => {
    trips++;
    const job = await queue.getJob(id);
    if (!job) return 'missing';
    trips++;
    return job.getState();
  };
  let results;
  if (mode === 'serial') {
    results = [];
    for (const id of jobIds) results.push(await one(id));
  } else {
    results = await Promise.all(jobIds.map(one));
  }
  for (const s of results) states[s] = (states[s] || 0) + 1;
  const runnable = results.filter((s) => RUNNABLE.has(s)).length;
  return { states, trips, runnable };
}

async function main() {
  const args = common.parseArgs(process.argv.slice(2), {
    redis: 'string', queue: 'string', ids: 'string', 'id-template': 'string', mode: 'string', reps: 'int', prefix: 'string',
  });
  for (const k of ['redis', 'queue', 'ids', 'id-template', 'mode']) if (!args[k]) throw new common.UsageError(`--${k} is required`);
  if (!['serial', 'parallel', 'both'].includes(args.mode)) throw new common.UsageError('--mode must be serial, parallel or both');
  const modes = args.mode === 'both' ? ['serial', 'parallel'] : [args.mode];
  const reps = Math.max(1, args.reps || 3);
  const ids = fs.readFileSync(args.ids, 'utf8').split('\n').filter(Boolean);
  const jobIds = ids.map((id) => args['id-template'].replace('{id}', id));
  const { opts } = common.redisOptions(args.redis);
  const queue = new Queue(args.queue, { connection: opts, prefix: args.prefix || D.PREFIX, skipMetasUpdate: true });
  try {
    await queue.waitUntilReady();
    for (const mode of modes) await lookUp(queue, jobIds.slice(0, 200), mode); // warm-up: connection, script loading
    const seconds = Object.fromEntries(modes.map((m) => [m, []]));
    const last = {};
    for (let r = 0; r < reps; r++) {
      for (const mode of modes) {
        const t0 = process.hrtime.bigint();
        last[mode] = await lookUp(queue, jobIds, mode);
        seconds[mode].push(Number(process.hrtime.bigint() - t0) / 1e9);
      }
    }
    for (const mode of modes) {
      const sorted = [...seconds[mode]].sort((a, b) => a - b);
      const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
      process.stdout.write(`${JSON.stringify({
        measure: 'bullmq-lookup', mode, candidates: ids.length,
        seconds: { median, min: sorted[0], max: sorted[sorted.length - 1], samples: seconds[mode] },
        candidatesPerSecond: ids.length / median, roundTripsPer1000: (1000 * last[mode].trips) / ids.length,
        runnable: last[mode].runnable, states: last[mode].states,
      })}\n`);
    }
  } finally {
    await queue.close();
  }
  return 0;
}

common.runMain('bullmq-lookup', main);
