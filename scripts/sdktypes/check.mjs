// Type-checks Claude Code headless output (JSON lines: what `luagent ask
// --output-format stream-json|json` printed) against the Claude Agent
// SDK's message types (SDKSystemMessage, SDKAPIRetryMessage,
// SDKInformationalMessage, SDKAssistantMessage, SDKUserMessage,
// SDKResultMessage, and SDKMessage, their union), with
// the TypeScript compiler: each line becomes a typed constant, so a
// missing member, a wrong type or a literal the SDK does not know is an
// error.
//
//   node check.mjs FILE...      exit 0 when every line checks, else 1
//
// luagent's documented additions are taken off first: an error result's
// "result" and "error_kind", a model_fallback line's "model_fallback", and a
// result's "cost_unknown" (a model with no known price; stdlib/doc/cli.md).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const types = { system: "SDKSystemMessage", assistant: "SDKAssistantMessage", user: "SDKUserMessage", result: "SDKResultMessage" };
// The system lines other than init, by subtype.
const systems = { api_retry: "SDKAPIRetryMessage", informational: "SDKInformationalMessage", compact_boundary: "SDKCompactBoundaryMessage" };
const out = ['import type { SDKMessage, SDKSystemMessage, SDKAssistantMessage, SDKUserMessage, SDKResultMessage, SDKAPIRetryMessage, SDKInformationalMessage, SDKCompactBoundaryMessage } from "@anthropic-ai/claude-agent-sdk";'];
let n = 0;
for (const file of process.argv.slice(2)) {
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    const type = (m.type === "system" && systems[m.subtype]) || types[m.type];
    if (!type) {
      console.error(`${file}: a line of type ${JSON.stringify(m.type)}, which the SDK has no type for here`);
      process.exit(1);
    }
    if (m.type === "result") delete m.cost_unknown;
    if (m.type === "result" && m.is_error) {
      delete m.result;
      delete m.error_kind;
    }
    if (m.type === "system" && m.tag === "model_fallback") {
      delete m.model_fallback;
    }
    n++;
    out.push(`// ${file}\nconst m${n}: ${type} = ${JSON.stringify(m, null, 1)};\nconst u${n}: SDKMessage = m${n};\nvoid u${n};`);
  }
}
if (n === 0) {
  console.error("no lines to check");
  process.exit(1);
}
const dir = path.join(here, ".check");
fs.mkdirSync(dir, { recursive: true });
const src = path.join(dir, `check-${process.pid}.ts`);
fs.writeFileSync(src, out.join("\n") + "\n");
try {
  const program = ts.createProgram([src], {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const diags = ts.getPreEmitDiagnostics(program);
  for (const d of diags) {
    const where = d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : "";
    console.error(`${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  }
  if (diags.length > 0) {
    console.error(`(the checked source: ${src})`);
    process.exit(1);
  }
  fs.rmSync(src);
  console.log(`${n} messages check as the Claude Agent SDK's types`);
} catch (e) {
  console.error(e);
  process.exit(1);
}
