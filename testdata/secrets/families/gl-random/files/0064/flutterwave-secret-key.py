flutterwavePubKeyToken = "FLWSECK_TEST-b59e25fa878c9b30cdd713e285958521-X"
