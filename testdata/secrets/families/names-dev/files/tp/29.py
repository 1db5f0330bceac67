signing_key = "VVEqZe2qpUWnoVPDF2yeE6RsXcNOPmeM"
