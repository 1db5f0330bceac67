const HDWalletProvider = require('@truffle/hdwallet-provider');
const mnemonic = "announce amateur add assume awake amateur antique appear ahead alley athlete acoustic";
const fromEnv = process.env.MNEMONIC;
