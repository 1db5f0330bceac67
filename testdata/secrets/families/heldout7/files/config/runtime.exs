import Config
config :notifier, Notifier.Slack,
  api_token: "xoxp-574656882231-220759996554-8096296211372-bb43214d65ddf15ccc3e5e607f0420de"
config :pxshop, PxshopWeb.Endpoint,
  secret_key_base: "qlkmWP9bOe7YasBiaPFUVAkpsLNEtkKvsBeughKZR9kw5mwSSrBZrXKbBeFj111P"
config :pxshop, Pxshop.Repo,
  username: "pxshop",
  password: "vF50gGvfVto2BaDXtK",
  database: "pxshop_prod"
