const adyenToken = "test_lQdVJoKerzsdEdrSZ9r3LjyzteI7tDKPcA";
