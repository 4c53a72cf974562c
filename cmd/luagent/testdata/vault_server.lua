-- A server that needs a secret: its env has VAULT_TOKEN, and lookup
-- answers only when the token argument matches it — and then repeats the
-- token, so a test sees that the agent masks it.
local s = mcp.server{ name = "vault", version = "1.0.0" }
s:tool{
  name = "lookup",
  description = "Look an item up in the vault",
  input = { item = "string", token = "string" },
  annotations = { readOnlyHint = true },
  handler = function(args)
    if args.token ~= env.get("VAULT_TOKEN") then return "denied: wrong token" end
    return "item " .. args.item .. " unlocked with " .. args.token
  end,
}
return s
