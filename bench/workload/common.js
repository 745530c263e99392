'use strict';
// Shared pieces of the benchmark's Node side: the reference app's modules (bullmq, ioredis, pg
// come from refapp/node_modules, so the benchmark adds no dependency), deterministic per-index
// random streams, row ids in the app's format and UTC timestamps as Prisma writes them.

const path = require('path');
const { createRequire } = require('module');

const REFAPP = path.resolve(__dirname, '..', '..', 'refapp');
const refRequire = createRequire(path.join(REFAPP, 'package.json'));
const common = refRequire('./lib/common');
const D = refRequire('./lib/domains');

const B36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const ID_PREFIX = {
  Slide: 'sl', SlideJob: 'sj', Video: 'vd', VideoJob: 'vj', Document: 'dc', DocumentJob: 'dj',
  Image: 'im', ImageJob: 'ij', Narration: 'nr', NarrationJob: 'nj',
};

/** 32-bit mix of any number of integers (murmur3 finaliser per step). */
function hash32(...parts) {
  let h = 0x811c9dc5;
  for (const p of parts) {
    let k = typeof p === 'number' ? p >>> 0 : strHash(p);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

function strHash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** mulberry32: small and cheap to create, which matters at a million items. */
class Rng {
  constructor(seed) {
    this.s = seed >>> 0;
  }

  u32() {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  float() {
    return this.u32() / 4294967296;
  }

  /** integer in [lo, hi] */
  int(lo, hi) {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  pick(arr) {
    return arr[Math.floor(this.float() * arr.length)];
  }

  chance(p) {
    return this.float() < p;
  }
}

const streamHashes = new Map();

/** A random stream that depends only on (seed, stream name, index): any item can be rebuilt alone. */
function rngAt(seed, stream, index) {
  let s = streamHashes.get(stream);
  if (s === undefined) streamHashes.set(stream, (s = strHash(stream)));
  return new Rng(hash32(seed, s, index));
}

const streamTags = new Map();

function tagOf(stream) {
  let t = streamTags.get(stream);
  if (t === undefined) {
    t = strHash(stream) & 0xffff;
    for (const [other, tag] of streamTags) if (tag === t) throw new Error(`id streams ${other} and ${stream} share a tag`);
    streamTags.set(stream, t);
  }
  return t;
}

/**
 * A row id in the app's format (table prefix + 12 base-36 characters) that looks random but is
 * unique per (stream, index, sub) by construction: the 60-bit value (stream tag, sub, index) goes
 * through a keyed Feistel permutation, so no two items can ever share an id.
 */
function uniqueId(table, seed, stream, index, sub = 0) {
  const MASK = 0x3fffffff;
  let hi = ((tagOf(stream) << 14) | (sub << 11) | Math.floor(index / 0x40000000)) & MASK;
  let lo = index % 0x40000000;
  for (let round = 0; round < 4; round++) {
    const f = hash32(seed, round, lo) & MASK;
    const next = (hi ^ f) & MASK;
    hi = lo;
    lo = next;
  }
  const v = (BigInt(hi) << 30n) | BigInt(lo);
  return `${ID_PREFIX[table]}_${v.toString(36).padStart(12, '0')}`;
}

/** "YYYY-MM-DD HH:MM:SS.mmm" in UTC: what timestamp(3) holds for the reference app. */
function pgTime(ms) {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

function pick(rng, weighted) {
  let x = rng.float();
  for (const [v, w] of weighted) {
    if (x < w) return v;
    x -= w;
  }
  return weighted[weighted.length - 1][0];
}

module.exports = { REFAPP, refRequire, common, D, hash32, rngAt, uniqueId, pgTime, pick, ID_PREFIX };
