var apiKey = process.env.MAILGUN_API || 'key-46cebd38c59ac222e6cf991581411eaf'
