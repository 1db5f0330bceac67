const HDWalletProvider = require("@truffle/hdwallet-provider");
const provider = new HDWalletProvider({ privateKeys: ["8b05310dda471f51a97145b6ab2d7418cbdd7e51c23f8801732a6473acecd9ed"], providerOrUrl: "https://sepolia.infura.io/v3/" + process.env.INFURA_ID });
