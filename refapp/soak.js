'use strict';
// The reference application under load, for Reclaim's soak test: a producer that creates job
// rows and enqueues them the way the app does, and a worker that runs them the way the app
// does — marking the row PROCESSING, writing progress, then COMPLETED and the parent READY.
// Workers print one JSON line per event so the test can tell which process held which job.
//
//   node refapp/soak.js produce --count N --seed S [--offset K]
//   node refapp/soak.js work --queue Q --table T --parent-table P --parent-key K --seed S
//
// Worker settings make dead workers visible quickly: lockDuration 2000 ms, stalledInterval
// 1000 ms, maxStalledCount 0 (a job whose worker died is moved to `failed` by a live worker's
// stalled check, and its row stays PROCESSING: an orphan for Reclaim).
const { Queue, Worker } = require('bullmq');
const IORedis = require('ioredis');
const { Pool } = require('pg');
const { parseArgs, redisOptions, pgOptions, makeRng, sleep, runMain } = require('./lib/common');

const spec = {
  count: 'int', seed: 'int', offset: 'int', queue: 'string', table: 'string',
  'parent-table': 'string', 'parent-key': 'string', pg: 'string', redis: 'string',
};

function emit(obj) {
  process.stdout.write(`${JSON.stringify({ ...obj, pid: process.pid, at: Date.now() })}\n`);
}

function hash32(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

async function produce(args, pool, redis) {
  const rng = makeRng(args.seed ?? 1);
  const count = args.count ?? 20;
  const offset = args.offset ?? 0;
  const imageQueue = new Queue('image-render', { connection: redis });
  const videoQueue = new Queue('video-generation', { connection: redis });
  for (let n = offset; n < offset + count; n++) {
    const tag = `${(args.seed ?? 1).toString(36)}${n.toString(36).padStart(4, '0')}`;
    if (n % 3 === 0) {
      const videoId = `vd_soak${tag}`;
      const jobId = `vj_soak${tag}`;
      const tracks = [0, 1].map((p) => ({
        position: p, kind: p === 0 ? 'VIDEO' : 'AUDIO', assetUrl: `s3://soak/${tag}/${p}`,
        startMs: 0, durationMs: 1000 * rng.int(5, 60),
      }));
      await pool.query(`INSERT INTO "Video" (id, title, status, "exportStatus") VALUES ($1, $2, 'PROCESSING', 'NONE')`,
        [videoId, `soak ${tag}`]);
      for (const t of tracks) {
        await pool.query(`INSERT INTO "Track" (id, "videoId", position, kind, "assetUrl", "startMs", "durationMs")
                          VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [`tr_soak${tag}${t.position}`, videoId, t.position, t.kind, t.assetUrl, t.startMs, t.durationMs]);
      }
      await pool.query(`INSERT INTO "VideoJob" (id, "videoId", type, status) VALUES ($1, $2, 'COMPOSE', 'QUEUED')`,
        [jobId, videoId]);
      await videoQueue.add('compose', { jobId, videoId, title: `soak ${tag}`, tracks },
        { jobId: `video-compose-${jobId}`, attempts: 1 });
    } else {
      const imageId = `im_soak${tag}`;
      const jobId = `ij_soak${tag}`;
      await pool.query(`INSERT INTO "Image" (id, status) VALUES ($1, 'PROCESSING')`, [imageId]);
      await pool.query(`INSERT INTO "ImageJob" (id, "imageId", status) VALUES ($1, $2, 'QUEUED')`, [jobId, imageId]);
      await imageQueue.add('render', { jobId, imageId, prompt: `soak ${tag}`, width: 512, height: 512 },
        { jobId: `image-${jobId}`, attempts: 1 });
    }
  }
  await imageQueue.close();
  await videoQueue.close();
  emit({ event: 'produced', count });
}

async function work(args, pool, redis) {
  const seed = args.seed ?? 1;
  const table = args.table;
  const parentTable = args['parent-table'];
  const parentKey = args['parent-key'];
  const worker = new Worker(args.queue, async (job) => {
    const rowId = job.data.jobId;
    emit({ event: 'take', id: rowId, bullId: job.id });
    const rng = makeRng(seed ^ hash32(`${job.id}:${job.attemptsStarted ?? 0}:${job.timestamp}`));
    // Most jobs write progress often; some are long and quiet (a healthy job that looks stuck
    // by the database alone: older than the threshold, still active with a live lock).
    const quiet = rng.chance(0.25);
    const duration = quiet ? rng.int(4000, 6000) : rng.int(1500, 4000);
    const started = await pool.query(
      `UPDATE "${table}" SET status = 'PROCESSING', progress = 0, "updatedAt" = now()
       WHERE id = $1 AND status IN ('QUEUED', 'PROCESSING') RETURNING id`, [rowId]);
    emit({ event: 'start', id: rowId, bullId: job.id, quiet, rows: started.rowCount });
    const t0 = Date.now();
    while (Date.now() - t0 < duration) {
      await sleep(quiet ? duration : 300);
      if (!quiet) {
        const p = Math.min(99, Math.floor((100 * (Date.now() - t0)) / duration));
        await pool.query(`UPDATE "${table}" SET progress = $2, "updatedAt" = now() WHERE id = $1 AND status = 'PROCESSING'`,
          [rowId, p]);
      }
    }
    const done = await pool.query(
      `UPDATE "${table}" SET status = 'COMPLETED', progress = 100, "updatedAt" = now()
       WHERE id = $1 AND status = 'PROCESSING' RETURNING "${parentKey}" AS parent`, [rowId]);
    if (done.rowCount === 1) {
      await pool.query(`UPDATE "${parentTable}" SET status = 'READY', "updatedAt" = now()
                        WHERE id = $1 AND status IN ('PENDING', 'PROCESSING')`, [done.rows[0].parent]);
    }
    emit({ event: done.rowCount === 1 ? 'done' : 'lost', id: rowId, bullId: job.id });
    return { ok: true };
  }, { connection: redis, concurrency: 2, lockDuration: 2000, stalledInterval: 1000, maxStalledCount: 0 });
  worker.on('error', () => {}); // Redis faults are part of the test; ioredis reconnects
  emit({ event: 'ready', queue: args.queue });
  await new Promise((resolve) => {
    process.on('SIGTERM', resolve);
    process.on('SIGINT', resolve);
  });
  await worker.close(true);
}

runMain('soak', async () => {
  const [mode, ...rest] = process.argv.slice(2);
  const args = parseArgs(rest, spec);
  const pool = new Pool({ ...pgOptions(args.pg || process.env.RECLAIM_PG_URL).cfg, max: 4 });
  pool.on('error', () => {});
  const redis = new IORedis(redisOptions(args.redis || process.env.RECLAIM_REDIS_URL).opts);
  redis.on('error', () => {});
  try {
    if (mode === 'produce') await produce(args, pool, redis);
    else if (mode === 'work') await work(args, pool, redis);
    else throw new Error(`unknown mode '${mode}' (produce or work)`);
  } finally {
    redis.disconnect();
    await pool.end();
  }
  return 0;
});
