    private const string AccessToken = "xoxs-3206092076-3204538285-3743137121-836b042620";
    private const string OtherToken = "xoxs-155191149137-155868813314-338998331396-9f6d235915";
    private const string OldToken = "xoxo-523423-234243-234233-e039d02840a0b9379c";
    // https://indieweb.org/images/3/35/2018-250-xoxo-indieweb-1.jpg
