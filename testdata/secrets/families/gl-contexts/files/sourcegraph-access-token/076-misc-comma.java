System.setProperty("SOURCEGRAPH_TOKEN", "sgp_local_bcD1DA18de0d6476Be0f3BD7Ef9Da4f09b479aE5")
