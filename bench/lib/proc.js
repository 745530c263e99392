'use strict';
// Child processes for the benchmark driver: run one, collect its output, parse the JSON line a
// measuring program prints, and never let a secret from the environment reach an error message.

const { spawn } = require('child_process');

function redact(text) {
  return String(text).replace(/(\w+:\/\/)([^:@/\s]+):([^@/\s]+)@/g, '$1$2:***@');
}

/** Runs a command; resolves {code, stdout, stderr, seconds}. */
function run(cmd, args, { env, timeoutMs = 0, input } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(cmd, args, { env: Object.assign({}, process.env, env || {}), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    let timer = null;
    if (timeoutMs) timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    p.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code === null ? 128 : code, signal, stdout, stderr, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
    });
    p.stdin.on('error', () => {});
    p.stdin.end(input || '');
  });
}

/** Runs a command that must succeed (exit codes in `ok`, default [0]); returns its result. */
async function must(cmd, args, opts = {}) {
  const r = await run(cmd, args, opts);
  if (!(opts.ok || [0]).includes(r.code)) {
    const tail = redact((r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | '));
    throw new Error(`${cmd.split('/').pop()} ${args[0] || ''} exited ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${tail}`);
  }
  return r;
}

/** Runs a measuring program and returns the JSON object on the last line of its stdout. */
async function json(cmd, args, opts = {}) {
  const r = await must(cmd, args, opts);
  const lines = r.stdout.trim().split('\n');
  try {
    const out = JSON.parse(lines[lines.length - 1]);
    out.exitCode = r.code;
    return out;
  } catch (e) {
    throw new Error(`${cmd.split('/').pop()} ${args[0] || ''} printed no JSON: ${redact(r.stdout.slice(-300))}`);
  }
}

module.exports = { run, must, json, redact };
