cast send 0xa17e10c46a8b8a16c040bf40a8ef8cb10a04562a "mint(uint256)" 10 --rpc-url $RPC --private-key 0x10fe75729fdb286db52d3e54e8cfaf91b27c43f35d0ef7685ec096c81d891ed4
cast send 0x54a581c97d8e95d5e79ca29529f35c620fafd953 "burn(uint256)" 1 --rpc-url $RPC --private-key $DEPLOYER_KEY
