module.exports = {
     TWITTER_ID:               "DkWLqcP3ace3wHuJ7fiw",
};
