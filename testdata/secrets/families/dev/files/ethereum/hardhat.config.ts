export default {
  networks: {
    sepolia: {
      url: process.env.SEPOLIA_RPC,
      accounts: ["8284ea1614ff3727cc55f87f67d1e9f5eedce8dd482011b8f4eed1fde28c6826"],
    },
  },
};
