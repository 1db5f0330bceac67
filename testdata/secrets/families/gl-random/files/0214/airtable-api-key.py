airtableToken = "4q0h69xzstcfc6xy6"
