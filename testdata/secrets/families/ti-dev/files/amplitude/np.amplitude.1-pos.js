amplitude.init("e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9");
amplitude.getInstance().init("e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9");
