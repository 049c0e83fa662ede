// The companion's AI in the end-to-end suite: the scripted OpenAI-compatible
// server of crates/scripted-ai (its binary, built by e2e.sh), since no model
// runs on the test machines. A step writes the chat replies it expects, in
// order, in the JSON the binary reads (crates/scripted-ai/src/script.rs),
// with the builders below (the shapes of its `openai` module); afterwards it
// reads what the app sent (`chats()`: the tools offered, the messages).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { env, track, until } from './lib.mjs';

/** The model the scripts list (the binary's own `MODEL`). */
export const MODEL = 'scripted';

/** One `chat.completion.chunk` carrying `delta`, as OpenAI streams it. */
function chunk(delta, finish = null) {
  return {
    raw: {
      id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: MODEL,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    },
  };
}

/** A text reply streamed piece by piece, `delayMs` before each piece (so a test sees it grow). */
export function text(pieces, delayMs = 0) {
  const stream = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of pieces) {
    if (delayMs) stream.push({ delay_ms: delayMs });
    stream.push(chunk({ content: piece }));
  }
  stream.push(chunk({}, 'stop'));
  return { stream };
}

/** A reply that calls tools: `[id, full tool name, arguments as JSON text]` each. */
export function toolCalls(calls) {
  const stream = [chunk({ role: 'assistant', content: null, refusal: null })];
  calls.forEach(([id, name, args], index) => {
    stream.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }));
    stream.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  });
  stream.push(chunk({}, 'tool_calls'));
  return { stream };
}

let started = 0;

/**
 * Starts `scripted-ai` serving `turns` (one per chat request, in order) on
 * 127.0.0.1:`port` (0: a free one). Resolves once it listens with
 * { url, port, chats(), received(), stop() }.
 */
export async function startScriptedAi(turns, port = 0) {
  if (!env.scriptedAi) throw new Error('E2E_SCRIPTED_AI not set: run scripts/lib/e2e.sh');
  const n = ++started;
  const script = path.join(env.tmp, `ai-script-${n}.json`);
  const record = path.join(env.tmp, `ai-received-${n}.json`);
  fs.writeFileSync(script, JSON.stringify({ models: { list: [MODEL] }, turns }, null, 2));
  const args = ['--script', script, '--received', record, ...(port ? ['--port', String(port)] : [])];
  const child = track(spawn(env.scriptedAi, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const url = await until('scripted-ai listening (its URL on standard output)', async () => {
    if (child.exitCode !== null) throw new Error(`scripted-ai ended (${child.exitCode}): ${err.trim().slice(0, 300)}`);
    const line = out.split('\n')[0];
    return out.includes('\n') && line.startsWith('http://127.0.0.1:') ? line.trim() : false;
  }, 10_000);
  const received = () => (fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : []);
  return {
    url,
    port: Number(new URL(url).port),
    received,
    /** The chat requests' bodies, in order. */
    chats: () => received().filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').map((r) => r.body),
    async stop() {
      if (child.exitCode !== null) return;
      const ended = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await ended;
    },
  };
}

/** The full names of the tools a chat request offered. */
export const offered = (body) => (body.tools ?? []).map((t) => t.function?.name);
