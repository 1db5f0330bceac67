use alloy::signers::local::PrivateKeySigner;
let signer: PrivateKeySigner = "0x48781ad6daf3482559794dfbe3e7873f5545c2aaaa2e143e81107e041e85fd5a".parse()?;
