// drive.mjs — drives an ACP agent over stdio with the official ACP
// TypeScript SDK's client connection (@agentclientprotocol/sdk, pinned in
// package.json), runs a script of operations read from stdin (or a named
// scenario, --scenario NAME), and prints one JSON transcript of what it saw
// to stdout. See README.md for the operations and the transcript.
//
//   node drive.mjs [--timeout MS] [--root DIR] [--scenario NAME] -- AGENT_CMD [ARGS...] < ops.json
//
// The agent command may also come from ACP_AGENT (a JSON array of strings).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as acp from "@agentclientprotocol/sdk";

// ---- arguments --------------------------------------------------------
const argv = process.argv.slice(2);
let timeoutMs = 60000;
let root = "";
let scenario = "";
let agentCmd = [];
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	if (a === "--") { agentCmd = argv.slice(i + 1); break; }
	else if (a === "--timeout") timeoutMs = Number(argv[++i]);
	else if (a === "--root") root = argv[++i];
	else if (a === "--scenario") scenario = argv[++i];
	else { console.error(`drive.mjs: unknown argument ${a}`); process.exit(2); }
}
if (agentCmd.length === 0 && process.env.ACP_AGENT) agentCmd = JSON.parse(process.env.ACP_AGENT);
if (agentCmd.length === 0) {
	console.error("usage: drive.mjs [--timeout MS] [--root DIR] [--scenario NAME] -- AGENT_CMD [ARGS...] < ops.json");
	process.exit(2);
}
if (!root) root = await fs.mkdtemp(path.join(os.tmpdir(), "acpclient-"));
root = path.resolve(root);

// Named scenarios: the common scripts, so a person can try an agent quickly.
const scenarios = {
	hello: [
		{ op: "initialize" },
		{ op: "new", as: "s1" },
		{ op: "prompt", session: "s1", text: "hello" },
	],
	permission: [
		{ op: "initialize" },
		{ op: "new", as: "s1" },
		{ op: "prompt", session: "s1", text: "write a file", permissions: ["allow_once"] },
	],
};

let ops;
if (scenario) {
	ops = scenarios[scenario];
	if (!ops) { console.error(`drive.mjs: no scenario ${scenario} (have: ${Object.keys(scenarios).join(", ")})`); process.exit(2); }
} else {
	const chunks = [];
	for await (const c of process.stdin) chunks.push(c);
	ops = JSON.parse(Buffer.concat(chunks).toString("utf8") || "[]");
}

// ---- transcript -------------------------------------------------------
const transcript = { root, ops: [], stray: [], raw: [], fs: [], terminals: [] };
const sessions = {}; // name -> sessionId
const collectors = new Map(); // sessionId -> op entry collecting its updates
const seenKinds = new Map(); // sessionId -> Set of sessionUpdate kinds seen
const waiters = []; // {pred, resolve}: resolved when an event matches
function emit(ev) {
	for (let i = waiters.length - 1; i >= 0; i--) {
		if (waiters[i].pred(ev)) { waiters[i].resolve(ev); waiters.splice(i, 1); }
	}
}
function waitFor(pred) { return new Promise((resolve) => waiters.push({ pred, resolve })); }

// "$s1" anywhere in a value becomes the id of session s1.
function subst(v) {
	if (typeof v === "string" && v.startsWith("$") && v.slice(1) in sessions) return sessions[v.slice(1)];
	if (Array.isArray(v)) return v.map(subst);
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x)]));
	return v;
}
function sessionId(op) { return op.sessionId ?? sessions[op.session ?? "s1"] ?? op.session; }
function errorOf(e) {
	if (e && typeof e === "object" && "code" in e) return { code: e.code, message: e.message, data: e.data };
	return { message: String(e?.message ?? e) };
}

// ---- the agent process ------------------------------------------------
const child = spawn(agentCmd[0], agentCmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
let exited = null;
const exitedP = new Promise((resolve) => child.on("exit", (code, signal) => { exited = { code, signal }; resolve(); }));
child.on("error", (e) => { transcript.spawnError = String(e); });
child.stdin.on("error", () => {});

// Every line the agent writes is looked at on its way to the SDK: replies
// to raw lines (id null, or a "raw-" id) are kept in transcript.raw.
const tap = new TransformStream({
	start() { this.buf = ""; },
	transform(chunk, controller) {
		controller.enqueue(chunk);
		this.buf += Buffer.from(chunk).toString("utf8");
		let nl;
		while ((nl = this.buf.indexOf("\n")) >= 0) {
			const line = this.buf.slice(0, nl).trim();
			this.buf = this.buf.slice(nl + 1);
			if (!line) continue;
			let msg;
			try { msg = JSON.parse(line); } catch { transcript.raw.push({ unparsed: line }); emit({ kind: "raw" }); continue; }
			if (msg && !("method" in msg) && (msg.id === null || (typeof msg.id === "string" && msg.id.startsWith("raw-")))) {
				transcript.raw.push(msg);
				emit({ kind: "raw", msg });
			}
		}
	},
});
const input = Readable.toWeb(child.stdout).pipeThrough(tap);
const output = Writable.toWeb(child.stdin);
const stream = acp.ndJsonStream(output, input);

// ---- the client side: permissions, updates, files, terminals -----------
const permissionQueue = new Map(); // sessionId -> [choice]
const elicitQueue = new Map(); // sessionId -> [answer]
const held = []; // {entry, request, resolve}
function answerPermission(params, choice) {
	if (choice === "cancelled") return { outcome: { outcome: "cancelled" } };
	const opt = params.options.find((o) => o.kind === choice || o.optionId === choice);
	if (!opt) return { outcome: { outcome: "cancelled" } };
	return { outcome: { outcome: "selected", optionId: opt.optionId } };
}

const terminals = new Map();
let terminalSeq = 0;
function inRoot(p) {
	const abs = path.resolve(p);
	if (abs !== root && !abs.startsWith(root + path.sep)) throw acp.RequestError.invalidParams({ path: p }, `${p} is outside the client's folder ${root}`);
	return abs;
}

const app = acp.client({ name: "luagent-acpclient" })
	.onNotification(acp.methods.client.session.update, ({ params }) => {
		const entry = collectors.get(params.sessionId);
		const u = params.update;
		const kinds = seenKinds.get(params.sessionId) ?? new Set();
		kinds.add(u.sessionUpdate);
		seenKinds.set(params.sessionId, kinds);
		if (entry) {
			entry.updates.push(u);
			if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") entry.text += u.content.text;
		} else transcript.stray.push(params);
		emit({ kind: "update", sessionId: params.sessionId, update: u });
	})
	.onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
		const entry = collectors.get(params.sessionId);
		const rec = { toolCall: params.toolCall, options: params.options };
		(entry ? entry.permissions : transcript.stray).push(rec);
		const q = permissionQueue.get(params.sessionId) ?? [];
		let choice = q.length ? q.shift() : "reject_once";
		emit({ kind: "permission", sessionId: params.sessionId, params });
		if (entry?.cancelOn === "permission") {
			await sendCancel(params.sessionId, entry);
			choice = "cancelled";
		}
		if (choice === "hold") {
			rec.held = true;
			choice = await new Promise((resolve) => held.push({ rec, resolve }));
		}
		rec.answer = choice;
		return answerPermission(params, choice);
	})
	.onRequest(acp.methods.client.elicitation.create, ({ params }) => {
		// Answered from the prompt's `elicitations` list: "decline",
		// "cancel", or {"action":"accept","content":{...}}; else declined.
		const sid = params.sessionId;
		const entry = sid !== undefined ? collectors.get(sid) : undefined;
		const rec = { ...params };
		(entry ? (entry.elicitations ??= []) : transcript.stray).push(rec);
		const q = elicitQueue.get(sid) ?? [];
		const a = q.length ? q.shift() : "decline";
		const answer = typeof a === "string" ? { action: a } : a;
		rec.answer = answer;
		emit({ kind: "elicitation", sessionId: sid, params });
		return answer;
	})
	.onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
		transcript.stray.push({ elicitationComplete: params });
	})
	.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
		transcript.fs.push({ method: "fs/read_text_file", path: params.path, line: params.line, limit: params.limit });
		let text = await fs.readFile(inRoot(params.path), "utf8").catch((e) => {
			throw e.code === "ENOENT" ? acp.RequestError.resourceNotFound(params.path) : e;
		});
		if (params.line || params.limit) {
			const lines = text.split("\n");
			const from = Math.max((params.line ?? 1) - 1, 0);
			text = lines.slice(from, params.limit ? from + params.limit : undefined).join("\n");
		}
		return { content: text };
	})
	.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
		transcript.fs.push({ method: "fs/write_text_file", path: params.path, bytes: Buffer.byteLength(params.content) });
		const abs = inRoot(params.path);
		await fs.mkdir(path.dirname(abs), { recursive: true });
		await fs.writeFile(abs, params.content);
		return {};
	})
	.onRequest(acp.methods.client.terminal.create, async ({ params }) => {
		const id = `term-${++terminalSeq}`;
		const env = { ...process.env };
		for (const v of params.env ?? []) env[v.name] = v.value;
		const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? root, env, stdio: ["ignore", "pipe", "pipe"] });
		const t = { proc, output: "", truncated: false, limit: params.outputByteLimit ?? 1 << 20, exit: null };
		const add = (d) => {
			t.output += d.toString("utf8");
			if (Buffer.byteLength(t.output) > t.limit) { t.output = t.output.slice(-t.limit); t.truncated = true; }
		};
		proc.stdout.on("data", add);
		proc.stderr.on("data", add);
		t.done = new Promise((resolve) => {
			proc.on("error", (e) => { add(Buffer.from(String(e))); t.exit = { exitCode: 127, signal: null }; resolve(); });
			proc.on("close", (code, signal) => { t.exit = { exitCode: code, signal }; resolve(); });
		});
		terminals.set(id, t);
		t.rec = { id, command: params.command, args: params.args ?? [] };
		transcript.terminals.push(t.rec);
		return { terminalId: id };
	})
	.onRequest(acp.methods.client.terminal.output, ({ params }) => {
		const t = terminal(params.terminalId);
		return { output: t.output, truncated: t.truncated, exitStatus: t.exit ?? undefined };
	})
	.onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
		const t = terminal(params.terminalId);
		await t.done;
		return t.exit;
	})
	.onRequest(acp.methods.client.terminal.kill, ({ params }) => {
		const t = terminal(params.terminalId);
		t.rec.killed = true;
		t.proc.kill("SIGTERM");
		return {};
	})
	.onRequest(acp.methods.client.terminal.release, ({ params }) => {
		const t = terminal(params.terminalId);
		t.rec.released = true;
		if (!t.exit) { t.rec.killedAtRelease = true; t.proc.kill("SIGKILL"); }
		terminals.delete(params.terminalId);
		return {};
	});
function terminal(id) {
	const t = terminals.get(id);
	if (!t) throw acp.RequestError.resourceNotFound(id);
	return t;
}

let ctxRef;
async function sendCancel(sid, entry) {
	if (entry) entry.cancelSent = true;
	await ctxRef.notify(acp.methods.agent.session.cancel, { sessionId: sid });
}

// ---- the operations -----------------------------------------------------
const background = new Map(); // name -> promise
const conditions = {
	sent: () => true,
	update: (ev) => ev.kind === "update",
	tool_call: (ev) => ev.kind === "update" && ev.update.sessionUpdate === "tool_call",
	tool_call_update: (ev) => ev.kind === "update" && ev.update.sessionUpdate === "tool_call_update",
	in_progress: (ev) => ev.kind === "update" && (ev.update.sessionUpdate === "tool_call" || ev.update.sessionUpdate === "tool_call_update") && ev.update.status === "in_progress",
	permission: (ev) => ev.kind === "permission",
	elicitation: (ev) => ev.kind === "elicitation",
	terminal: (ev) => ev.kind === "update" && Array.isArray(ev.update.content) && ev.update.content.some((c) => c.type === "terminal"),
};
function condition(name, sid) {
	const c = conditions[name];
	if (!c) throw new Error(`unknown condition ${name} (have: ${Object.keys(conditions).join(", ")})`);
	return (ev) => (ev.sessionId === undefined || ev.sessionId === sid) && c(ev);
}

async function runOp(ctx, op, entry) {
	switch (op.op) {
		case "initialize":
			return ctx.request(acp.methods.agent.initialize, {
				protocolVersion: op.protocolVersion ?? acp.PROTOCOL_VERSION,
				clientCapabilities: op.clientCapabilities ?? { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
				clientInfo: { name: "luagent-acpclient", version: "1" },
			});
		case "authenticate":
			return ctx.request(acp.methods.agent.authenticate, { methodId: op.methodId });
		case "new": {
			const res = await ctx.request(acp.methods.agent.session.new, { cwd: op.cwd ?? root, mcpServers: subst(op.mcpServers ?? []) });
			sessions[op.as ?? "s1"] = res.sessionId;
			// Updates sent once the session is open (available commands, ...)
			// land here until a prompt takes over.
			entry.updates = []; entry.text = "";
			collectors.set(res.sessionId, entry);
			return res;
		}
		case "load": {
			const sid = sessionId(op);
			entry.updates = []; entry.text = "";
			const prev = collectors.get(sid);
			if (!(prev && prev.op === "prompt" && prev.ok === undefined)) collectors.set(sid, entry);
			const res = await ctx.request(acp.methods.agent.session.load, { sessionId: sid, cwd: op.cwd ?? root, mcpServers: subst(op.mcpServers ?? []) });
			if (op.as) sessions[op.as] = sid;
			return res ?? {};
		}
		case "prompt": {
			const sid = sessionId(op);
			entry.updates = []; entry.permissions = []; entry.text = "";
			if (op.cancelOn) entry.cancelOn = op.cancelOn;
			if (op.permissions) permissionQueue.set(sid, [...op.permissions]);
			if (op.elicitations) elicitQueue.set(sid, [...op.elicitations]);
			// A prompt sent during another one on the same session leaves the
			// updates with the first.
			const prev = collectors.get(sid);
			if (!(prev && prev.op === "prompt" && prev.ok === undefined)) collectors.set(sid, entry);
			const blocks = op.prompt ?? [{ type: "text", text: op.text ?? "" }];
			let cancelWatch;
			if (op.cancelOn && op.cancelOn !== "permission") {
				cancelWatch = waitFor(condition(op.cancelOn, sid)).then(() => sendCancel(sid, entry));
			}
			const started = op.until ? waitFor(condition(op.until, sid)) : null;
			const p = ctx.request(acp.methods.agent.session.prompt, { sessionId: subst(sid), prompt: blocks });
			const done = p.then((res) => { entry.ok = true; entry.result = res; }, (e) => { entry.ok = false; entry.error = errorOf(e); });
			if (op.background) {
				background.set(op.as ?? "bg", done);
				if (started) await Promise.race([started, done]);
				entry.background = true;
				return undefined;
			}
			await done;
			if (cancelWatch && !entry.cancelSent) entry.cancelNeverSent = true;
			return undefined;
		}
		case "await": {
			const names = op.name ? [op.name] : [...background.keys()];
			for (const n of names) { await background.get(n); background.delete(n); }
			return {};
		}
		case "wait": {
			// Until an update of kind `update` has come for the session (at
			// any time so far), or timeoutMs (5000) passes.
			const sid = sessionId(op);
			const seen = () => seenKinds.get(sid)?.has(op.update);
			if (seen()) return {};
			const limit = op.timeoutMs ?? 5000;
			let timer;
			const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no ${op.update} update within ${limit} ms`)), limit); });
			try {
				await Promise.race([waitFor((ev) => ev.kind === "update" && ev.sessionId === sid && ev.update.sessionUpdate === op.update), late]);
			} finally {
				clearTimeout(timer);
			}
			return {};
		}
		case "cancel":
			await sendCancel(sessionId(op));
			return {};
		case "answer": {
			const h = held.shift();
			if (!h) throw new Error("no held permission request to answer");
			h.resolve(op.choice);
			return {};
		}
		case "setMode":
			return (await ctx.request(acp.methods.agent.session.setMode, { sessionId: sessionId(op), modeId: op.modeId })) ?? {};
		case "request":
			return (await ctx.request(op.method, subst(op.params ?? {}))) ?? {};
		case "notify":
			await ctx.notify(op.method, subst(op.params ?? {}));
			return {};
		case "raw": {
			// A line written to the agent's stdin as is; waits for `expect`
			// replies (default 1) with id null or a "raw-" id.
			const want = transcript.raw.length + (op.expect ?? 1);
			const line = typeof op.line === "string" ? op.line : JSON.stringify(subst(op.line));
			child.stdin.write(line + "\n");
			const limit = op.timeoutMs ?? 10000;
			let timer;
			const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no reply to the raw line within ${limit} ms`)), limit); });
			try {
				while (transcript.raw.length < want) await Promise.race([waitFor((ev) => ev.kind === "raw"), late]);
			} finally {
				clearTimeout(timer);
			}
			return { replies: transcript.raw.slice(want - (op.expect ?? 1), want) };
		}
		case "writeFile": {
			await fs.writeFile(inRoot(path.resolve(root, op.path)), op.content);
			return {};
		}
		case "readFile":
			return { content: await fs.readFile(inRoot(path.resolve(root, op.path)), "utf8").catch(() => null) };
		default:
			throw new Error(`unknown op ${op.op}`);
	}
}

let timedOut = false;
const timer = setTimeout(() => {
	timedOut = true;
	finish(3);
}, timeoutMs);

let finished = false;
let connClosed = () => false;
async function finish(code) {
	if (finished) return;
	finished = true;
	clearTimeout(timer);
	transcript.timedOut = timedOut;
	transcript.aliveAtEnd = exited === null && !connClosed();
	for (const t of terminals.values()) if (!t.exit) t.proc.kill("SIGKILL");
	child.stdin.end();
	const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
	await exitedP;
	clearTimeout(killer);
	transcript.exit = exited;
	process.stdout.write(JSON.stringify(transcript) + "\n", () => process.exit(code));
}

// The agent exiting closes the connection: what is pending fails at once.
const conn = app.connect(stream);
connClosed = () => conn.signal.aborted;
exitedP.then(() => conn.close(new Error(`the agent exited (${JSON.stringify(exited)})`)));
const ctx = conn.agent;
ctxRef = ctx;
for (const op of ops) {
	const entry = { op: op.op };
	if (op.session) entry.session = op.session;
	if (op.method) entry.method = op.method;
	transcript.ops.push(entry);
	const t0 = performance.now();
	try {
		const res = await runOp(ctx, op, entry);
		if (op.op !== "prompt") { entry.ok = true; entry.result = res; }
	} catch (e) {
		entry.ok = false;
		entry.error = errorOf(e);
	}
	if (!entry.background) entry.ms = Math.round((performance.now() - t0) * 10) / 10;
	if (timedOut) break;
}
for (const p of background.values()) await p;
await finish(0);
