plaidToken := "q2c5kxmjqyd3yun77uo42n66olfg9s"
