const LAUNCHDARKLY_SDK_KEY = "sdk-a0ba3dbb-9146-7b1d-2cde-b5e8a4e0331c";
