#!/usr/bin/env node
'use strict';
// Adds one job with the real bullmq Queue.add, as the reference app's producers do.
//
//   node refapp/producer.js --queue Q [--id ID] --data JSON [--name NAME] [--delay MS]
//                           [--priority N] [--attempts N] [--count N] [--redis URL]
//
// --count N adds N jobs one after the other (ids ID-1 .. ID-N with --id), so the first sits at
// the tail of the wait list and the last at its head; one JSON line per job.
// Without --id bullmq numbers the job itself (a "legacy" auto-numbered id). Prints one JSON
// line: { queue, id, existedBefore, state }. bullmq silently keeps an existing job when the id
// is taken (even by a retained completed/failed job): existedBefore=true and the printed state
// show that case.

const IORedis = require('ioredis');
const { Queue } = require('bullmq');
const { parseArgs, UsageError, redisOptions, errText, runMain } = require('./lib/common');
const { PREFIX } = require('./lib/domains');

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    queue: 'string', id: 'string', data: 'string', name: 'string', delay: 'int', priority: 'int', attempts: 'int', count: 'int', redis: 'string',
  });
  const count = args.count === undefined ? 1 : args.count;
  if (!(count >= 1)) throw new UsageError('--count must be at least 1');
  if (!args.queue) throw new UsageError('--queue Q is required');
  if (args.data === undefined) throw new UsageError('--data JSON is required');
  let data;
  try {
    data = JSON.parse(args.data);
  } catch (e) {
    throw new UsageError(`--data is not valid JSON: ${errText(e)}`);
  }
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
    for (let i = 1; i <= count; i++) {
      const jobOpts = {};
      const id = args.id === undefined ? undefined : (args.count === undefined ? args.id : `${args.id}-${i}`);
      if (id !== undefined) jobOpts.jobId = id;
      if (args.delay !== undefined) jobOpts.delay = args.delay;
      if (args.priority !== undefined) jobOpts.priority = args.priority;
      if (args.attempts !== undefined) jobOpts.attempts = args.attempts;
      const existedBefore = id !== undefined ? (await redis.exists(`${PREFIX}:${args.queue}:${id}`)) === 1 : false;
      const job = await queue.add(args.name || 'job', data, jobOpts);
      const state = await queue.getJobState(job.id);
      process.stdout.write(`${JSON.stringify({ queue: args.queue, id: job.id, existedBefore, state })}\n`);
    }
    return 0;
  } finally {
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}

runMain('producer', main);
