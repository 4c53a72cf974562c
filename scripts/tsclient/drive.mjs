#!/usr/bin/env node
// drive.mjs — run a script of MCP operations against a stdio server with the
// official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0), in a
// forced protocol era. See README.md.
//
//   node drive.mjs --era modern|legacy [--timeout MS] -- SERVER_CMD [ARGS...] < ops.json
//   node drive.mjs --era modern|legacy [--timeout MS] --url URL < ops.json   (Streamable HTTP)
//
// stdin: a JSON array of operations, each {op, ...args}:
//   {"op":"listTools"}                 {"op":"callTool","name":"echo","arguments":{...}}
//   {"op":"listResources"}             {"op":"readResource","uri":"test://static"}
//   {"op":"listResourceTemplates"}     {"op":"listPrompts"}
//   {"op":"getPrompt","name":"greet","arguments":{...}}
//   {"op":"complete","ref":{...},"argument":{"name":..,"value":..},"context":{...}}
//   {"op":"setLogLevel","level":"debug"}
// Any op may carry "_meta" (merged into the request's params._meta).
//
// stdout: JSON lines. The first describes the connection (era, negotiated
// version, server info); then one line per op: {op, ok, result} or
// {op, ok:false, error:{code,message,data}}; callTool lines also carry the
// progress notifications and log messages received while the call ran.
// Exit status: 0 when the script ran (op errors are reported, not fatal),
// 1 when the connection or the input failed.
//
// Era forcing (ClientOptions.versionNegotiation): legacy = mode 'legacy'
// (the plain 2025 initialize handshake, no probe); modern = mode
// {pin: '2026-07-28'} (connect sends server/discover and fails unless the
// server offers 2026-07-28; every request then carries the per-request _meta
// envelope and server input arrives as input_required results that the client
// fulfils through the same elicitation/sampling handlers).
//
// Environment: TSCLIENT_ELICIT_CONTENT — JSON object returned as the accepted
// elicitation content (default {"name":"TS"}).

import { Client, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MODERN = '2026-07-28';

function usage(msg) {
    process.stderr.write(`drive.mjs: ${msg}\nusage: node drive.mjs --era modern|legacy [--timeout MS] -- CMD [ARGS...] < ops.json\n`);
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { era: undefined, timeout: 30000, command: [], url: undefined };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--') {
            opts.command = argv.slice(i + 1);
            break;
        } else if (a === '--era') opts.era = argv[++i];
        else if (a === '--timeout') opts.timeout = Number(argv[++i]);
        else if (a === '--url') opts.url = argv[++i];
        else usage(`unknown argument ${a}`);
    }
    if (opts.era !== 'modern' && opts.era !== 'legacy') usage('--era must be modern or legacy');
    if (opts.command.length === 0 && !opts.url) usage('missing server command after -- (or --url URL)');
    if (!(opts.timeout > 0)) usage('--timeout must be a positive number of milliseconds');
    return opts;
}

async function readStdin() {
    const chunks = [];
    for await (const c of process.stdin) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8').trim();
    return text === '' ? [] : JSON.parse(text);
}

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

function errorInfo(e) {
    return {
        code: typeof e?.code === 'number' || typeof e?.code === 'string' ? e.code : undefined,
        message: e instanceof Error ? e.message : String(e),
        data: e?.data
    };
}

const opts = parseArgs(process.argv.slice(2));

let ops;
try {
    ops = await readStdin();
    if (!Array.isArray(ops)) throw new Error('stdin must be a JSON array of operations');
} catch (e) {
    out({ connected: false, error: errorInfo(e) });
    process.exit(1);
}

let elicitContent = { name: 'TS' };
if (process.env.TSCLIENT_ELICIT_CONTENT) elicitContent = JSON.parse(process.env.TSCLIENT_ELICIT_CONTENT);

const client = new Client(
    { name: 'luagent-tsclient', version: '2.4.0' },
    {
        capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
        versionNegotiation: { mode: opts.era === 'modern' ? { pin: MODERN } : 'legacy' }
    }
);

client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: elicitContent }));
client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///ts', name: 'ts' }] }));
client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'sampled by ts' },
    model: 'luagent-tsclient',
    stopReason: 'endTurn'
}));

// Log messages go to whichever op is running (the callTool line reports them).
let logs = [];
client.setNotificationHandler('notifications/message', (n) => {
    logs.push(n.params);
});

const [command, ...args] = opts.command;
const transport = opts.url
    ? new StreamableHTTPClientTransport(new URL(opts.url))
    : new StdioClientTransport({ command, args, stderr: 'inherit' });

try {
    await client.connect(transport, { timeout: opts.timeout });
} catch (e) {
    out({ connected: false, error: errorInfo(e) });
    process.exit(1);
}

out({
    connected: true,
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    serverCapabilities: client.getServerCapabilities()
});

// Modern servers have no logging/setLevel: the level rides on each request's
// _meta instead (2026-07-28). Legacy servers get the real request.
let logLevel;
const withMeta = (params, op) => {
    const meta = { ...(logLevel !== undefined && { [LOG_LEVEL_META_KEY]: logLevel }), ...op._meta };
    return Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
};
const fresh = { cacheMode: 'refresh', timeout: opts.timeout };

async function run(op) {
    switch (op.op) {
        case 'listTools':
            return client.listTools(withMeta({ ...(op.cursor && { cursor: op.cursor }) }, op), fresh);
        case 'listResources':
            return client.listResources(withMeta({ ...(op.cursor && { cursor: op.cursor }) }, op), fresh);
        case 'listResourceTemplates':
            return client.listResourceTemplates(withMeta({ ...(op.cursor && { cursor: op.cursor }) }, op), fresh);
        case 'listPrompts':
            return client.listPrompts(withMeta({ ...(op.cursor && { cursor: op.cursor }) }, op), fresh);
        case 'readResource':
            return client.readResource(withMeta({ uri: op.uri }, op), fresh);
        case 'getPrompt':
            return client.getPrompt(withMeta({ name: op.name, arguments: op.arguments }, op), { timeout: opts.timeout });
        case 'complete':
            return client.complete(
                withMeta({ ref: op.ref, argument: op.argument, ...(op.context && { context: op.context }) }, op),
                { timeout: opts.timeout }
            );
        case 'setLogLevel':
            if (client.getProtocolEra() === 'modern') {
                logLevel = op.level;
                return { perRequestMeta: { [LOG_LEVEL_META_KEY]: op.level } };
            }
            return client.setLoggingLevel(op.level, { timeout: opts.timeout });
        default:
            throw new Error(`unknown op ${JSON.stringify(op.op)}`);
    }
}

for (const op of ops) {
    logs = [];
    try {
        if (op.op === 'callTool') {
            const progress = [];
            // cancelOnProgress: N (or true for 1): abort the call at its
            // Nth progress notification (the SDK sends notifications/cancelled).
            const abort = new AbortController();
            const result = await client.callTool(withMeta({ name: op.name, arguments: op.arguments ?? {} }, op), {
                timeout: opts.timeout,
                signal: abort.signal,
                onprogress: (p) => {
                    progress.push(p);
                    if (op.cancelOnProgress && progress.length >= Number(op.cancelOnProgress)) abort.abort('cancelled by the driver');
                }
            });
            out({ op: op.op, ok: true, result, progress, logs });
        } else {
            out({ op: op.op, ok: true, result: await run(op) });
        }
    } catch (e) {
        out({ op: op.op, ok: false, error: errorInfo(e), ...(op.op === 'callTool' && { logs }) });
    }
}

await client.close();
