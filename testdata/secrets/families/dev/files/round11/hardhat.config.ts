networks: {
  sepolia: { url: RPC, accounts: { mnemonic: "answer amount assume announce abandon arrow album acquire actor aerobic ahead axis" } },
  hardhat: { accounts: { mnemonic: "test test test test test test test test test test test junk" } },
}
