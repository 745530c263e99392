'use strict';
// Small helpers shared by the reference application's scripts: flag parsing, connection
// settings from URLs (never echoing a password), a seeded PRNG and a sleep.

/**
 * Parses `--flag value`, `--flag=value` and bare boolean `--flag` arguments.
 * `spec` maps flag names to 'string' | 'int' | 'bool'. Unknown flags and bad values throw.
 */
function parseArgs(argv, spec) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}'`);
    let name = arg.slice(2);
    let value;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown flag --${name}`);
    if (kind === 'bool') {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    if (kind === 'int') {
      if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be an integer, got '${value}'`);
      out[name] = parseInt(value, 10);
    } else {
      out[name] = value;
    }
  }
  return out;
}

class UsageError extends Error {}

/** ioredis options from redis://[user:pass@]host:port[/db]; `label` is safe to print. */
function redisOptions(url) {
  if (!url) throw new UsageError('no Redis URL: pass --redis URL or set RECLAIM_REDIS_URL');
  let u;
  try {
    u = new URL(url);
  } catch (e) {
    throw new UsageError('the Redis URL is not a valid URL');
  }
  if (u.protocol !== 'redis:') throw new UsageError(`the Redis URL must start with redis:// (got ${u.protocol}//)`);
  const db = u.pathname && u.pathname.length > 1 ? parseInt(u.pathname.slice(1), 10) : 0;
  if (!Number.isInteger(db) || db < 0) throw new UsageError('the Redis URL has a bad database number');
  const opts = {
    host: u.hostname || '127.0.0.1',
    port: u.port ? parseInt(u.port, 10) : 6379,
    db,
    // bullmq requires this for its blocking connections; harmless elsewhere.
    maxRetriesPerRequest: null,
  };
  if (u.username) opts.username = decodeURIComponent(u.username);
  if (u.password) opts.password = decodeURIComponent(u.password);
  return { opts, label: `redis ${opts.host}:${opts.port}/${db}` };
}

/**
 * A connection bullmq can use for a single node (redis://) or a Redis Cluster
 * (redis+cluster://host:port[,host:port...], the URL form Reclaim takes): for a cluster, an
 * ioredis Cluster, which bullmq duplicates for its blocking connections. `label` is safe to print.
 */
function redisConnection(url) {
  if (url && url.startsWith('redis+cluster://')) {
    const rest = url.slice('redis+cluster://'.length);
    const at = rest.lastIndexOf('@');
    const hosts = (at >= 0 ? rest.slice(at + 1) : rest).replace(/\/.*$/, '');
    const nodes = hosts.split(',').map((hp) => {
      const colon = hp.lastIndexOf(':');
      return { host: hp.slice(0, colon), port: parseInt(hp.slice(colon + 1), 10) };
    });
    if (nodes.some((n) => !n.host || !Number.isInteger(n.port))) throw new UsageError('the cluster URL has a bad host:port');
    const IORedis = require('ioredis');
    const make = () => new IORedis.Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } });
    return { make, cluster: true, label: `redis cluster ${hosts}` };
  }
  const { opts, label } = redisOptions(url);
  const IORedis = require('ioredis');
  return { make: () => new IORedis(opts), cluster: false, label };
}

/** pg client config from postgresql://user:pass@host:port/db; `label` is safe to print. */
function pgOptions(url) {
  if (!url) throw new UsageError('no PostgreSQL URL: pass --pg URL or set RECLAIM_PG_URL');
  let u;
  try {
    u = new URL(url);
  } catch (e) {
    throw new UsageError('the PostgreSQL URL is not a valid URL');
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') {
    throw new UsageError(`the PostgreSQL URL must start with postgresql:// (got ${u.protocol}//)`);
  }
  const cfg = {
    host: u.hostname || '127.0.0.1',
    port: u.port ? parseInt(u.port, 10) : 5432,
    database: decodeURIComponent(u.pathname.slice(1)) || undefined,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    application_name: 'reclaim-refapp',
    // Every timestamp this app writes is UTC wall-clock time, as Prisma does.
    options: '-c TimeZone=UTC',
  };
  return { cfg, label: `postgresql ${cfg.user || ''}@${cfg.host}:${cfg.port}/${cfg.database || ''}` };
}

/** Error text without anything that could carry a secret. */
function errText(e) {
  if (!e) return 'unknown error';
  let s = e.message || String(e);
  // Defensive: strip credentials from any URL that slipped into a message.
  s = s.replace(/(\w+:\/\/)([^:@\/\s]+):([^@\/\s]+)@/g, '$1$2:***@');
  return s.split('\n')[0];
}

/**
 * Deterministic PRNG (xoshiro128** seeded through splitmix32), so the same --seed always
 * produces the same ids, ages and payloads.
 */
function makeRng(seed) {
  let x = (seed >>> 0) ^ 0x9e3779b9;
  const split = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  const next = () => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a; d ^= b; b ^= c; a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  const rng = {
    u32: next,
    /** float in [0, 1) */
    float: () => next() / 4294967296,
    /** integer in [lo, hi] */
    int: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor((next() / 4294967296) * arr.length)],
    chance: (p) => next() / 4294967296 < p,
  };
  return rng;
}

function rotl(v, k) {
  return ((v << k) | (v >>> (32 - k))) >>> 0;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs main(); prints a one-line error and exits with the given code on failure. */
function runMain(prog, main) {
  main().then(
    (code) => {
      process.exitCode = typeof code === 'number' ? code : 0;
    },
    (e) => {
      const usage = e instanceof UsageError;
      process.stderr.write(`${prog}: ${errText(e)}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}

module.exports = { parseArgs, UsageError, redisOptions, redisConnection, pgOptions, errText, makeRng, sleep, runMain };
