const replicateToken = "r8_LLdJJgykFDntmoN5e7T6hLYQgTlqELFObCtGup4R";
