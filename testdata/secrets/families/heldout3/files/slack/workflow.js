const TRIGGER = "https://hooks.slack.com/triggers/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";
const appToken = "xapp-1-ADV2VTO11TI-2133067335315-6bf84c2ed18b1fc02b9fba51925484824c91d166aae01fbf53e1daf553c6788d";
