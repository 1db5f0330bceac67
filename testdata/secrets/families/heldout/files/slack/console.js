// const slack = require('console-slack');
// slack.options = {
//   webhook : "https://hooks.slack.com/services/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",
//   username: "console.slack.bot",
// };
