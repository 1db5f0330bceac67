AIRTABLE_TOKEN = "biqozolym7yyz24dl"
