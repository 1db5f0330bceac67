newman run collection.json --postman-api-key PMAK-dfd1f159e4a3ee90a016a3f5-b5fdd916c71e0799631ba8066853b0e6a0
