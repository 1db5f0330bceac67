String secretVersionNew = "vUKFotpe22a9Jf3iWyRBiLjOHtxYOzT2y";
