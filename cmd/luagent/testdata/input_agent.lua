-- An agent with call parameters: input = {...} joins its tool's schema.
return agent.new{ name = "sum", description = "Adds", model = "mock", hub = false,
  input = { a = "number", note = "string?" }, max_concurrent = 1 }
