-- An agent whose server takes a secret parameter in its env, and whose
-- calls get it as a bound argument the model never sees.
return agent.new{
  name = "vault keeper",
  description = "Looks items up in the vault",
  model = "mock",
  params = {
    { name = "vault_token", description = "the vault's token", secret = true, required = true },
  },
  servers = {
    vault = { command = arg[-1], args = { "serve", env.get("VAULT_SERVER") },
      env = { VAULT_TOKEN = { param = "vault_token" } } },
  },
  bindings = { { tool = "vault__*", arg = "token", value = { param = "vault_token" } } },
}
