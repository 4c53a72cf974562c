-- The MCP conformance suite's fixture, as a luagent server: the tools,
-- resources and prompts the official judges (@modelcontextprotocol/conformance
-- 0.1.16 and 0.2.0-alpha.12) call, in both protocol eras. What each one must
-- do is written down, scenario by scenario, in stdlib/doc/conformance-fixture.md;
-- texts and payloads follow the suite's reference everything-server.
--
--   luagent serve examples/conformance/server.lua
--
-- The handlers are era-blind: ctx:elicit, ctx:sample, ctx:roots and ctx:ask
-- send requests to a 2025-11-25 client and become input_required rounds for
-- a 2026-07-28 one.

local s = mcp.server{ name = "luagent-conformance", version = "1.0.0",
  title = "luagent conformance fixture",
  instructions = "The MCP conformance suite's fixture: test_* tools, test:// resources and test_* prompts." }

-- A 1×1 red PNG and a 44-byte WAV header, base64.
local PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
local WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

local NO_ARGS = { type = "object", properties = {} }

-- A form elicitation schema asking for one field.
local function ask_for(field, ty)
  return { type = "object", properties = { [field] = { type = ty or "string" } }, required = { field } }
end

-- The text of an accepted elicitation's field ("unknown" when absent).
local function field(answer, name)
  local c = type(answer) == "table" and answer.content
  local v = type(c) == "table" and c[name]
  if v == nil then return "unknown" end
  return tostring(v)
end

-- The text of a sampling answer (content is a block or, since 2025-11-25,
-- a list of blocks).
local function sampled_text(answer)
  local c = answer.content
  if c and c.type == nil and c[1] then c = c[1] end
  return c and c.text or ""
end

local function elicitation_text(prefix, answer)
  return ("%s: action=%s, content=%s"):format(prefix, answer.action, json.encode(answer.content or json.object()))
end

-- Tools -----------------------------------------------------------------------
-- test_simple_text stays first: an HTTP scenario calls tools[0] with {}.

s:tool{ name = "test_simple_text", description = "Tests simple text content response", input = NO_ARGS,
  handler = function() return "This is a simple text response for testing." end }

s:tool{ name = "test_image_content", description = "Tests image content response", input = NO_ARGS,
  handler = function()
    return { content = { { type = "image", data = PNG, mimeType = "image/png" } } }
  end }

s:tool{ name = "test_audio_content", description = "Tests audio content response", input = NO_ARGS,
  handler = function()
    return { content = { { type = "audio", data = WAV, mimeType = "audio/wav" } } }
  end }

s:tool{ name = "test_embedded_resource", description = "Tests embedded resource content response", input = NO_ARGS,
  handler = function()
    return { content = { { type = "resource", resource = {
      uri = "test://embedded-resource", mimeType = "text/plain", text = "This is an embedded resource content." } } } }
  end }

s:tool{ name = "test_multiple_content_types", description = "Tests response with multiple content types (text, image, resource)",
  input = NO_ARGS,
  handler = function()
    return { content = {
      { type = "text", text = "Multiple content types test:" },
      { type = "image", data = PNG, mimeType = "image/png" },
      { type = "resource", resource = { uri = "test://mixed-content-resource", mimeType = "application/json",
        text = '{"test":"data","value":123}' } },
    } }
  end }

s:tool{ name = "test_tool_with_logging", description = "Tests tool that emits log messages during execution",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:log("info", "Tool execution started")
    task.sleep(0.05)
    ctx:log("info", "Tool processing data")
    task.sleep(0.05)
    ctx:log("info", "Tool execution completed")
    return "Tool with logging executed successfully"
  end }

s:tool{ name = "test_tool_with_progress", description = "Tests tool that reports progress notifications",
  input = NO_ARGS,
  handler = function(_, ctx)
    for i, step in ipairs{ 0, 50, 100 } do
      if i > 1 then task.sleep(0.05) end
      ctx:progress(step, 100, ("Completed step %d of 100"):format(step))
    end
    local token = ctx:meta().progressToken
    return token == nil and "no progress token" or tostring(token)
  end }

s:tool{ name = "test_error_handling", description = "Tests error response handling", input = NO_ARGS,
  handler = function() return nil, "This tool intentionally returns an error for testing" end }

s:tool{ name = "test_sampling", description = "Tests server-initiated sampling (LLM completion request)",
  input = { type = "object", required = { "prompt" },
    properties = { prompt = { type = "string", description = "The prompt to send to the LLM" } } },
  handler = function(args, ctx)
    local answer = ctx:sample{ messages = { { role = "user", content = { type = "text", text = args.prompt } } }, maxTokens = 100 }
    return "LLM response: " .. sampled_text(answer)
  end }

s:tool{ name = "test_elicitation", description = "Tests server-initiated elicitation (user input request)",
  input = { type = "object", required = { "message" },
    properties = { message = { type = "string", description = "The message to show the user" } } },
  handler = function(args, ctx)
    local answer = ctx:elicit{ message = args.message, schema = {
      type = "object", required = { "username", "email" },
      properties = {
        username = { type = "string", description = "User's response" },
        email = { type = "string", description = "User's email address" },
      } } }
    return elicitation_text("User response", answer)
  end }

s:tool{ name = "test_elicitation_sep1034_defaults", description = "Tests elicitation with default values for all primitive types (SEP-1034)",
  input = NO_ARGS,
  handler = function(_, ctx)
    local answer = ctx:elicit{ message = "Please review and update the form fields with defaults", schema = {
      type = "object", required = json.array(),
      properties = {
        name = { type = "string", description = "User name", default = "John Doe" },
        age = { type = "integer", description = "User age", default = 30 },
        score = { type = "number", description = "User score", default = 95.5 },
        status = { type = "string", description = "User status", enum = { "active", "inactive", "pending" }, default = "active" },
        verified = { type = "boolean", description = "Verification status", default = true },
      } } }
    return elicitation_text("Elicitation completed", answer)
  end }

s:tool{ name = "test_elicitation_sep1330_enums", description = "Tests elicitation with enum schema improvements (SEP-1330)",
  input = NO_ARGS,
  handler = function(_, ctx)
    local answer = ctx:elicit{ message = "Please select options from the enum fields", schema = {
      type = "object", required = json.array(),
      properties = {
        untitledSingle = { type = "string", description = "Select one option", enum = { "option1", "option2", "option3" } },
        titledSingle = { type = "string", description = "Select one option with titles", oneOf = {
          { const = "value1", title = "First Option" },
          { const = "value2", title = "Second Option" },
          { const = "value3", title = "Third Option" } } },
        legacyEnum = { type = "string", description = "Select one option (legacy)",
          enum = { "opt1", "opt2", "opt3" }, enumNames = { "Option One", "Option Two", "Option Three" } },
        untitledMulti = { type = "array", description = "Select multiple options", minItems = 1, maxItems = 3,
          items = { type = "string", enum = { "option1", "option2", "option3" } } },
        titledMulti = { type = "array", description = "Select multiple options with titles", minItems = 1, maxItems = 3,
          items = { anyOf = {
            { const = "value1", title = "First Choice" },
            { const = "value2", title = "Second Choice" },
            { const = "value3", title = "Third Choice" } } } },
      } } }
    return elicitation_text("Elicitation completed", answer)
  end }

s:tool{ name = "test_reconnection", description = "Tests SSE stream disconnection and client reconnection (SEP-1699)",
  input = NO_ARGS,
  handler = function()
    return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
  end }

s:tool{ name = "json_schema_2020_12_tool", description = "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  input = {
    ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
    type = "object",
    ["$defs"] = { address = { ["$anchor"] = "addressDef", type = "object",
      properties = { street = { type = "string" }, city = { type = "string" } } } },
    properties = {
      name = { type = "string" },
      address = { ["$ref"] = "#/$defs/address" },
      contactMethod = { type = "string", enum = { "phone", "email" } },
      phone = { type = "string" },
      email = { type = "string" },
    },
    allOf = { { anyOf = { { required = { "phone" } }, { required = { "email" } } } } },
    ["if"] = { properties = { contactMethod = { const = "phone" } }, required = { "contactMethod" } },
    ["then"] = { required = { "phone" } },
    ["else"] = { required = { "email" } },
    additionalProperties = false,
  },
  handler = function(args) return "JSON Schema 2020-12 tool called with: " .. json.encode(args) end }

-- Diagnostic tools of the 2026-07-28 server-stateless scenario.

s:tool{ name = "test_missing_capability", description = "Needs the client's sampling capability: -32021 without it",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:require_capability("sampling")
    return "Success"
  end }

s:tool{ name = "test_streaming_elicitation", description = "Asks the user through elicitation (input_required on 2026-07-28)",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:elicit{ message = "Please provide a response", schema = ask_for("response") }
    return "Streaming complete"
  end }

s:tool{ name = "test_logging_tool", description = "Logs one info message (only sent when the request asks for logs)",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:log("info", "Diagnostic trace logging activated")
    return "Logging evaluated"
  end }

s:tool{ name = "test_trigger_tool_change", description = "Sends notifications/tools/list_changed (the list stays the same)",
  input = NO_ARGS,
  handler = function()
    s:list_changed("tools")
    return "Mutation triggered"
  end }

s:tool{ name = "test_trigger_prompt_change", description = "Sends notifications/prompts/list_changed (the list stays the same)",
  input = NO_ARGS,
  handler = function()
    s:list_changed("prompts")
    return "Mutation triggered"
  end }

-- Input-required (MRTR) tools of the 2026-07-28 scenarios. The input keys
-- are the ones the judge answers.

s:tool{ name = "test_input_required_result_elicitation", description = "MRTR: asks for the user's name by elicitation",
  input = NO_ARGS,
  handler = function(_, ctx)
    local a = ctx:elicit{ key = "user_name", message = "What is your name?", schema = ask_for("name") }
    return ("Hello, %s!"):format(field(a, "name"))
  end }

s:tool{ name = "test_input_required_result_sampling", description = "MRTR: asks the client's LLM a question",
  input = NO_ARGS,
  handler = function(_, ctx)
    local a = ctx:sample{ key = "capital_question", maxTokens = 100,
      messages = { { role = "user", content = { type = "text", text = "What is the capital of France?" } } } }
    return "Sampling result: " .. sampled_text(a)
  end }

s:tool{ name = "test_input_required_result_list_roots", description = "MRTR: asks for the client's roots",
  input = NO_ARGS,
  handler = function(_, ctx)
    local roots = ctx:roots{ key = "client_roots" }
    return ("Found %d root(s)"):format(#roots)
  end }

s:tool{ name = "test_input_required_result_request_state", description = "MRTR: a confirmation carried through requestState",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:elicit{ key = "confirm", message = "Please confirm", schema = ask_for("ok", "boolean") }
    return "state-ok: requestState validated"
  end }

s:tool{ name = "test_input_required_result_multiple_inputs", description = "MRTR: elicitation, sampling and roots in one round",
  input = NO_ARGS,
  handler = function(_, ctx)
    local a = ctx:ask{
      user_name = { elicit = { message = "What is your name?", schema = ask_for("name") } },
      greeting = { sample = { maxTokens = 50,
        messages = { { role = "user", content = { type = "text", text = "Generate a greeting" } } } } },
      client_roots = { roots = {} },
    }
    return ("Name: %s; Greeting: %s; Roots: %d"):format(field(a.user_name, "name"), sampled_text(a.greeting), #a.client_roots)
  end }

s:tool{ name = "test_input_required_result_multi_round", description = "MRTR: two rounds of elicitation, one after the other",
  input = NO_ARGS,
  handler = function(_, ctx)
    local name = field(ctx:elicit{ key = "step1", message = "Step 1: What is your name?", schema = ask_for("name") }, "name")
    local color = field(ctx:elicit{ key = "step2", message = "Step 2: What is your favorite color?", schema = ask_for("color") }, "color")
    return ("Multi-round complete for %s who likes %s"):format(name, color)
  end }

s:tool{ name = "test_input_required_result_tampered_state", description = "MRTR: a tampered requestState is refused",
  input = NO_ARGS,
  handler = function(_, ctx)
    ctx:elicit{ key = "confirm", message = "Please confirm", schema = ask_for("ok", "boolean") }
    return "integrity-ok: state verified"
  end }

s:tool{ name = "test_input_required_result_capabilities", description = "MRTR: asks only for what the client declared",
  input = NO_ARGS,
  handler = function(_, ctx)
    local caps = ctx.client.capabilities or {}
    local want = {}
    if caps.elicitation then
      want.elicit_input = { elicit = { message = "Elicitation input", schema = ask_for("value") } }
    end
    if caps.sampling then
      want.sample_input = { sample = { maxTokens = 50,
        messages = { { role = "user", content = { type = "text", text = "Sample request" } } } } }
    end
    if next(want) == nil then return "No supported capabilities declared" end
    local got, keys = ctx:ask(want), {}
    for k in pairs(got) do keys[#keys + 1] = k end
    table.sort(keys)
    return "capabilities-ok: received " .. table.concat(keys, ", ")
  end }

-- An argument mirrored into an HTTP header (Mcp-Param-Region, 2026-07-28).
s:tool{ name = "test_custom_header", description = "Echoes its region argument, which clients also send as the Mcp-Param-Region header",
  input = { type = "object", required = { "region" },
    properties = { region = { type = "string", description = "A region name", ["x-mcp-header"] = "Region" } } },
  handler = function(args) return "region: " .. args.region end }

-- Resources -------------------------------------------------------------------
-- resources[0] must be readable: the caching scenario reads it.

s:resource{ uri = "test://static-text", name = "static-text", title = "Static Text Resource",
  description = "A static text resource for testing", mimeType = "text/plain",
  read = function() return "This is the content of the static text resource." end }

s:resource{ uri = "test://static-binary", name = "static-binary", title = "Static Binary Resource",
  description = "A static binary resource (image) for testing", mimeType = "image/png",
  read = function() return { blob = PNG } end }

s:resource{ uri = "test://watched-resource", name = "watched-resource", title = "Watched Resource",
  description = "A resource that auto-updates every 3 seconds", mimeType = "text/plain",
  read = function() return "Watched resource content" end }

s:resource{ uri = "test://embedded-resource", name = "embedded-resource", title = "Embedded Resource",
  description = "The resource test_embedded_resource embeds", mimeType = "text/plain",
  read = function() return "This is an embedded resource content." end }

s:resource{ uri = "test://mixed-content-resource", name = "mixed-content-resource", title = "Mixed Content Resource",
  description = "The resource test_multiple_content_types embeds", mimeType = "application/json",
  read = function() return '{"test":"data","value":123}' end }

local IDS = { "1", "2", "3", "42", "123", "999" }

local function prefixed(list, prefix)
  local out = {}
  for _, v in ipairs(list) do
    if v:sub(1, #prefix) == prefix then out[#out + 1] = v end
  end
  return json.array(out)
end

s:template{ uriTemplate = "test://template/{id}/data", name = "template", title = "Resource Template",
  description = "A resource template with parameter substitution", mimeType = "application/json",
  read = function(vars)
    return json.encode{ id = vars.id, templateTest = true, data = "Data for ID: " .. vars.id }
  end,
  complete = { id = function(value) return prefixed(IDS, value) end } }

-- Prompts ---------------------------------------------------------------------

s:prompt{ name = "test_simple_prompt", title = "Simple Test Prompt", description = "A simple prompt without arguments",
  get = function() return "This is a simple prompt for testing." end }

local ARG_VALUES = { "test", "testValue1", "testValue2", "value", "other" }

s:prompt{ name = "test_prompt_with_arguments", title = "Prompt With Arguments", description = "A prompt with required arguments",
  arguments = {
    { name = "arg1", description = "First test argument", required = true,
      complete = function(value) return prefixed(ARG_VALUES, value) end },
    { name = "arg2", description = "Second test argument", required = true,
      complete = function(value) return prefixed(ARG_VALUES, value) end },
  },
  get = function(args) return ("Prompt with arguments: arg1='%s', arg2='%s'"):format(args.arg1, args.arg2) end }

s:prompt{ name = "test_prompt_with_embedded_resource", title = "Prompt With Embedded Resource",
  description = "A prompt that includes an embedded resource",
  arguments = { { name = "resourceUri", description = "URI of the resource to embed", required = true } },
  get = function(args)
    return {
      { role = "user", content = { type = "resource", resource = {
        uri = args.resourceUri, mimeType = "text/plain", text = "Embedded resource content for testing." } } },
      { role = "user", content = "Please process the embedded resource above." },
    }
  end }

s:prompt{ name = "test_prompt_with_image", title = "Prompt With Image", description = "A prompt that includes image content",
  get = function()
    return {
      { role = "user", content = { type = "image", data = PNG, mimeType = "image/png" } },
      { role = "user", content = "Please analyze the image above." },
    }
  end }

s:prompt{ name = "test_input_required_result_prompt", title = "Input-Required Prompt",
  description = "MRTR: prompt that requires elicitation input",
  get = function(_, ctx)
    local a = ctx:elicit{ key = "user_context", message = "What context should the prompt use?", schema = ask_for("context") }
    return "Prompt with context: " .. field(a, "context")
  end }

-- Tasks (the tasks extension's scenarios, 2026-07-28; the same tools run
-- as 2025-11-25 tasks for a client that asks with params.task) ---------------

s:tool{ name = "greet", description = "Says hello (never a task)", input = { name = "string" },
  handler = function(args) return ("Hello, %s!"):format(args.name) end }

s:tool{ name = "slow_compute", description = "Sleeps seconds, then answers; runs as a task",
  input = { seconds = "number", label = "string?" }, task = "optional",
  handler = function(args)
    task.sleep(args.seconds)
    return ("Computed %s after %gs"):format(args.label or "result", args.seconds)
  end }

s:tool{ name = "failing_job", description = "Fails with a tool error after a second; only as a task",
  input = NO_ARGS, task = "required",
  handler = function()
    task.sleep(1)
    return nil, "the job failed (as it always does)"
  end }

s:tool{ name = "protocol_error_job", description = "Fails with a JSON-RPC error; runs as a task",
  input = NO_ARGS, task = "optional",
  handler = function(_, ctx)
    ctx:fail(-32603, "internal failure of protocol_error_job")
  end }

s:tool{ name = "confirm_delete", description = "Asks to confirm, then deletes (pretends to); runs as a task",
  input = { filename = "string" }, task = "optional",
  handler = function(args, ctx)
    local a = ctx:elicit{ key = "confirm", message = ("Delete %s?"):format(args.filename), schema = ask_for("confirm", "boolean") }
    return ("%s %s"):format(field(a, "confirm") == "true" and "Deleted" or "Kept", args.filename)
  end }

s:tool{ name = "multi_input", description = "Asks two questions at once; runs as a task",
  input = NO_ARGS, task = "optional",
  handler = function(_, ctx)
    local a = ctx:ask{
      first = { elicit = { message = "First name?", schema = ask_for("name") } },
      second = { elicit = { message = "Second name?", schema = ask_for("name") } },
    }
    return ("Got %s and %s"):format(field(a.first, "name"), field(a.second, "name"))
  end }

s:tool{ name = "test_tool_with_task", description = "Asks for a name (input_required), then goes on as a task",
  input = NO_ARGS, task = "required", manual_task = true,
  handler = function(_, ctx)
    local a = ctx:elicit{ key = "user_name", message = "What is your name?", schema = ask_for("name") }
    ctx:start_task()
    task.sleep(0.2)
    return ("Hello, %s!"):format(field(a, "name"))
  end }

-- Skills (the skills extension's server scenarios) ------------------------------

s:skill{ name = "pdf-processing", description = "Extract, fill, and assemble PDF documents",
  body = "# PDF processing\n\nRead references/FORMS.md before filling a form.\n",
  files = { ["references/FORMS.md"] = "# Forms\n\nFill every field, then flatten.\n" } }

s:skill{ name = "release-notes", description = "Write release notes from a list of changes",
  body = "# Release notes\n\nGroup the changes by kind; newest first.\n" }

-- Timers ----------------------------------------------------------------------
-- test_dynamic_tool appears after 2 s (clients get tools/list_changed);
-- test://watched-resource "changes" every 3 s (subscribers get
-- resources/updated).

task.spawn(function()
  task.sleep(2)
  s:tool{ name = "test_dynamic_tool", description = "A tool registered 2 seconds after the server started",
    input = NO_ARGS, handler = function() return "This is a dynamically registered tool." end }
end)

task.spawn(function()
  while true do
    task.sleep(3)
    s:resource_updated("test://watched-resource")
  end
end)

return s
