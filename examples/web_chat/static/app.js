// The web chat's page: plain JavaScript, no build step.
//
// It speaks the Vercel AI SDK's UI message stream protocol, as `useChat` does: it posts the
// conversation's messages to the thread's run route and reads the answer as server-sent
// events (`data: {json}` lines, ending with `data: [DONE]`), folding each part into the
// assistant's message as it arrives. The thread id lives in the URL (`?thread=...`); on load
// the page asks the server for the thread's history, so a reload shows the conversation.
"use strict";

const ROUTES = {
  run: (thread) => `/api/threads/${encodeURIComponent(thread)}/runs/ai-sdk`,
  history: (thread) => `/api/threads/${encodeURIComponent(thread)}/messages`,
  info: "/info.json",
};

const $ = (selector) => document.querySelector(selector);
const view = {
  messages: $("#messages"),
  empty: $("#empty"),
  input: $("#input"),
  send: $("#send"),
  stop: $("#stop"),
  status: $("#status"),
  form: $("#composer"),
  model: $("#model"),
};

const chat = {
  thread: new URLSearchParams(location.search).get("thread"),
  messages: [], // UIMessage[]: { id, role, parts: [...] }
  busy: false,
  loading: false,
  abort: null,
  error: null,
};

// ---------------------------------------------------------------------------------------
// Talking to the server.

function newId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

function ensureThread() {
  if (chat.thread) return chat.thread;
  chat.thread = newId();
  const url = new URL(location.href);
  url.searchParams.set("thread", chat.thread);
  history.replaceState(null, "", url);
  return chat.thread;
}

// Nothing can be sent until the history is in (a message sent before would be lost).
async function loadHistory() {
  if (!chat.thread) return;
  chat.busy = chat.loading = true;
  render();
  try {
    const response = await fetch(ROUTES.history(chat.thread));
    // 404: a thread nobody has written to yet; nothing to show.
    if (response.status !== 404) {
      if (!response.ok) throw new Error(await errorText(response));
      chat.messages = await response.json();
    }
  } catch (e) {
    chat.error = `Could not load the conversation: ${e.message}`;
  }
  chat.busy = chat.loading = false;
  render();
}

async function errorText(response) {
  try {
    const body = await response.json();
    return body.error?.message || body.message || body.error || response.statusText;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

// Posts the conversation (as `useChat` does) and folds the streamed answer into it: into a
// new assistant message after a user message, or into the last one when it carries approval
// responses (the resumed run goes on with the same message).
async function run() {
  const thread = ensureThread();
  chat.busy = true;
  chat.error = null;
  chat.abort = new AbortController();
  render();
  const body = JSON.stringify({ id: thread, trigger: "submit-message", messages: chat.messages });
  let assistant = last(chat.messages);
  if (assistant.role !== "assistant") {
    assistant = { id: newId(), role: "assistant", parts: [] };
    chat.messages.push(assistant);
  }
  const streaming = { assistant, active: {} };
  let accepted = false;
  try {
    const response = await fetch(ROUTES.run(thread), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body,
      signal: chat.abort.signal,
    });
    if (!response.ok) throw new Error(await errorText(response));
    accepted = true;
    await readEvents(response.body, (chunk) => {
      apply(streaming, chunk);
      render();
    });
  } catch (e) {
    if (e.name !== "AbortError") chat.error = e.message;
  } finally {
    for (const part of assistant.parts) {
      if (part.state === "streaming") part.state = "done";
      // A decision the server refused (the request failed): ask again.
      if (!accepted && part.state === "approval-responded") part.state = "approval-requested";
    }
    if (assistant.parts.length === 0) chat.messages.splice(chat.messages.indexOf(assistant), 1);
    chat.busy = false;
    chat.abort = null;
    render();
  }
}

// Reads an SSE body: events are separated by a blank line; their `data:` lines joined.
async function readEvents(body, onChunk) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
        .join("\n");
      if (!data) continue;
      if (data === "[DONE]") return;
      onChunk(JSON.parse(data));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The UI message stream, folded into a UIMessage (the shape `useChat` keeps).

function toolPart(message, id) {
  return message.parts.find((p) => p.toolCallId === id);
}

function apply(streaming, chunk) {
  const message = streaming.assistant;
  const open = (type, id) => {
    const part = { type, text: "", state: "streaming" };
    message.parts.push(part);
    streaming.active[id] = part;
  };
  switch (chunk.type) {
    case "start":
      if (chunk.messageId) message.id = chunk.messageId;
      break;
    case "start-step":
      message.parts.push({ type: "step-start" });
      break;
    case "text-start":
      open("text", chunk.id);
      break;
    case "reasoning-start":
      open("reasoning", chunk.id);
      break;
    case "text-delta":
    case "reasoning-delta": {
      let part = streaming.active[chunk.id];
      if (!part) {
        open(chunk.type.startsWith("text") ? "text" : "reasoning", chunk.id);
        part = streaming.active[chunk.id];
      }
      part.text += chunk.delta;
      break;
    }
    case "text-end":
    case "reasoning-end":
      if (streaming.active[chunk.id]) streaming.active[chunk.id].state = "done";
      break;
    case "tool-input-start":
      // A resumed run may announce a call the message has already: keep its part.
      if (!toolPart(message, chunk.toolCallId)) {
        message.parts.push({
          type: chunk.dynamic ? "dynamic-tool" : `tool-${chunk.toolName}`,
          toolName: chunk.toolName,
          toolCallId: chunk.toolCallId,
          state: "input-streaming",
          inputText: "",
        });
      }
      break;
    case "tool-input-delta": {
      const part = toolPart(message, chunk.toolCallId);
      if (part) part.inputText += chunk.inputTextDelta;
      break;
    }
    case "tool-input-available":
    case "tool-input-error": {
      let part = toolPart(message, chunk.toolCallId);
      if (!part) {
        part = { type: `tool-${chunk.toolName}`, toolName: chunk.toolName, toolCallId: chunk.toolCallId };
        message.parts.push(part);
      }
      part.input = chunk.input;
      part.state = chunk.type === "tool-input-error" ? "output-error" : "input-available";
      if (chunk.errorText) part.errorText = chunk.errorText;
      break;
    }
    case "tool-approval-request": {
      const part = toolPart(message, chunk.toolCallId);
      if (part) {
        part.state = "approval-requested";
        part.approval = { id: chunk.approvalId };
      }
      break;
    }
    case "tool-output-available": {
      const part = toolPart(message, chunk.toolCallId);
      if (part) {
        part.state = "output-available";
        part.output = chunk.output;
      }
      break;
    }
    case "tool-output-error": {
      const part = toolPart(message, chunk.toolCallId);
      if (part) {
        part.state = "output-error";
        part.errorText = chunk.errorText;
      }
      break;
    }
    case "tool-output-denied": {
      const part = toolPart(message, chunk.toolCallId);
      if (part) part.state = "output-denied";
      break;
    }
    case "error":
      chat.error = chunk.errorText || "The run failed.";
      break;
    case "abort":
      chat.error = "The run was stopped.";
      break;
    default:
      if (chunk.type && chunk.type.startsWith("data-") && !chunk.transient) {
        const known = chunk.id && message.parts.find((p) => p.type === chunk.type && p.id === chunk.id);
        if (known) known.data = chunk.data;
        else message.parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
      }
      // finish, finish-step, message-metadata and parts this page does not show
  }
}

// ---------------------------------------------------------------------------------------
// Actions.

function send(text) {
  text = text.trim();
  if (!text || chat.busy) return;
  chat.messages.push({ id: newId(), role: "user", parts: [{ type: "text", text }] });
  view.input.value = "";
  run();
}

// Records the decision on the tool part, as `addToolApprovalResponse` does; once every
// pending approval of the message has one, the conversation is sent to resume the run.
function decide(part, approved) {
  if (chat.busy) return;
  part.state = "approval-responded";
  part.approval = {
    id: part.approval.id,
    approved,
    reason: approved ? undefined : "The user rejected this in the web chat.",
  };
  const message = last(chat.messages);
  if (!message.parts.some((p) => p.state === "approval-requested")) run();
  else render();
}

// ---------------------------------------------------------------------------------------
// Rendering: the whole conversation from `chat.messages`, on every change.

function last(list) {
  return list[list.length - 1];
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A value for a person: a JSON string is read first; an object of plain values is one line
// `key: value · key: value`, a list one such line per item; anything deeper is indented JSON.
function pretty(value) {
  if (value === undefined) return "";
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return value;
    }
    if (typeof value === "string") return value;
  }
  const plain = (v) => v === null || typeof v !== "object";
  const line = (object) =>
    Object.entries(object)
      .map(([key, v]) => `${key}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" · ");
  const flat = (v) => !plain(v) && !Array.isArray(v) && Object.values(v).every(plain);
  if (flat(value)) return line(value);
  if (Array.isArray(value) && value.every((v) => plain(v) || flat(v))) {
    return value.map((v) => (plain(v) ? String(v) : line(v))).join("\n");
  }
  return JSON.stringify(value, null, 2);
}

const TOOL_STATE = {
  "input-streaming": ["running", "writing the call…"],
  "input-available": ["running", "running…"],
  "approval-requested": ["approval", "needs your approval"],
  "approval-responded": ["running", "decided"],
  "output-available": ["done", "done"],
  "output-error": ["failed", "failed"],
  "output-denied": ["denied", "rejected"],
};

function renderTool(part) {
  const name = part.toolName || part.type.replace(/^tool-/, "");
  const [kind, label] = TOOL_STATE[part.state] || ["running", part.state || ""];
  const card = element("div", `tool ${kind}`);
  card.dataset.tool = name;
  card.dataset.state = part.state || "";
  const head = element("div", "head");
  head.append(element("span", "name", name), element("span", "state", label));
  card.append(head);
  const input = part.input !== undefined ? pretty(part.input) : part.inputText;
  if (input) card.append(element("div", "label", "arguments"), element("pre", "input", input));
  if (part.state === "output-available") {
    card.append(element("div", "label", "result"), element("pre", "output", pretty(part.output)));
  }
  if (part.errorText) card.append(element("pre", "output", part.errorText));
  if (part.state === "approval-requested") {
    const actions = element("div", "actions");
    const approve = element("button", "approve", "Approve");
    const reject = element("button", "reject", "Reject");
    approve.type = reject.type = "button";
    approve.disabled = reject.disabled = chat.busy;
    approve.onclick = () => decide(part, true);
    reject.onclick = () => decide(part, false);
    actions.append(approve, reject);
    card.append(actions);
  }
  return card;
}

function renderMessage(message) {
  const box = element("div", `message ${message.role}`);
  box.dataset.id = message.id;
  for (const part of message.parts) {
    if (part.type === "text") {
      if (!part.text && part.state !== "streaming") continue;
      const bubble = element("div", "bubble", part.text);
      if (part.state === "streaming") bubble.classList.add("streaming");
      box.append(bubble);
    } else if (part.type === "reasoning" && part.text) {
      box.append(element("div", "reasoning", part.text));
    } else if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) {
      box.append(renderTool(part));
    }
    // Data parts (`data-output`, `data-state`, a tool's `data-event`s) are kept, not shown.
  }
  return box;
}

function render() {
  const nodes = chat.messages.filter((m) => m.parts.length > 0).map(renderMessage);
  if (chat.error) nodes.push(element("div", "error", chat.error));
  view.empty.hidden = nodes.length > 0;
  view.messages.replaceChildren(view.empty, ...nodes);
  view.send.disabled = chat.busy;
  view.stop.hidden = !chat.busy;
  const waiting = last(chat.messages)?.parts.some((p) => p.state === "approval-requested");
  setStatus(
    chat.loading
      ? "Loading the conversation…"
      : chat.busy
        ? "The assistant is answering…"
        : waiting
          ? "Waiting for your decision."
          : "",
  );
  document.body.dataset.busy = chat.busy ? "true" : "false";
  window.scrollTo(0, document.body.scrollHeight);
}

function setStatus(text) {
  view.status.textContent = text;
}

view.form.addEventListener("submit", (event) => {
  event.preventDefault();
  send(view.input.value);
});
view.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    send(view.input.value);
  }
});
view.stop.addEventListener("click", () => chat.abort?.abort());
for (const button of document.querySelectorAll(".suggestion")) {
  button.addEventListener("click", () => send(button.textContent));
}

fetch(ROUTES.info)
  .then((r) => (r.ok ? r.json() : null))
  .then((info) => {
    if (info?.model) view.model.textContent = info.model;
  })
  .catch(() => {});
loadHistory();
render();
