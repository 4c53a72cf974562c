// fakeagent.mjs — a tiny ACP agent on the same SDK (its agent side), used
// only to check drive.mjs before and apart from `luagent acp`. Prompts:
//   "hello"      text chunks, end_turn
//   "tool"       a tool_call, a permission request; completed when allowed
//                (an fs/write_text_file through the client), failed when rejected
//   "slow"       a tool_call in_progress that runs until session/cancel
//   "read"       fs/read_text_file of notes.txt's line 2, then of a file
//                outside the client's folder
//   "term"       a command in a client terminal
//   "elicit"     a form elicitation (elicitation/create), when offered
//   anything     echoed
// session/load of a session this process made replays its chunks.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const sessions = new Map(); // id -> {history: [update], busy, cancel}
let seq = 0;
let clientCaps = {};

function session(id) {
	const s = sessions.get(id);
	if (!s) throw acp.RequestError.sessionNotFound(id);
	return s;
}

const app = acp.agent({ name: "fakeagent" })
	.onRequest(acp.methods.agent.initialize, ({ params }) => {
		clientCaps = params.clientCapabilities ?? {};
		return {
			protocolVersion: acp.PROTOCOL_VERSION,
			agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: true } },
			authMethods: [],
		};
	})
	.onRequest(acp.methods.agent.session.new, ({ params }) => {
		const id = `fake-${++seq}`;
		sessions.set(id, { history: [], cwd: params.cwd, busy: false });
		return { sessionId: id };
	})
	.onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
		const s = session(params.sessionId);
		for (const u of s.history) await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
		return {};
	})
	.onNotification(acp.methods.agent.session.cancel, ({ params }) => {
		sessions.get(params.sessionId)?.cancel?.();
	})
	.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
		const s = session(params.sessionId);
		if (s.busy) throw acp.RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt is already running in this session");
		s.busy = true;
		let cancelled = false;
		const cancelP = new Promise((resolve) => { s.cancel = () => { cancelled = true; resolve(); }; });
		const say = async (update) => {
			s.history.push(update);
			await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
		};
		const text = (t) => say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } });
		try {
			const words = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join(" ");
			s.history.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: words } });
			if (words === "hello") {
				await text("Hello");
				await text(", world");
			} else if (words === "tool") {
				const toolCallId = "call-1";
				await say({ sessionUpdate: "tool_call", toolCallId, title: "Write notes.txt", kind: "edit", status: "pending", locations: [{ path: `${s.cwd}/notes.txt` }] });
				const res = await client.request(acp.methods.client.session.requestPermission, {
					sessionId: params.sessionId,
					toolCall: { toolCallId, title: "Write notes.txt", kind: "edit" },
					options: [
						{ optionId: "once", name: "Allow once", kind: "allow_once" },
						{ optionId: "always", name: "Always allow", kind: "allow_always" },
						{ optionId: "reject", name: "Reject", kind: "reject_once" },
					],
				});
				if (cancelled || res.outcome.outcome === "cancelled") return { stopReason: "cancelled" };
				if (res.outcome.optionId === "reject") {
					await say({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [{ type: "content", content: { type: "text", text: "rejected" } }] });
				} else {
					if (clientCaps.fs?.writeTextFile) await client.request(acp.methods.client.fs.writeTextFile, { sessionId: params.sessionId, path: `${s.cwd}/notes.txt`, content: `chosen: ${res.outcome.optionId}\n` });
					await say({ sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: [{ type: "content", content: { type: "text", text: "written" } }] });
				}
				await text("done");
			} else if (words === "read") {
				// line 2 of notes.txt, then a file outside the client's folder
				const r = await client.request(acp.methods.client.fs.readTextFile, { sessionId: params.sessionId, path: `${s.cwd}/notes.txt`, line: 2, limit: 1 });
				await text(`read: ${r.content}`);
				try {
					await client.request(acp.methods.client.fs.readTextFile, { sessionId: params.sessionId, path: "/etc/hostname" });
					await text(" outside: read");
				} catch (e) {
					await text(` outside: ${e.code}`);
				}
			} else if (words === "elicit") {
				if (!clientCaps.elicitation?.form) {
					await text("no form elicitation");
				} else {
					const r = await client.request(acp.methods.client.elicitation.create, {
						sessionId: params.sessionId, mode: "form", message: "Your name?",
						requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
					});
					await text(`elicit: ${r.action}${r.content ? " " + r.content.name : ""}`);
				}
			} else if (words === "term") {
				const term = await client.createTerminal({ sessionId: params.sessionId, command: "sh", args: ["-c", "echo from-terminal; exit 3"] });
				const exit = await term.waitForExit();
				const out = await term.currentOutput();
				await term.release();
				await text(`terminal: ${out.output.trim()} exit ${exit.exitCode}`);
			} else if (words === "slow") {
				await say({ sessionUpdate: "tool_call", toolCallId: "slow-1", title: "Wait", kind: "execute", status: "in_progress" });
				await cancelP;
				await say({ sessionUpdate: "tool_call_update", toolCallId: "slow-1", status: "failed" });
			} else {
				await text(`echo: ${words}`);
			}
			return { stopReason: cancelled ? "cancelled" : "end_turn" };
		} finally {
			s.busy = false;
			s.cancel = undefined;
		}
	});

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await conn.closed;
