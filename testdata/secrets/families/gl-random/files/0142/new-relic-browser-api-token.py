new-relicToken = "NRJS-ad81f5a0dac0e275994"
