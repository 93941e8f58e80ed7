// Checks the SSE output of agentry::serve with the protocols' own code: every AI SDK chunk
// against the `ai` package's `uiMessageChunkSchema`, the whole stream through its
// `readUIMessageStream` (which refuses chunks out of order), and every AG-UI event against
// `@ag-ui/core`'s `EventSchemas`; plus the order rules each protocol states.
//
// Usage: node check.mjs INPUT.json, where INPUT is
//   {"protocol": "ai-sdk" | "ag-ui", "streams": [{"sse": "...", "continues": bool}, ...]}
// (`continues`: the stream goes on with the previous stream's message, as a resumed run does).
// Prints a JSON report on success; exits 1 with every problem found otherwise.

import { readFileSync } from 'node:fs';
import { readUIMessageStream, uiMessageChunkSchema } from 'ai';
import { EventSchemas } from '@ag-ui/core/schemas';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const problems = [];
const fail = (where, what) => problems.push(`${where}: ${what}`);

/** The `data:` payloads of an SSE body; comments (`: keep-alive`) are skipped. */
function frames(sse) {
  const out = [];
  for (const block of sse.split('\n\n')) {
    if (block.trim() === '') continue;
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) out.push(data.join('\n'));
  }
  return out;
}

async function checkAiSdk(streams) {
  const schema = uiMessageChunkSchema();
  const reports = [];
  let message;
  for (const [n, { sse, continues }] of streams.entries()) {
    const where = `stream ${n + 1}`;
    const data = frames(sse);
    if (data.at(-1) !== '[DONE]') fail(where, 'does not end with [DONE]');
    const chunks = [];
    for (const [i, text] of data.entries()) {
      if (text === '[DONE]') {
        if (i !== data.length - 1) fail(where, `[DONE] at ${i} is not last`);
        continue;
      }
      let chunk;
      try {
        chunk = JSON.parse(text);
      } catch (e) {
        fail(`${where} chunk ${i}`, `not JSON: ${text}`);
        continue;
      }
      const valid = await schema.validate(chunk);
      if (!valid.success) {
        fail(`${where} chunk ${i}`, `${JSON.stringify(chunk)} is not a UI message chunk: ${valid.error.message}`);
        continue;
      }
      chunks.push(valid.value);
    }
    checkAiSdkOrder(where, chunks, continues ? message : undefined);
    // The AI SDK's own reader: it refuses deltas of parts never started, outputs of calls
    // never announced, and so on.
    const expectedErrors = chunks.filter((c) => c.type === 'error').map((c) => c.errorText);
    const errors = [];
    const stream = new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    let last;
    try {
      for await (const snapshot of readUIMessageStream({
        stream,
        message: continues ? message : undefined,
        onError: (e) => errors.push(e?.message ?? String(e)),
      })) {
        last = snapshot;
      }
    } catch (e) {
      errors.push(e?.message ?? String(e));
    }
    for (const e of errors) {
      if (!expectedErrors.includes(e)) fail(where, `readUIMessageStream: ${e}`);
    }
    if (!last) {
      fail(where, 'readUIMessageStream made no message');
      continue;
    }
    message = last;
    reports.push({
      types: chunks.map((c) => c.type),
      errors,
      parts: last.parts.map((p) => ({ type: p.type, state: p.state, toolCallId: p.toolCallId })),
    });
  }
  return reports;
}

/** The order rules of the UI message stream. */
function checkAiSdkOrder(where, chunks, previous) {
  if (chunks[0]?.type !== 'start') fail(where, `starts with ${chunks[0]?.type}, not start`);
  if (chunks.at(-1)?.type !== 'finish') fail(where, `ends with ${chunks.at(-1)?.type}, not finish`);
  const open = new Map(); // text/reasoning part id -> kind
  const announced = new Set(); // tool-input-start
  const available = new Set(); // tool-input-available
  for (const p of previous?.parts ?? []) {
    if (p.toolCallId) {
      announced.add(p.toolCallId);
      available.add(p.toolCallId);
    }
  }
  const outputs = new Set();
  let step = false;
  for (const [i, c] of chunks.entries()) {
    const at = `${where} chunk ${i} (${c.type})`;
    switch (c.type) {
      case 'start-step':
        if (step) fail(at, 'a step starts inside a step');
        step = true;
        break;
      case 'finish-step':
        if (!step) fail(at, 'no step to finish');
        if (open.size > 0) fail(at, `parts still open: ${[...open.keys()]}`);
        step = false;
        break;
      case 'text-start':
      case 'reasoning-start':
        if (open.has(c.id)) fail(at, `part ${c.id} started twice`);
        open.set(c.id, c.type.split('-')[0]);
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'text-end':
      case 'reasoning-end':
        if (open.get(c.id) !== c.type.split('-')[0]) fail(at, `part ${c.id} is not open`);
        if (c.type.endsWith('-end')) open.delete(c.id);
        break;
      case 'tool-input-start':
        if (announced.has(c.toolCallId)) fail(at, `call ${c.toolCallId} started twice`);
        announced.add(c.toolCallId);
        break;
      case 'tool-input-delta':
        if (!announced.has(c.toolCallId) || available.has(c.toolCallId)) {
          fail(at, `call ${c.toolCallId} is not streaming its input`);
        }
        break;
      case 'tool-input-available':
        if (available.has(c.toolCallId)) fail(at, `call ${c.toolCallId} input twice`);
        available.add(c.toolCallId);
        break;
      case 'tool-approval-request':
        if (!available.has(c.toolCallId)) fail(at, `approval before the input of ${c.toolCallId}`);
        break;
      case 'data-question':
        // agentry's question of a paused call: it names a call whose input was sent.
        if (!available.has(c.data?.toolCallId)) fail(at, `a question of unknown call ${c.data?.toolCallId}`);
        break;
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied':
        if (!available.has(c.toolCallId)) fail(at, `output before the input of ${c.toolCallId}`);
        if (outputs.has(c.toolCallId)) fail(at, `two outputs for ${c.toolCallId}`);
        outputs.add(c.toolCallId);
        break;
      case 'finish':
        if (step) fail(at, 'a step is still open');
        if (open.size > 0) fail(at, `parts still open: ${[...open.keys()]}`);
        if (i !== chunks.length - 1) fail(at, 'finish is not the last chunk');
        break;
      default:
        break;
    }
  }
}

async function checkAgUi(streams) {
  const reports = [];
  const ended = new Set(); // tool calls ended in earlier runs (a resumed run's results)
  for (const [n, { sse }] of streams.entries()) {
    const where = `run ${n + 1}`;
    const events = [];
    for (const [i, text] of frames(sse).entries()) {
      let event;
      try {
        event = JSON.parse(text);
      } catch (e) {
        fail(`${where} event ${i}`, `not JSON: ${text}`);
        continue;
      }
      const parsed = EventSchemas.safeParse(event);
      if (!parsed.success) {
        fail(`${where} event ${i}`, `${JSON.stringify(event)} is not an AG-UI event: ${parsed.error.message}`);
        continue;
      }
      events.push(parsed.data);
    }
    checkAgUiOrder(where, events, ended);
    reports.push({ types: events.map((e) => e.type), last: events.at(-1) });
  }
  return reports;
}

/** Applies the JSON Patch operations AG-UI's STATE_DELTA carries (add, remove, replace). */
function applyPatch(doc, ops, at) {
  let root = structuredClone(doc);
  for (const op of ops) {
    const tokens = op.path === '' ? [] : op.path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (tokens.length === 0) {
      if (op.op === 'remove') root = null;
      else root = structuredClone(op.value);
      continue;
    }
    let parent = root;
    for (const t of tokens.slice(0, -1)) {
      if (parent === null || typeof parent !== 'object' || !(t in parent)) {
        fail(at, `patch path ${op.path} does not exist`);
        return root;
      }
      parent = parent[t];
    }
    const key = tokens.at(-1);
    if (op.op === 'remove' || op.op === 'replace') {
      if (parent === null || typeof parent !== 'object' || !(key in parent)) fail(at, `patch ${op.op} of missing ${op.path}`);
    }
    if (op.op === 'remove') delete parent[key];
    else if (op.op === 'add' || op.op === 'replace') parent[key] = structuredClone(op.value);
    else fail(at, `unexpected patch op ${op.op}`);
  }
  return root;
}

/** The order rules of AG-UI's event stream. */
function checkAgUiOrder(where, events, ended) {
  const first = events[0];
  if (first?.type !== 'RUN_STARTED') fail(where, `starts with ${first?.type}, not RUN_STARTED`);
  const last = events.at(-1);
  if (last?.type !== 'RUN_FINISHED' && last?.type !== 'RUN_ERROR') {
    fail(where, `ends with ${last?.type}, not RUN_FINISHED or RUN_ERROR`);
  }
  let text = null;
  let reasoning = null;
  let reasoningMessage = null;
  let step = null;
  let state;
  const open = new Set();
  for (const [i, e] of events.entries()) {
    const at = `${where} event ${i} (${e.type})`;
    if (i > 0 && e.type === 'RUN_STARTED') fail(at, 'a second RUN_STARTED');
    if (i < events.length - 1 && (e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR')) fail(at, 'events after the run ended');
    if ((e.type === 'RUN_STARTED' || e.type === 'RUN_FINISHED') && e.threadId !== first.threadId) fail(at, 'another threadId');
    if (e.type === 'RUN_FINISHED' && e.runId !== first.runId) fail(at, 'another runId');
    switch (e.type) {
      case 'STATE_SNAPSHOT':
        state = e.snapshot;
        break;
      case 'STATE_DELTA':
        if (state === undefined) fail(at, 'a delta before any snapshot');
        else state = applyPatch(state, e.delta, at);
        break;
      case 'STEP_STARTED':
        if (step !== null) fail(at, `step ${step} is still open`);
        step = e.stepName;
        break;
      case 'STEP_FINISHED':
        if (step !== e.stepName) fail(at, `finishes ${e.stepName}, open is ${step}`);
        step = null;
        break;
      case 'TEXT_MESSAGE_START':
        if (text !== null) fail(at, `message ${text} is still open`);
        text = e.messageId;
        break;
      case 'TEXT_MESSAGE_CONTENT':
        if (text !== e.messageId) fail(at, `message ${e.messageId} is not open`);
        if (e.delta === '') fail(at, 'an empty delta');
        break;
      case 'TEXT_MESSAGE_END':
        if (text !== e.messageId) fail(at, `message ${e.messageId} is not open`);
        text = null;
        break;
      case 'REASONING_START':
        if (reasoning !== null) fail(at, 'reasoning is already open');
        reasoning = e.messageId;
        break;
      case 'REASONING_MESSAGE_START':
        if (reasoning === null || reasoningMessage !== null) fail(at, 'not inside REASONING_START, or a message is open');
        reasoningMessage = e.messageId;
        break;
      case 'REASONING_MESSAGE_CONTENT':
        if (reasoningMessage !== e.messageId) fail(at, `reasoning message ${e.messageId} is not open`);
        break;
      case 'REASONING_MESSAGE_END':
        if (reasoningMessage !== e.messageId) fail(at, `reasoning message ${e.messageId} is not open`);
        reasoningMessage = null;
        break;
      case 'REASONING_END':
        if (reasoning !== e.messageId || reasoningMessage !== null) fail(at, 'reasoning is not open, or its message is');
        reasoning = null;
        break;
      case 'TOOL_CALL_START':
        if (open.has(e.toolCallId) || ended.has(e.toolCallId)) fail(at, `call ${e.toolCallId} started twice`);
        open.add(e.toolCallId);
        break;
      case 'TOOL_CALL_ARGS':
        if (!open.has(e.toolCallId)) fail(at, `call ${e.toolCallId} is not open`);
        break;
      case 'TOOL_CALL_END':
        if (!open.has(e.toolCallId)) fail(at, `call ${e.toolCallId} is not open`);
        open.delete(e.toolCallId);
        ended.add(e.toolCallId);
        break;
      case 'TOOL_CALL_RESULT':
        if (!ended.has(e.toolCallId)) fail(at, `a result for ${e.toolCallId}, which has not ended`);
        break;
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        if (text !== null || reasoning !== null || open.size > 0 || step !== null) {
          fail(at, `still open: text ${text}, reasoning ${reasoning}, calls ${[...open]}, step ${step}`);
        }
        // Frontend tool calls a finished run leaves to the client: calls it announced.
        for (const id of e.outcome?.pendingToolCallIds ?? []) {
          if (!ended.has(id)) fail(at, `pending call ${id} was never sent`);
        }
        if (e.type === 'RUN_FINISHED' && e.outcome?.type === 'interrupt') {
          for (const interrupt of e.outcome.interrupts) {
            if (interrupt.toolCallId && !ended.has(interrupt.toolCallId)) fail(at, `interrupt for unknown call ${interrupt.toolCallId}`);
          }
        }
        break;
      default:
        break;
    }
  }
}

const reports = input.protocol === 'ai-sdk' ? await checkAiSdk(input.streams) : await checkAgUi(input.streams);
if (problems.length > 0) {
  console.log(problems.join('\n'));
  process.exit(1);
}
console.log(JSON.stringify(reports));
