public static class SmsOptions {
    public const string MessagebirdClientId = "F0E436CD-80CB-4BDA-8D60-44A10BB050F7";
}
