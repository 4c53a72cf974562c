-- An agent whose server asks for input: served, the question reaches the
-- calling client (legacy era), else it is declined.
return agent.new{
  name = "greeter",
  description = "Greets you",
  model = "mock",
  servers = { asker = { command = arg[-1], args = { "serve", env.get("ASK_SERVER") } } },
}
