client = Slack::Web::Client.new(token: 'xoxp-971002323040-866385685222-2416005553268-5aaaef7d65a93e24bd5e6d3498c0b49f')
