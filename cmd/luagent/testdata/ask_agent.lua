-- An agent whose server asks for input and samples: served, the requests
-- reach the calling client (in the 2026-07-28 era through input_required
-- rounds, the run parked between them); a client that cannot answer gets
-- the question declined and the sample is the agent's own, through its
-- policy (denied: nobody to ask).
return agent.new{
  name = "greeter",
  description = "Greets you",
  model = "mock",
  servers = { asker = { command = arg[-1], args = { "serve", env.get("ASK_SERVER") }, sampling = true } },
}
