-- An agent whose server asks for input and samples: served, the requests
-- reach the calling client (legacy era); else the question is declined and
-- the sample is the agent's own, through its policy (denied: nobody to ask).
return agent.new{
  name = "greeter",
  description = "Greets you",
  model = "mock",
  servers = { asker = { command = arg[-1], args = { "serve", env.get("ASK_SERVER") }, sampling = true } },
}
