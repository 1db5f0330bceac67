module.exports = {
  postmark: "f59dffd2-83ea-47c7-ba8f-95e053a6d0ae",
};
