class Mail {
  static final SendGrid SG = new SendGrid("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");
}
