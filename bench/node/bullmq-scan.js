#!/usr/bin/env node
'use strict';
// The scan with bullmq's own client: for each domain the direct lookup left candidates in, every
// queue and runnable state in reclaim's order, Queue.getJobs pages of 200, matching each job's
// data.jobId against the same unresolved candidates (the file reclaim_bench scan wrote).
//
//   node bench/node/bullmq-scan.js --redis URL --unresolved FILE [--reps N]

const fs = require('fs');
const { common, refRequire } = require('../workload/common');

const { Queue } = refRequire('bullmq');

async function scanOnce(queues, plan) {
  let jobsRead = 0;
  let pages = 0;
  let found = 0;
  for (const d of plan.domains) {
    if (!d.ids.length) continue;
    const wanted = new Set(d.ids);
    for (const name of d.queues) {
      const q = queues.get(`${d.keyPrefix}:${name}`);
      for (const state of plan.scanOrder) {
        for (let start = 0; ; start += plan.pageSize) {
          const jobs = await q.getJobs([state], start, start + plan.pageSize - 1, true);
          pages++;
          jobsRead += jobs.length;
          for (const job of jobs) if (job.data && wanted.delete(String(job.data.jobId))) found++;
          if (jobs.length < plan.pageSize) break;
        }
      }
    }
  }
  return { jobsRead, pages, found };
}

async function main() {
  const args = common.parseArgs(process.argv.slice(2), { redis: 'string', unresolved: 'string', reps: 'int' });
  if (!args.redis || !args.unresolved) throw new common.UsageError('--redis URL and --unresolved FILE are required');
  const reps = Math.max(1, args.reps || 3);
  const plan = JSON.parse(fs.readFileSync(args.unresolved, 'utf8'));
  const { opts } = common.redisOptions(args.redis);
  const queues = new Map();
  for (const d of plan.domains) {
    for (const name of d.queues) {
      const key = `${d.keyPrefix}:${name}`;
      if (!queues.has(key)) queues.set(key, new Queue(name, { connection: opts, prefix: d.keyPrefix, skipMetasUpdate: true }));
    }
  }
  try {
    await scanOnce(queues, { ...plan, domains: plan.domains.map((d) => ({ ...d, ids: d.ids.slice(0, 1) })), scanOrder: plan.scanOrder.slice(0, 1) });
    const seconds = [];
    let last;
    for (let r = 0; r < reps; r++) {
      const t0 = process.hrtime.bigint();
      last = await scanOnce(queues, plan);
      seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const sorted = [...seconds].sort((a, b) => a - b);
    const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    process.stdout.write(`${JSON.stringify({
      measure: 'bullmq-scan', jobsRead: last.jobsRead, pages: last.pages, foundByScan: last.found,
      seconds: { median, min: sorted[0], max: sorted[sorted.length - 1], samples: seconds }, jobsPerSecond: last.jobsRead / median,
    })}\n`);
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
  }
  return 0;
}

common.runMain('bullmq-scan', main);
