#!/usr/bin/env node
'use strict';
// Proves the bulk-written layout is what bullmq itself reads: every sampled job through
// Queue.getJob (name, data.jobId, parent) and Job.getState (paused queues: bullmq says
// "waiting"), and every queue's Queue.getJobCounts against what was written.
//
//   node bench/workload/validate.js --redis URL --summary FILE
// Prints one PROBLEM line per mismatch and a summary; exit 0 iff there is none.

const fs = require('fs');
const { common, refRequire, D } = require('./common');

const { Queue } = refRequire('bullmq');

/** Checks `summary` (what build.js wrote) against bullmq's view; returns the problems found. */
async function validate(redisUrl, summary) {
  const { opts } = common.redisOptions(redisUrl);
  const problems = [];
  const queues = new Map();
  const queueOf = (name) => {
    if (!queues.has(name)) queues.set(name, new Queue(name, { connection: opts, prefix: summary.prefix || D.PREFIX, skipMetasUpdate: true }));
    return queues.get(name);
  };
  try {
    for (const s of summary.samples || []) {
      const q = queueOf(s.queue);
      const job = await q.getJob(s.id);
      if (!job) {
        problems.push(`${s.queue}/${s.id}: bullmq's getJob found nothing`);
        continue;
      }
      if (job.name !== s.name) problems.push(`${s.queue}/${s.id}: name ${job.name}, wrote ${s.name}`);
      if (!job.data || job.data.jobId !== s.rowId) problems.push(`${s.queue}/${s.id}: data.jobId ${job.data && job.data.jobId}, wrote ${s.rowId}`);
      if (s.parent && (!job.parent || job.parent.id !== s.parent)) problems.push(`${s.queue}/${s.id}: parent ${JSON.stringify(job.parent)}, wrote ${s.parent}`);
      const state = await job.getState();
      if (state !== s.state) problems.push(`${s.queue}/${s.id}: bullmq says ${state}, wrote ${s.state}`);
      if (s.state === 'delayed' && !(job.delay > 0)) problems.push(`${s.queue}/${s.id}: delayed job without a delay`);
    }
    const expected = {};
    for (const src of [summary.redis.seederCounts || {}, summary.redis.bulkCounts || {}]) {
      for (const [queue, c] of Object.entries(src)) {
        const e = expected[queue] || (expected[queue] = {});
        for (const [state, n] of Object.entries(c)) e[state] = (e[state] || 0) + n;
      }
    }
    for (const [queue, e] of Object.entries(expected)) {
      const counts = await queueOf(queue).getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed');
      for (const [state, n] of Object.entries(e)) {
        if ((counts[state] || 0) !== n) problems.push(`${queue}: bullmq counts ${counts[state] || 0} ${state}, expected ${n}`);
      }
    }
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
  }
  return problems;
}

async function main() {
  const args = common.parseArgs(process.argv.slice(2), { redis: 'string', summary: 'string' });
  if (!args.redis || !args.summary) throw new common.UsageError('--redis URL and --summary FILE are required');
  const summary = JSON.parse(fs.readFileSync(args.summary, 'utf8'));
  const problems = await validate(args.redis, summary);
  for (const p of problems) process.stdout.write(`PROBLEM ${p}\n`);
  process.stdout.write(`validate: ${(summary.samples || []).length} sampled jobs, ${problems.length} problem(s)\n`);
  return problems.length ? 1 : 0;
}

module.exports = { validate };

if (require.main === module) common.runMain('validate', main);
