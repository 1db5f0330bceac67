	apiKeyField := "apiKey_t0mCBOBsIdF6Bfd49AOYygFl"
