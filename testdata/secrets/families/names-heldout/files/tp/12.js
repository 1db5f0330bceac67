  webhookToken2: "FEPSUlNbqg8M4KzZKObVeLpy",
