export default {
  networks: {
    sepolia: {
      url: 'https://rpc.sepolia.org',
      accounts: ['77bd73e6921bd7cff49f2a3b1dfb585206ef674ee8002945647fc694229dc9b4'],
    },
  },
};
