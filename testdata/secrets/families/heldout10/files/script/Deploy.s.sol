contract Deploy is Script { function run() external {
    uint256 deployerPrivateKey = 0xdf46280a6d5ac6ee5d7f267022bf7d2b8d5e7295651e09475c1d73d109b6b410;
    vm.startBroadcast(deployerPrivateKey);
} }
