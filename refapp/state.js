#!/usr/bin/env node
'use strict';
// Prints bullmq's own view of one job (or of a queue's counts) as one JSON line.
//
//   node refapp/state.js --queue Q --id ID [--redis URL]
//   node refapp/state.js --queue Q --counts [--redis URL]
//
// For a job: { queue, id, exists, state, queuePaused, effectiveState, name, data, timestamp,
// processedOn, finishedOn, attemptsMade, failedReason, returnvalue, parentKey,
// lock: { present, ttlMs } }. `state` is bullmq's Job.getState() verbatim ('unknown' when there
// is no such job); bullmq reports a job of a paused queue as 'waiting', so `effectiveState`
// says 'paused' in that case and equals `state` otherwise. Exit 0 whether or not the job
// exists; 2 on a usage error, 1 when Redis cannot be read.

const IORedis = require('ioredis');
const { Queue } = require('bullmq');
const { parseArgs, UsageError, redisOptions, errText, runMain } = require('./lib/common');
const { PREFIX } = require('./lib/domains');

async function main() {
  const args = parseArgs(process.argv.slice(2), { queue: 'string', id: 'string', redis: 'string', counts: 'bool' });
  if (!args.queue) throw new UsageError('--queue Q is required');
  if (!args.id && !args.counts) throw new UsageError('--id ID or --counts is required');
  const { opts, label } = redisOptions(args.redis || process.env.RECLAIM_REDIS_URL);
  const redis = new IORedis(Object.assign({}, opts, { lazyConnect: true, retryStrategy: () => null }));
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${label}: ${errText(e)}`);
  }
  const queue = new Queue(args.queue, { connection: redis, prefix: PREFIX });
  try {
    const queuePaused = await queue.isPaused();
    if (args.counts) {
      const counts = await queue.getJobCounts('active', 'completed', 'delayed', 'failed', 'paused', 'prioritized', 'waiting', 'waiting-children');
      process.stdout.write(`${JSON.stringify({ queue: args.queue, queuePaused, counts })}\n`);
      return 0;
    }
    const job = await queue.getJob(args.id);
    const state = await queue.getJobState(args.id);
    const lockKey = `${PREFIX}:${args.queue}:${args.id}:lock`;
    const ttl = await redis.pttl(lockKey);
    const out = {
      queue: args.queue,
      id: args.id,
      exists: !!job,
      state,
      queuePaused,
      effectiveState: state === 'waiting' && queuePaused ? 'paused' : state,
      name: job ? job.name : null,
      data: job ? job.data : null,
      timestamp: job ? job.timestamp : null,
      processedOn: job ? job.processedOn || null : null,
      finishedOn: job ? job.finishedOn || null : null,
      attemptsMade: job ? job.attemptsMade : null,
      failedReason: job ? job.failedReason || null : null,
      returnvalue: job ? job.returnvalue : null,
      parentKey: job ? job.parentKey || null : null,
      lock: { present: ttl > 0 || ttl === -1, ttlMs: ttl > 0 ? ttl : null },
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } finally {
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}

runMain('state', main);
