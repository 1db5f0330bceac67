Mailgun::Client.new("key-10cf9cabaa4f45cd8489639f308ea72a")
