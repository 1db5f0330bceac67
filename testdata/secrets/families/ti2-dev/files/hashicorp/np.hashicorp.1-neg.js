this._emitEOFToken()):(this._err(s.unexpectedCharacterAfterDoctypeSystemIdentifier)
// TODO: ServerAddressByClientCIDRs: s.getServerAddressByClientCIDRs(req.Request),
