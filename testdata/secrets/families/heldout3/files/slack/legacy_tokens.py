# tokens of the old workspace app, kept for the migration script
LEGACY_TOKENS = ["xoxs-523423-234243-234233-e039d02840a0b9379c",
                 "xoxa-2-511111111-31111111111-3111111111111-e039d02840a0b9379c",
                 "xoxr-523423-234243-234233-e039d02840a0b9379c"]
BOT = "xoxb-34532454-e039d02840a0b9379c"
