import { privateKeyToAccount } from "viem/accounts";
const deployerKey: Hex = "0xfbc44d96257edc3c99cfec81a92482527b1eaaf4a213a68f90a3c5995b070ec4";
