contract VaultTest is Test {
    uint256 internal ownerKey = 0xe5de0e37e85e49b3823f183e4d25882988390e722961382ad988a10a34522a1a;
    function setUp() public {
        owner = vm.addr(ownerKey);
        uint256 deployer = vm.envUint("PRIVATE_KEY");
    }
}
