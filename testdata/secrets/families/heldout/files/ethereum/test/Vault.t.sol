contract VaultTest is Test {
    uint256 internal ownerKey = 0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a;
    address internal owner = vm.addr(ownerKey);
}
