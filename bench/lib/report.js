'use strict';
// Turns the benchmark's raw results into the issue's targets (met / missed, with the figure)
// and the markdown report.

const MiB = 1024;

function fmt(n, digits = 0) {
  if (n === null || n === undefined || Number.isNaN(n)) return 'n/a';
  return Number(n).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ratio(a, b) {
  return a && b ? a / b : null;
}

/** One row per target: {id, what, figure, alternative, ratio, target, status}. */
function evaluate(r) {
  const rows = [];
  const add = (id, what, figure, alternative, rat, target, ok, note) =>
    rows.push({ id, what, figure, alternative, ratio: rat, target, status: ok === null ? 'info' : ok ? 'met' : 'missed', note: note || '' });

  // 1. Candidate query.
  if (r.query) {
    for (const d of r.query.domains) {
      add('1', `candidate query, ${d.domain} (${fmt(d.candidates)} rows)`, `${fmt(d.indexMs.median, 1)} ms`, `${fmt(d.noIndexMs.median, 1)} ms without index scans`,
        d.ratio, `plan uses the composite index`, d.usesCompositeIndex, d.usesCompositeIndex ? `${d.compositeIndex} (${d.compositeColumns.join(', ')})` : `plan: ${d.indexPlan.nodes.join(' > ')}`);
    }
  }

  // 2. Direct lookup.
  const waits = Object.keys(r.lookup || {}).map(Number).sort((a, b) => a - b);
  for (const w of waits) {
    const l = r.lookup[w];
    const big = w === waits[waits.length - 1];
    const ours = l.reclaim.candidatesPerSecond;
    add('2', `direct lookup, wait list ${fmt(l.waitLength)}: candidates/s`, fmt(ours), '', null, big ? '≥ 50,000/s' : '', big ? ours >= 50000 : null);
    add('2a', `  vs bullmq getJob + getState one by one (wait ${fmt(l.waitLength)})`, fmt(ours), `${fmt(l.bullmqSerial.candidatesPerSecond)}/s`,
      ratio(ours, l.bullmqSerial.candidatesPerSecond), big ? '≈ 35×' : '', big ? ours / l.bullmqSerial.candidatesPerSecond >= 35 : null);
    add('2b', `  vs the same, all in flight at once (wait ${fmt(l.waitLength)})`, fmt(ours), `${fmt(l.bullmqParallel.candidatesPerSecond)}/s`,
      ratio(ours, l.bullmqParallel.candidatesPerSecond), big ? '≈ 25×' : '', big ? ours / l.bullmqParallel.candidatesPerSecond >= 25 : null);
    add('2', `  Redis round trips per 1,000 candidates (wait ${fmt(l.waitLength)})`, fmt(l.reclaim.roundTripsPer1000.median, 2),
      `${fmt(l.bullmqSerial.roundTripsPer1000)} one by one`, null, big ? '≤ 2' : '', big ? l.reclaim.roundTripsPer1000.median <= 2 : null);
    if (big && r.floors && r.floors.plainCommands) {
      // Reclaim's per-candidate command is its probe script: redis-benchmark running that script
      // over the same ids is the floor for the same commands. The bare commands the script runs
      // (pipelined, with no one-moment view) show what the atomic view costs on the server.
      const f = r.floors;
      add('2c', 'direct lookup vs redis-benchmark running the same per-candidate commands (probe.lua, 1,000 ids per call)', fmt(ours),
        `${fmt(f.probeScript.candidatesPerSecond)}/s`, ratio(f.probeScript.candidatesPerSecond, ours), 'within 2× of the floor',
        f.probeScript.candidatesPerSecond / ours <= 2, 'the server\'s share: what is left is the client');
      add('2c', '  vs the bare commands inside the probe, pipelined without its one-moment view', fmt(ours), `${fmt(f.plainCommands.candidatesPerSecond)}/s`,
        ratio(f.plainCommands.candidatesPerSecond, ours), '', null,
        `PTTL ${fmt(f.pttl.requestsPerSecond)}/s + HMGET ${fmt(f.hmget.requestsPerSecond)}/s + ZSCORE ${fmt(f.zscore.requestsPerSecond)}/s -P 32; ` +
        `trivial EVALSHA ${fmt(f.trivialEvalsha.requestsPerSecond)}/s`);
    }
  }
  const main = r.runs && r.runs.main;
  if (main) {
    const trips = main.roundTripsByPhase.lookup || 0;
    add('2', 'round trips per 1,000 candidates, direct-lookup phase of the whole run', fmt((1000 * trips) / Math.max(1, main.candidates), 2),
      `${fmt(trips)} trips for ${fmt(main.candidates)} candidates`, null, '≤ 2', (1000 * trips) / Math.max(1, main.candidates) <= 2);
  }

  // 3. Scan.
  if (r.scan) {
    add('3', `scan: jobs/s (${fmt(r.scan.reclaim.jobsRead)} jobs, pages of ${r.scan.reclaim.pageSize})`, fmt(r.scan.reclaim.jobsPerSecond),
      `${fmt(r.scan.bullmq.jobsPerSecond)}/s bullmq getJobs`, ratio(r.scan.reclaim.jobsPerSecond, r.scan.bullmq.jobsPerSecond), '≥ 3×',
      r.scan.reclaim.jobsPerSecond / r.scan.bullmq.jobsPerSecond >= 3,
      `found by scan: reclaim ${r.scan.reclaim.foundByScan}, bullmq ${r.scan.bullmq.foundByScan}`);
  }

  // 4. Whole run.
  const runs = r.runs || {};
  if (main) {
    add('4', `whole dry run, ${fmt(main.candidates)} candidates / ${fmt(main.jobsPlanned)} jobs: wall time`, `${fmt(main.wallMs / 1000, 2)} s`, '', null, '', null,
      Object.entries(main.phasesMs).map(([k, v]) => `${k} ${fmt(v)} ms`).join(', '));
    add('4', 'peak RSS of the whole run', `${fmt(main.peakRssKiB / MiB, 1)} MiB`, '', null, '< 256 MiB', main.peakRssKiB < 256 * MiB);
  }
  const grow = (a, b, what, target, check) => {
    if (!runs[a] || !runs[b]) return;
    const q = runs[b].wallMs / runs[a].wallMs;
    add('4', what, `${fmt(runs[b].wallMs / 1000, 2)} s`, `${fmt(runs[a].wallMs / 1000, 2)} s`, q, target, check ? check(q) : null,
      `peak RSS ${fmt(runs[a].peakRssKiB / MiB, 1)} → ${fmt(runs[b].peakRssKiB / MiB, 1)} MiB`);
  };
  grow('direct_base_b', 'direct_j2', 'queue size doubles, same candidates, all found directly', 'flat (≤ 1.2×)', (q) => q <= 1.2);
  grow('direct_base', 'direct_c2', 'candidates double, same queue size, all found directly', 'grows', (q) => q > 1.2);
  grow('main', 'main2j', 'queue size doubles, 80/20 workload (the scan reads every runnable job)', '', null);
  grow('main', 'main2c', 'candidates double, 80/20 workload', '', null);
  for (const k of ['main2c', 'main2j']) {
    if (runs[k]) add('4', `peak RSS, ${k}`, `${fmt(runs[k].peakRssKiB / MiB, 1)} MiB`, '', null, '< 256 MiB', runs[k].peakRssKiB < 256 * MiB);
  }
  if (r.apply) {
    const a = r.apply.run;
    add('4b', 'applying run (same workload)', `${fmt(a.wallMs / 1000, 2)} s`, '', null, '', null,
      `actions ${JSON.stringify(a.actions)}; dry run afterwards: ${r.apply.dryRunAfter.absent} ABSENT (before ${r.apply.absentBefore})`);
  }
  if (r.daemon) add('', 'idle daemon RSS after its first run', `${fmt(r.daemon.idleRssKiB / MiB, 1)} MiB`, '', null, '< 48 MiB', r.daemon.idleRssKiB < 48 * MiB);

  // 5. Console.
  if (r.console) {
    const c = r.console;
    add('5', `console: UI-thread time to apply a ${fmt(c.candidates)}-candidate report`, `${fmt(c.firstApplyUiMs.median, 1)} ms`,
      `refresh of the same rows ${fmt(c.refreshApplyUiMs.median, 1)} ms`, null, '< 100 ms', c.firstApplyUiMs.median < 100 && c.refreshApplyUiMs.median < 100);
    add('5', 'console: longest UI-thread stall while a run is in flight', `${fmt(c.maxStallWithApplyMs.median, 1)} ms`,
      `${fmt(c.maxStallDuringRunMs.median, 1)} ms before the report arrives; idle probe ${fmt(c.idleProbe.maxStallMs, 1)} ms`, null, '≤ 50 ms',
      c.maxStallWithApplyMs.median <= 50);
  }
  // 6. Audit history.
  if (r.audit) {
    const a = r.audit;
    add('6', `audit history: UI-thread time to the first page of ${fmt(a.auditRows)} audit rows`, `${fmt(a.open.firstPageUiMs.median, 1)} ms`,
      `open to first page painted ${fmt(a.open.openToFirstPageMs.median, 1)} ms (query on the audit thread)`, null, '< 100 ms', a.open.firstPageUiMs.median < 100);
    add('6', 'audit history: longest UI-thread stall (open, scroll, one job)', `${fmt(a.targets.worstStallMs, 1)} ms`,
      `${a.scroll.pages} more pages scrolled, ${fmt(a.scroll.msPerPage, 1)} ms each; idle probe ${fmt(a.idleProbe.maxStallMs, 1)} ms`, null, '≤ 50 ms', a.targets.worstStallMs <= 50);
  }
  return rows;
}

function markdown(r, png) {
  const L = [];
  L.push('# Reclaim benchmark results', '');
  L.push(`${r.mode === 'smoke' ? '**Smoke run (tiny sizes; the figures mean nothing).** ' : ''}Run ${r.startedAt} → ${r.finishedAt} ` +
    `(${fmt(r.seconds)} s) on ${r.host.cpus} CPU(s), load average ${r.host.loadAverageAtStart.map((x) => x.toFixed(1)).join('/')} at the start and ` +
    `${r.host.loadAverageAtEnd.map((x) => x.toFixed(1)).join('/')} at the end: the machine is shared, so absolute figures are noisy; ` +
    'every comparison was measured side by side (interleaved repetitions in one run) and figures are medians. Produced by `tools/bench`.', '');
  L.push('| # | measurement | Reclaim | alternative | ratio | target | status | notes |', '|---|---|---|---|---|---|---|---|');
  for (const t of r.targets) {
    L.push(`| ${t.id} | ${t.what} | ${t.figure} | ${t.alternative} | ${t.ratio ? `${fmt(t.ratio, 2)}×` : ''} | ${t.target} | ${t.status === 'info' ? '' : `**${t.status}**`} | ${t.note} |`);
  }
  L.push('');
  const met = r.targets.filter((t) => t.status === 'met').length;
  const missed = r.targets.filter((t) => t.status === 'missed');
  L.push(`${met} target(s) met, ${missed.length} missed${missed.length ? `: ${missed.map((t) => t.what.trim()).join('; ')}` : ''}.`, '');

  L.push('## Workloads', '');
  L.push('| workload | candidates (direct / scan) | jobs | rows | legacy ids | built | bullmq check |', '|---|---|---|---|---|---|---|');
  for (const [k, w] of Object.entries(r.workloads || {})) {
    if (w.kind === 'lookup') {
      L.push(`| ${k} | ${fmt(w.candidates)} (${fmt(w.direct)} / ${fmt(w.candidates - w.direct)}) | wait list ${fmt(w.waitLength)}, ${fmt(w.redis.bulkJobs)} jobs | – | – | ${fmt(w.redis.seconds, 1)} s | ${w.validation || ''} |`);
    } else if (w.counts) {
      const jobs = w.redis ? `${fmt(w.counts.jobsTarget)}` : '–';
      L.push(`| ${k} | ${fmt(w.counts.candidates)} (${fmt(w.counts.direct)} / ${fmt(w.counts.scanNeeded)}) | ${jobs} | ${w.pg ? fmt(w.pg.rows) : fmt(w.counts.rowsTarget)} | ${fmt(w.counts.legacyTarget)} | ${w.redis ? `${fmt(w.redis.seconds, 1)} s redis` : ''}${w.pg && w.pg.copySeconds ? ` ${fmt(w.pg.copySeconds, 1)} s COPY` : ''} | ${w.validation || ''} |`);
    }
  }
  L.push('');

  if (r.query) {
    L.push('## 1. Candidate query', '', 'The SQL `PgJobStore::readCandidates` prepares (from `candidateQuery()`), timed through the real `readCandidates` (rows transferred), ' +
      'against a session with `enable_indexscan`, `enable_bitmapscan` and `enable_indexonlyscan` off; plans from `EXPLAIN (ANALYZE, BUFFERS)`.', '');
    L.push('| domain | rows | with index | plan | buffers hit/read | without | plan | buffers hit/read | ratio |', '|---|---|---|---|---|---|---|---|---|');
    for (const d of r.query.domains) {
      L.push(`| ${d.domain} | ${fmt(d.candidates)} | ${fmt(d.indexMs.median, 1)} ms | ${d.indexPlan.nodes.join(' > ')} on ${d.indexPlan.indexes.join(', ') || '–'} | ${fmt(d.indexPlan.sharedHitBlocks)}/${fmt(d.indexPlan.sharedReadBlocks)} | ` +
        `${fmt(d.noIndexMs.median, 1)} ms | ${d.noIndexPlan.nodes.join(' > ')} | ${fmt(d.noIndexPlan.sharedHitBlocks)}/${fmt(d.noIndexPlan.sharedReadBlocks)} | ${fmt(d.ratio, 1)}× |`);
    }
    L.push('');
  }

  if (Object.keys(r.lookup || {}).length) {
    L.push('## 2. Direct lookup', '', 'Reclaim: `lookUpDirectly` over `BullmqRedis` (probe batches of `run.probeBatchSize`). bullmq: `Queue.getJob` + `job.getState()` per candidate, ' +
      'awaited one by one, and with every candidate in flight at once. Same fixture, same candidate ids, repetitions interleaved.', '');
    L.push('| wait list | candidates | Reclaim /s | trips per 1,000 | one by one /s | ratio | all in flight /s | ratio |', '|---|---|---|---|---|---|---|---|');
    for (const [w, l] of Object.entries(r.lookup)) {
      L.push(`| ${fmt(l.waitLength)} | ${fmt(l.candidates)} | ${fmt(l.reclaim.candidatesPerSecond)} | ${fmt(l.reclaim.roundTripsPer1000.median, 2)} | ` +
        `${fmt(l.bullmqSerial.candidatesPerSecond)} | ${fmt(l.reclaim.candidatesPerSecond / l.bullmqSerial.candidatesPerSecond, 1)}× | ` +
        `${fmt(l.bullmqParallel.candidatesPerSecond)} | ${fmt(l.reclaim.candidatesPerSecond / l.bullmqParallel.candidatesPerSecond, 1)}× |`);
    }
    L.push('');
    if (r.floors && r.floors.plainCommands) {
      const f = r.floors;
      L.push(`Floors on the same server. Reclaim's probe script run by \`redis-benchmark\` over 1,000 of the fixture's ids per call, one call at a time: ` +
        `${fmt(f.probeScript.candidatesPerSecond)} candidates/s, the floor for Reclaim's own per-candidate commands (what Reclaim adds on top is the client). ` +
        `The bare commands the script runs for a candidate, \`redis-benchmark -c ${f.clients} -P ${f.pipeline}\`: PTTL ${fmt(f.pttl.requestsPerSecond)}/s, ` +
        `HMGET of a job's ten fields ${fmt(f.hmget.requestsPerSecond)}/s, ZSCORE ${fmt(f.zscore.requestsPerSecond)}/s, together ${fmt(f.plainCommands.candidatesPerSecond)} candidates/s; ` +
        `the gap to the script is the price of its one-moment view (Lua calls, one walk of each list's tail per call), which keeps a job that moves between ` +
        `structures during a lookup from being read as absent. Trivial EVALSHA ${fmt(f.trivialEvalsha.requestsPerSecond)}/s.`, '');
    }

  }

  if (r.scan) {
    L.push('## 3. Scan', '', `Reclaim's \`scanDomain\` over \`BullmqRedis::scanPage\`: ${fmt(r.scan.reclaim.jobsRead)} jobs in ${fmt(r.scan.reclaim.pages)} pages, ` +
      `median ${fmt(r.scan.reclaim.seconds.median, 2)} s; bullmq \`Queue.getJobs\` pages of 200 over the same queues and states: ${fmt(r.scan.bullmq.jobsRead)} jobs, ` +
      `median ${fmt(r.scan.bullmq.seconds.median, 2)} s.`, '');
  }

  if (Object.keys(r.runs || {}).length) {
    L.push('## 4. Whole runs', '', 'Dry runs with the real adapters (`PgJobStore` + `BullmqRedis` under `RecoveryRun`, as `Engine::run` wires them), one fresh process per run; medians.', '');
    L.push('| workload | candidates | jobs | wall | read candidates | direct lookup | scan | plan | lookup trips | scan trips | peak RSS | verdicts S/A/U |', '|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const [k, x] of Object.entries(r.runs)) {
      L.push(`| ${k} | ${fmt(x.candidates)} | ${fmt(x.jobsPlanned)} | ${fmt(x.wallMs)} ms | ${fmt(x.phasesMs.candidates)} ms | ${fmt(x.phasesMs.lookup)} ms | ${fmt(x.phasesMs.scan)} ms | ` +
        `${fmt(x.phasesMs.plan)} ms | ${fmt(x.roundTripsByPhase.lookup || 0)} | ${fmt(x.roundTripsByPhase.scan || 0)} | ${fmt(x.peakRssKiB / MiB, 1)} MiB | ${x.scheduled}/${x.absent}/${x.unknown} |`);
    }
    L.push('', `![run time against candidates and queue size](${png})`, '');
  }
  if (r.console) {
    const c = r.console;
    L.push('## 5. Console', '', `A ${fmt(c.candidates)}-candidate report into a fresh \`MainWindow\` (offscreen): \`showReport\` ${fmt(c.firstApplyCallMs.median, 1)} ms, ` +
      `${fmt(c.firstApplyUiMs.median, 1)} ms until the event loop is idle again (layout and paint included)` +
      (c.rowsBuildOffUiMs ? `, with the table's rows built beforehand as the console builds them, on the recovery thread (${fmt(c.rowsBuildOffUiMs.median, 1)} ms there)` : '') +
      `; the same report again (rows merged in place): ` +
      `${fmt(c.refreshApplyCallMs.median, 1)} / ${fmt(c.refreshApplyUiMs.median, 1)} ms. Stall probe (5 ms timer) during a real run started from the window: ` +
      `longest ${fmt(c.maxStallWithApplyMs.median, 1)} ms including the report's arrival, ${fmt(c.maxStallDuringRunMs.median, 1)} ms before it; ` +
      `the same probe with nothing running: ${fmt(c.idleProbe.maxStallMs, 1)} ms.`, '');
  }
  if (r.audit) {
    const a = r.audit;
    L.push('## 6. Audit history', '', `${fmt(a.auditRows)} rows in \`reclaim.audit\`, the history window opened fresh (offscreen): the window's own calls ` +
      `${fmt(a.open.openCallMs.median, 1)} ms, inserting and painting the first page ${fmt(a.open.applyAndPaintMs.median, 1)} ms ` +
      `(${fmt(a.open.firstPageRows)} rows); open to first page painted ${fmt(a.open.openToFirstPageMs.median, 1)} ms, the keyset query running on the audit thread. ` +
      `Scrolling ${a.scroll.pages} further pages: ${fmt(a.scroll.msPerPage, 1)} ms per page, longest stall ${fmt(a.scroll.probe.maxStallMs, 1)} ms. ` +
      `One job's history (find by id): ${fmt(a.openJob.firstPageUiMs.median, 1)} ms UI time, ${fmt(a.openJob.openToFirstPageMs.median, 1)} ms to the first page.`, '');
  }
  if (r.daemon) {
    L.push('## Idle daemon', '', `\`reclaim --daemon --dry-run\` on the main workload: VmRSS ${r.daemon.samplesKiB.map((x) => fmt(x / MiB, 1)).join(', ')} MiB while idle after its first run ` +
      `(median ${fmt(r.daemon.idleRssKiB / MiB, 1)} MiB); VmHWM (peak, during the run) ${fmt(r.daemon.peakRssKiB / MiB, 1)} MiB.`, '');
  }
  return `${L.join('\n')}\n`;
}

module.exports = { evaluate, markdown };
