const { ethers } = require('ethers');
describe('deploy', () => {
  const wallet = new ethers.Wallet('0x2a9994e4fc7dad09a94cdd0f74cd3bf89a7419be54d3fb2f0e2dfe4ff2757ab1');
});
