var stripe = require("stripe")("sk_live_qdyFazIVmace52bThiOzbEVT");
//var stripe = require("stripe")("sk_test_nxOdTTuEace5Ajbh3svpG32m");
