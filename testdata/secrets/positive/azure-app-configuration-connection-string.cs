public static class Settings {
    const string AppConfig = "Endpoint=https://appcs-orders-prod.azconfig.io;Id=5i8a-l9-s0:1nojqRN54jeF0CnKrdLg;Secret=DyiYZA4lUBb/ez09u+W0Qje4rbp2uqGq1W4LHMTFuUK=";
}
